package losses

import (
	"reflect"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/candidates"
)

// TestResolveDefaults: the zero value and each variant get their documented defaults for the
// candidates of a geometry: q_source where the variant reads q from the data (a sampler whose
// columns are the batch's positives), none for a sampler of its own law.
func TestResolveDefaults(t *testing.T) {
	for _, tc := range []struct {
		in   Settings
		g    candidates.Geometry
		want Settings
	}{
		{Settings{}, inBatchG, Settings{Variant: VariantPlain, Temperature: 0.05, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantLogQ}, inBatchG, Settings{Variant: VariantLogQ, Temperature: 0.05,
			CorrectAt: CorrectAtLogits, LogQProbability: LogQProbabilityExpectedCount, QSource: QSourceCounts, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantLogQ, LogQProbability: LogQProbabilityDedupe}, inBatchG, Settings{Variant: VariantLogQ,
			Temperature: 0.05, CorrectAt: CorrectAtLogits, RemoveAccidentalHits: true, LogQProbability: LogQProbabilityDedupe,
			Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantNCE}, uniformG, Settings{Variant: VariantNCE,
			Temperature: 0.05, CorrectAt: CorrectAtLogits, LogQProbability: LogQProbabilityExpectedCount, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantRelative}, inBatchG, Settings{Variant: VariantRelative, Form: FormSoftmax,
			Temperature: 0.05, CorrectAt: CorrectAtLogits, QSource: QSourceCounts, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantImportance, QSource: QSourceEstimator}, mixedG,
			Settings{Variant: VariantImportance, Form: FormSoftmax, Temperature: 0.05,
				CorrectAt: CorrectAtLogits, QSource: QSourceEstimator, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantTail}, uniformG, Settings{Variant: VariantTail, Form: FormSoftmax,
			Temperature: 0.05, CorrectAt: CorrectAtLogits, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantTail}, memoryG, Settings{Variant: VariantTail, Form: FormSoftmax,
			Temperature: 0.05, CorrectAt: CorrectAtLogits, QSource: QSourceCounts, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantConstant, Form: FormDecoupled}, mixedG, Settings{Variant: VariantConstant,
			Form: FormDecoupled, Temperature: 0.05, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantFull, Temperature: 0.1}, corpusG, Settings{Variant: VariantFull, Temperature: 0.1, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantLogitAdjusted}, corpusG, Settings{Variant: VariantLogitAdjusted, Temperature: 0.05, CorrectAt: CorrectAtLogits,
			LATau: 1, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantMSEGramian}, inBatchG, Settings{Variant: VariantMSEGramian, GramianWeight: 1,
			QSource: QSourceCounts, Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantSampledLogistic}, inBatchG, Settings{Variant: VariantSampledLogistic, Temperature: 0.05,
			CorrectAt: CorrectAtLogits, RemoveAccidentalHits: true, LogQProbability: LogQProbabilityExpectedCount, QSource: QSourceCounts,
			Reduction: ReductionMean, Impl: ImplAuto}},
		{Settings{Variant: VariantNegativeSampling, Reduction: ReductionSum}, inBatchG, Settings{Variant: VariantNegativeSampling,
			Temperature: 0.05, Reduction: ReductionSum, Impl: ImplAuto}},
		{Settings{Variant: VariantLogQCorrected, QSource: QSourceEstimator}, paddedG, Settings{Variant: VariantLogQCorrected,
			Temperature: 0.05, CorrectAt: CorrectAtLogits, RemoveAccidentalHits: true,
			QSource: QSourceEstimator, Reduction: ReductionMean, Impl: ImplAuto}},
	} {
		got := tc.in
		if err := got.ResolveFor(tc.g); err != nil {
			t.Errorf("%+v for %v: %v", tc.in, tc.g, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ResolveFor(%+v, %v) = %+v, want %+v", tc.in, tc.g, got, tc.want)
		}
		again := got
		if err := again.ResolveFor(tc.g); err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("ResolveFor is not idempotent on %+v: %+v, %v", got, again, err)
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
		{Settings{Variant: VariantLogQ, CorrectAt: "score"}, `correct_at: unknown "score" (allowed: logits, scores)`},
		{Settings{Reduction: "avg"}, `reduction: unknown "avg" (allowed: mean, sum)`},
		{Settings{Form: FormDecoupled}, "form: only for constant, importance, relative and tail"},
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
		{Settings{Variant: VariantRelative, LogQProbability: LogQProbabilityDedupe}, "logq_probability: only for logq, nce, sampled_logistic, login and logout, not variant relative"},
		{Settings{Variant: VariantLogQCorrected, LogQProbability: LogQProbabilityExpectedCount}, "logq_probability: only for logq, nce, sampled_logistic, login and logout, not variant logq_corrected"},
		{Settings{Variant: VariantImportance, QSource: "exact"}, `q_source: unknown "exact" (allowed: counts, estimator)`},
		{Settings{Variant: VariantConstant, QSource: QSourceCounts}, "q_source: variant constant"},
		{Settings{Variant: VariantPlain, QSource: QSourceEstimator}, "q_source: variant plain"},
		{Settings{Variant: VariantLogQ, LogQProbability: LogQProbabilityInclusion, QSource: QSourceCounts}, "q_source: variant logq"},
	} {
		s := tc.in
		err := s.Resolve()
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Resolve(%+v) = %v, want prefix %q", tc.in, err, tc.want)
		}
	}
}

// TestResolveForErrors: the settings that do not go with a sampler's geometry are errors naming
// the key and the sampler: a variant that scores the whole corpus needs sampler full, which
// serves no other; q_source is for the data's q only, which a sampler of its own law does not
// read.
func TestResolveForErrors(t *testing.T) {
	popularity := candidates.Geometry{Sampler: "popularity", Layout: candidates.First, Extra: 8}
	for _, tc := range []struct {
		in   Settings
		g    candidates.Geometry
		want string
	}{
		{Settings{Variant: VariantFull}, popularity, "variant: full scores the whole corpus, which needs sampler full, not popularity"},
		{Settings{Variant: VariantLogitAdjusted}, inBatchG, "variant: logit_adjusted scores the whole corpus, which needs sampler full, not in_batch"},
		{Settings{}, corpusG, "variant: sampler full scores the whole corpus, which only variants full, logit_adjusted, login and logout do, not plain"},
		{Settings{Variant: VariantLogQCorrected, QSource: QSourceCounts}, popularity,
			"q_source: variant logq_corrected reads sampler popularity's own q (layout first), not the data's"},
		{Settings{Variant: VariantImportance, QSource: QSourceCounts}, uniformG, "q_source: variant importance reads sampler uniform's own q"},
		{Settings{Variant: VariantPlain, Temperature: -1}, inBatchG, "temperature: must be finite and > 0"},
		{Settings{}, candidates.Geometry{Sampler: "broken", Layout: candidates.First, Memory: 1}, "the geometry of sampler broken: memory rows"},
	} {
		s := tc.in
		err := s.ResolveFor(tc.g)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ResolveFor(%+v, %v) = %v, want prefix %q", tc.in, tc.g, err, tc.want)
		}
	}
}
