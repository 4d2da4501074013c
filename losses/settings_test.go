package losses

import (
	"reflect"
	"strings"
	"testing"
)

// TestResolveDefaults: the zero value and each variant get their documented defaults.
func TestResolveDefaults(t *testing.T) {
	for _, tc := range []struct {
		in, want Settings
	}{
		{Settings{}, Settings{Variant: VariantPlain, Sampler: SamplerInBatch, Temperature: 0.05, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantLogQ}, Settings{Variant: VariantLogQ, Sampler: SamplerInBatch, Temperature: 0.05,
			CorrectAt: CorrectAtLogits, LogQProbability: LogQProbabilityExpectedCount, QSource: QSourceCounts, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantLogQ, LogQProbability: LogQProbabilityDedupe}, Settings{Variant: VariantLogQ, Sampler: SamplerInBatch,
			Temperature: 0.05, CorrectAt: CorrectAtLogits, RemoveAccidentalHits: true, LogQProbability: LogQProbabilityDedupe,
			Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantNCE, Sampler: SamplerUniform}, Settings{Variant: VariantNCE, Sampler: SamplerUniform, Negatives: 64,
			Temperature: 0.05, CorrectAt: CorrectAtLogits, LogQProbability: LogQProbabilityExpectedCount, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantRelative}, Settings{Variant: VariantRelative, Form: FormSoftmax, Sampler: SamplerInBatch,
			Temperature: 0.05, CorrectAt: CorrectAtLogits, QSource: QSourceCounts, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantImportance, Sampler: SamplerMixed, Negatives: 4, QSource: QSourceEstimator},
			Settings{Variant: VariantImportance, Form: FormSoftmax, Sampler: SamplerMixed, Negatives: 4, Temperature: 0.05,
				CorrectAt: CorrectAtLogits, QSource: QSourceEstimator, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantTail, Sampler: SamplerUniform}, Settings{Variant: VariantTail, Form: FormSoftmax,
			Sampler: SamplerUniform, Negatives: 64, Temperature: 0.05, CorrectAt: CorrectAtLogits, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantConstant, Form: FormDecoupled, Sampler: SamplerMixed, Negatives: 8}, Settings{Variant: VariantConstant,
			Form: FormDecoupled, Sampler: SamplerMixed, Negatives: 8, Temperature: 0.05, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantFull, Temperature: 0.1}, Settings{Variant: VariantFull, Temperature: 0.1, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantLogitAdjusted}, Settings{Variant: VariantLogitAdjusted, Temperature: 0.05, CorrectAt: CorrectAtLogits,
			LATau: 1, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantMSEGramian}, Settings{Variant: VariantMSEGramian, Sampler: SamplerInBatch, GramianWeight: 1,
			QSource: QSourceCounts, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantSampledLogistic}, Settings{Variant: VariantSampledLogistic, Sampler: SamplerInBatch, Temperature: 0.05,
			CorrectAt: CorrectAtLogits, RemoveAccidentalHits: true, LogQProbability: LogQProbabilityExpectedCount, QSource: QSourceCounts,
			Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantNegativeSampling, Reduction: ReductionSum}, Settings{Variant: VariantNegativeSampling,
			Sampler: SamplerInBatch, Temperature: 0.05, Reduction: ReductionSum, Impl: ImplAuto}},
		{Settings{Variant: VariantLogQCorrected, QSource: QSourceEstimator}, Settings{Variant: VariantLogQCorrected,
			Sampler: SamplerInBatch, Temperature: 0.05, CorrectAt: CorrectAtLogits, RemoveAccidentalHits: true,
			QSource: QSourceEstimator, Reduction: ReductionMean, Impl: ImplAuto}},
	} {
		got := tc.in
		if err := got.Resolve(); err != nil {
			t.Errorf("%+v: %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Resolve(%+v) = %+v, want %+v", tc.in, got, tc.want)
		}
		again := got
		if err := again.Resolve(); err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("Resolve is not idempotent on %+v: %+v, %v", got, again, err)
		}
	}
}

// TestResolveErrors: misspelled names list the allowed ones; an option a
// variant does not use is rejected; every message starts with the TOML key.
func TestResolveErrors(t *testing.T) {
	for _, tc := range []struct {
		in   Settings
		want string
	}{
		{Settings{Variant: "lgoq"}, `variant: unknown "lgoq" (allowed: plain, logq, constant, importance, relative, tail, full, logit_adjusted, mse_gramian, nce, negative_sampling, sampled_logistic, logq_corrected`},
		{Settings{Variant: VariantTail, Form: "decouple"}, `form: unknown "decouple" (allowed: softmax, decoupled)`},
		{Settings{Sampler: "unifrom"}, `sampler: unknown "unifrom" (allowed: in_batch, uniform, mixed)`},
		{Settings{Variant: VariantLogQ, CorrectAt: "score"}, `correct_at: unknown "score" (allowed: logits, scores)`},
		{Settings{Reduction: "avg"}, `reduction: unknown "avg" (allowed: mean, sum)`},
		{Settings{Form: FormDecoupled}, "form: only for constant, importance, relative and tail"},
		{Settings{Variant: VariantFull, Sampler: SamplerUniform}, "sampler: variant full scores the whole corpus"},
		{Settings{Variant: VariantLogitAdjusted, Negatives: 5}, "negatives: variant logit_adjusted scores the whole corpus"},
		{Settings{Negatives: 5}, "negatives: sampler in_batch uses the batch as negatives"},
		{Settings{Sampler: SamplerUniform, Negatives: -1}, "negatives: must be > 0, got -1"},
		{Settings{Temperature: -0.1}, "temperature: must be finite and > 0, got -0.1"},
		{Settings{Variant: VariantMSEGramian, Temperature: 0.05}, "temperature: variant mse_gramian works on the raw scores"},
		{Settings{CorrectAt: CorrectAtScores}, "correct_at: variant plain"},
		{Settings{Variant: VariantImportance, Form: FormDecoupled, CorrectAt: CorrectAtScores}, "correct_at: variant importance"},
		{Settings{Variant: VariantImportance, UncorrectedPositive: true}, "uncorrected_positive: only for logq, nce and sampled_logistic"},
		{Settings{Variant: VariantFull, RemoveAccidentalHits: true}, "remove_accidental_hits: variant full"},
		{Settings{Variant: VariantMSEGramian, RemoveAccidentalHits: true}, "remove_accidental_hits: variant mse_gramian"},
		{Settings{LATau: 2}, "la_tau: only for logit_adjusted"},
		{Settings{Variant: VariantLogitAdjusted, LATau: -1}, "la_tau: must be finite and > 0, got -1"},
		{Settings{GramianWeight: 2}, "gramian_weight: only for mse_gramian"},
		{Settings{Variant: VariantMSEGramian, GramianWeight: -2}, "gramian_weight: must be finite and > 0, got -2"},
		{Settings{Variant: VariantLogQ, LogQProbability: "count"}, `logq_probability: unknown "count" (allowed: expected_count, inclusion, dedupe)`},
		{Settings{Variant: VariantRelative, LogQProbability: LogQProbabilityDedupe}, "logq_probability: only for logq, nce and sampled_logistic, not variant relative"},
		{Settings{Variant: VariantLogQCorrected, LogQProbability: LogQProbabilityExpectedCount}, "logq_probability: only for logq, nce and sampled_logistic, not variant logq_corrected"},
		{Settings{Variant: VariantLogQCorrected, Sampler: SamplerUniform, QSource: QSourceCounts}, "q_source: variant logq_corrected (sampler \"uniform\""},
		{Settings{Variant: VariantImportance, QSource: "exact"}, `q_source: unknown "exact" (allowed: counts, estimator)`},
		{Settings{Variant: VariantConstant, QSource: QSourceCounts}, "q_source: variant constant"},
		{Settings{Variant: VariantPlain, QSource: QSourceEstimator}, "q_source: variant plain"},
		{Settings{Variant: VariantLogQ, LogQProbability: LogQProbabilityInclusion, QSource: QSourceCounts}, "q_source: variant logq"},
		{Settings{Variant: VariantImportance, Sampler: SamplerUniform, QSource: QSourceCounts}, "q_source: variant importance (sampler \"uniform\""},
	} {
		s := tc.in
		err := s.Resolve()
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Resolve(%+v) = %v, want prefix %q", tc.in, err, tc.want)
		}
	}
}
