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
		{Settings{}, Settings{Variant: Plain, Sampler: SamplerInBatch, Temperature: 0.05, Reduction: ReduceMean, Impl: ImplAuto}},
		{Settings{Variant: LogQ}, Settings{Variant: LogQ, Sampler: SamplerInBatch, Temperature: 0.05,
			CorrectAt: CorrectLogits, LogQProbability: ProbExpectedCount, QSource: QSourceCounts, Reduction: ReduceMean, Impl: ImplAuto}},
		{Settings{Variant: LogQ, LogQProbability: ProbDedupe}, Settings{Variant: LogQ, Sampler: SamplerInBatch,
			Temperature: 0.05, CorrectAt: CorrectLogits, RemoveAccidentalHits: true, LogQProbability: ProbDedupe,
			Reduction: ReduceMean, Impl: ImplAuto}},
		{Settings{Variant: NCE, Sampler: SamplerUniform}, Settings{Variant: NCE, Sampler: SamplerUniform, Negatives: 64,
			Temperature: 0.05, CorrectAt: CorrectLogits, LogQProbability: ProbExpectedCount, Reduction: ReduceMean, Impl: ImplAuto}},
		{Settings{Variant: Relative}, Settings{Variant: Relative, Form: FormSoftmax, Sampler: SamplerInBatch,
			Temperature: 0.05, CorrectAt: CorrectLogits, QSource: QSourceCounts, Reduction: ReduceMean, Impl: ImplAuto}},
		{Settings{Variant: Importance, Sampler: SamplerMixed, Negatives: 4, QSource: QSourceEstimator},
			Settings{Variant: Importance, Form: FormSoftmax, Sampler: SamplerMixed, Negatives: 4, Temperature: 0.05,
				CorrectAt: CorrectLogits, QSource: QSourceEstimator, Reduction: ReduceMean, Impl: ImplAuto}},
		{Settings{Variant: Tail, Sampler: SamplerUniform}, Settings{Variant: Tail, Form: FormSoftmax,
			Sampler: SamplerUniform, Negatives: 64, Temperature: 0.05, CorrectAt: CorrectLogits, Reduction: ReduceMean, Impl: ImplAuto}},
		{Settings{Variant: Constant, Form: FormDecoupled, Sampler: SamplerMixed, Negatives: 8}, Settings{Variant: Constant,
			Form: FormDecoupled, Sampler: SamplerMixed, Negatives: 8, Temperature: 0.05, Reduction: ReduceMean, Impl: ImplAuto}},
		{Settings{Variant: Full, Temperature: 0.1}, Settings{Variant: Full, Temperature: 0.1, Reduction: ReduceMean, Impl: ImplAuto}},
		{Settings{Variant: LogitAdjusted}, Settings{Variant: LogitAdjusted, Temperature: 0.05, CorrectAt: CorrectLogits,
			LATau: 1, Reduction: ReduceMean, Impl: ImplAuto}},
		{Settings{Variant: MSEGramian}, Settings{Variant: MSEGramian, Sampler: SamplerInBatch, GramianWeight: 1,
			QSource: QSourceCounts, Reduction: ReduceMean, Impl: ImplAuto}},
		{Settings{Variant: SampledLogistic}, Settings{Variant: SampledLogistic, Sampler: SamplerInBatch, Temperature: 0.05,
			CorrectAt: CorrectLogits, RemoveAccidentalHits: true, LogQProbability: ProbExpectedCount, QSource: QSourceCounts,
			Reduction: ReduceMean, Impl: ImplAuto}},
		{Settings{Variant: NegativeSampling, Reduction: ReduceSum}, Settings{Variant: NegativeSampling,
			Sampler: SamplerInBatch, Temperature: 0.05, Reduction: ReduceSum, Impl: ImplAuto}},
		{Settings{Variant: LogQCorrected, QSource: QSourceEstimator}, Settings{Variant: LogQCorrected,
			Sampler: SamplerInBatch, Temperature: 0.05, CorrectAt: CorrectLogits, RemoveAccidentalHits: true,
			QSource: QSourceEstimator, Reduction: ReduceMean, Impl: ImplAuto}},
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
		{Settings{Variant: Tail, Form: "decouple"}, `form: unknown "decouple" (allowed: softmax, decoupled)`},
		{Settings{Sampler: "unifrom"}, `sampler: unknown "unifrom" (allowed: in_batch, uniform, mixed)`},
		{Settings{Variant: LogQ, CorrectAt: "score"}, `correct_at: unknown "score" (allowed: logits, scores)`},
		{Settings{Reduction: "avg"}, `reduction: unknown "avg" (allowed: mean, sum)`},
		{Settings{Form: FormDecoupled}, "form: only for constant, importance, relative and tail"},
		{Settings{Variant: Full, Sampler: SamplerUniform}, "sampler: variant full scores the whole corpus"},
		{Settings{Variant: LogitAdjusted, Negatives: 5}, "negatives: variant logit_adjusted scores the whole corpus"},
		{Settings{Negatives: 5}, "negatives: sampler in_batch uses the batch as negatives"},
		{Settings{Sampler: SamplerUniform, Negatives: -1}, "negatives: must be > 0, got -1"},
		{Settings{Temperature: -0.1}, "temperature: must be finite and > 0, got -0.1"},
		{Settings{Variant: MSEGramian, Temperature: 0.05}, "temperature: variant mse_gramian works on the raw scores"},
		{Settings{CorrectAt: CorrectScores}, "correct_at: variant plain"},
		{Settings{Variant: Importance, Form: FormDecoupled, CorrectAt: CorrectScores}, "correct_at: variant importance"},
		{Settings{Variant: Importance, UncorrectedPositive: true}, "uncorrected_positive: only for logq, nce and sampled_logistic"},
		{Settings{Variant: Full, RemoveAccidentalHits: true}, "remove_accidental_hits: variant full"},
		{Settings{Variant: MSEGramian, RemoveAccidentalHits: true}, "remove_accidental_hits: variant mse_gramian"},
		{Settings{LATau: 2}, "la_tau: only for logit_adjusted"},
		{Settings{Variant: LogitAdjusted, LATau: -1}, "la_tau: must be finite and > 0, got -1"},
		{Settings{GramianWeight: 2}, "gramian_weight: only for mse_gramian"},
		{Settings{Variant: MSEGramian, GramianWeight: -2}, "gramian_weight: must be finite and > 0, got -2"},
		{Settings{Variant: LogQ, LogQProbability: "count"}, `logq_probability: unknown "count" (allowed: expected_count, inclusion, dedupe)`},
		{Settings{Variant: Relative, LogQProbability: ProbDedupe}, "logq_probability: only for logq, nce and sampled_logistic, not variant relative"},
		{Settings{Variant: LogQCorrected, LogQProbability: ProbExpectedCount}, "logq_probability: only for logq, nce and sampled_logistic, not variant logq_corrected"},
		{Settings{Variant: LogQCorrected, Sampler: SamplerUniform, QSource: QSourceCounts}, "q_source: variant logq_corrected (sampler \"uniform\""},
		{Settings{Variant: Importance, QSource: "exact"}, `q_source: unknown "exact" (allowed: counts, estimator)`},
		{Settings{Variant: Constant, QSource: QSourceCounts}, "q_source: variant constant"},
		{Settings{Variant: Plain, QSource: QSourceEstimator}, "q_source: variant plain"},
		{Settings{Variant: LogQ, LogQProbability: ProbInclusion, QSource: QSourceCounts}, "q_source: variant logq"},
		{Settings{Variant: Importance, Sampler: SamplerUniform, QSource: QSourceCounts}, "q_source: variant importance (sampler \"uniform\""},
	} {
		s := tc.in
		err := s.Resolve()
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Resolve(%+v) = %v, want prefix %q", tc.in, err, tc.want)
		}
	}
}
