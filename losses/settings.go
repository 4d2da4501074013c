package losses

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Variant names (the values of Settings.Variant).
const (
	Plain            = "plain"
	LogQ             = "logq"
	Constant         = "constant"
	Importance       = "importance"
	Relative         = "relative"
	Tail             = "tail"
	Full             = "full"
	LogitAdjusted    = "logit_adjusted"
	MSEGramian       = "mse_gramian"
	NCE              = "nce"
	NegativeSampling = "negative_sampling"
	SampledLogistic  = "sampled_logistic"
	LogQCorrected    = "logq_corrected"
)

// Impl is how a loss node is computed (the value of Settings.Impl).
type Impl string

// Implementations of a loss.
const (
	// ImplAuto (the default) uses the fused kernel where one exists for the
	// variant and options, and the expression otherwise.
	ImplAuto Impl = "auto"
	// ImplExpression always builds the variant's Gorgonia expression,
	// differentiated by autodiff.
	ImplExpression Impl = "expression"
	// ImplFused always uses the fused kernel; it is an error for a variant
	// or option (learn_temperature) that has none.
	ImplFused Impl = "fused"
)

// Form, sampler, correction-placement and reduction names.
const (
	FormSoftmax   = "softmax"
	FormDecoupled = "decoupled"

	SamplerInBatch = "in_batch"
	SamplerUniform = "uniform"
	SamplerMixed   = "mixed"

	CorrectLogits = "logits"
	CorrectScores = "scores"

	ReduceMean = "mean"
	ReduceSum  = "sum"
)

// Defaults filled in by Resolve.
const (
	DefaultTemperature   = 0.05
	DefaultNegatives     = 64
	DefaultLATau         = 1.0
	DefaultGramianWeight = 1.0
)

// LogQProbability is the probability Q whose log the logq, nce and sampled_logistic
// variants subtract from a column's logit (Settings.LogQProbability). Under
// in-batch sampling a popular item can fill several columns of one step
// (B·q > 1), and the three choices then differ.
type LogQProbability string

const (
	// ProbExpectedCount (the default): Q_j = m·q_j, the expected number of copies of
	// column j's item among a row's m = C−1 negative draws (Step.LogQ): (B−1)·q̂ in-batch,
	// m/M uniform, (B−1)·q̂ + m/M mixed. Each copy then counts once in
	// expectation, Σ_{j∈N} e^{f_j}/(m·q_j) is an unbiased estimate of the
	// partition function, and the loss and its gradient are consistent estimates of
	// the full softmax's (up to the constant log(m·q_p) of the loss). In the softmax it
	// equals the relative weighting of Rawat et al. (the constant log m cancels).
	// The default, from TestLogQConsistency (in-batch, head B·q up to 64): its
	// mean gradient error against the full softmax fell from 0.031 at B = 16 to
	// 0.0023 at B = 256, where inclusion's rose from 0.035 to 0.081. dedupe is
	// consistent too (0.028 → 0.0007) but needs the estimator's p̂ and drops
	// columns; expected_count keeps every column, is the sampled-softmax
	// correction of the candidate-sampling table, and its q is known exactly
	// from the training counts (q_source).
	ProbExpectedCount LogQProbability = "expected_count"
	// ProbInclusion: Q_j = p̂_j = P(item j is in the step) (Step.LogP), Yi et al.'s
	// Algorithm 2 as written. p̂ saturates at 1, so an item filling k columns is
	// corrected as if it filled one: not a consistent estimate of the full softmax
	// once B·q > 1 for some item (its k copies weigh k times too much).
	ProbInclusion LogQProbability = "inclusion"
	// ProbDedupe: one column per distinct item, the other copies masked from every
	// row (the row's own positive column always stays; the copies of the row's
	// positive item are masked as accidental hits), each kept column corrected
	// by its inclusion probability Q_j = p̂_j (Step.LogP): the Horvitz–Thompson
	// estimate Σ_{distinct y} e^{f_y}/p̂_y of the partition function, consistent.
	ProbDedupe LogQProbability = "dedupe"
)

// QSource says where the per-draw probability q of the in-batch and mixed
// samplers (Step.LogQ, read by importance, relative, tail, mse_gramian,
// logq_corrected and by logq_probability = expected_count) comes from (Settings.QSource). The
// trainer (models.Train) fills Step.LogQ accordingly.
type QSource string

const (
	// QSourceCounts (the default): q_j = count_j/N, the exact training frequency of
	// item j (N training interactions), which is known in every experiment here.
	QSourceCounts QSource = "counts"
	// QSourceEstimator: q̂_j = 1 − (1 − p̂_j)^{1/B}, inverted from the estimator's
	// batch-inclusion probability p̂ (DrawProb). Ill-conditioned as p̂ → 1; a
	// saturated p̂ = 1 is an error, not q = 1. Use it when the estimator is the
	// thing being studied.
	QSourceEstimator QSource = "estimator"
)

var (
	probabilityNames = []string{string(ProbExpectedCount), string(ProbInclusion), string(ProbDedupe)}
	qSourceNames     = []string{string(QSourceCounts), string(QSourceEstimator)}
	variantNames     = []string{Plain, LogQ, Constant, Importance, Relative, Tail, Full, LogitAdjusted,
		MSEGramian, NCE, NegativeSampling, SampledLogistic, LogQCorrected}
	implNames      = []string{string(ImplAuto), string(ImplExpression), string(ImplFused)}
	formNames      = []string{FormSoftmax, FormDecoupled}
	samplerNames   = []string{SamplerInBatch, SamplerUniform, SamplerMixed}
	correctNames   = []string{CorrectLogits, CorrectScores}
	reductionNames = []string{ReduceMean, ReduceSum}
)

// Settings is the [loss] section of a config. The zero value is the plain
// in-batch batch softmax (Yi et al. eq. 3) with temperature 0.05 and mean reduction.
//
// An option that a variant does not use must be left at its zero value: Resolve
// rejects it rather than ignore it silently.
type Settings struct {
	// Variant selects the loss (default "plain"): plain | logq | constant |
	// importance | relative | tail | full | logit_adjusted | mse_gramian | nce |
	// negative_sampling | sampled_logistic | logq_corrected, or the name of a
	// variant added with Register. See the package documentation for the
	// formula of each.
	Variant string `toml:"variant"`
	// Form is, for constant, importance, relative and tail only, "softmax"
	// (default: Rawat et al. eq. 5) or "decoupled" (eq. 6 with the logistic
	// margin loss).
	Form string `toml:"form"`
	// Sampler is how the negatives were drawn (default "in_batch"):
	// in_batch (the other positives of the batch, Layout Diagonal, C = B),
	// uniform (Negatives items drawn uniformly from the corpus and shared by
	// all rows, Layout First, C = 1+Negatives) or mixed (in-batch plus
	// Negatives uniform extras, Layout Diagonal, C = B+Negatives). Must be
	// empty for full and logit_adjusted, which score the whole corpus.
	Sampler string `toml:"sampler"`
	// Negatives is the number m of uniform negatives drawn per step for the
	// uniform and mixed samplers (default 64); it must be 0 for in_batch.
	Negatives int `toml:"negatives"`
	// Temperature τ > 0 divides the scores: f = s/τ (default 0.05). Must be 0
	// for mse_gramian, which works on the raw scores.
	Temperature float64 `toml:"temperature"`
	// CorrectAt says where an additive logit correction c (−log Q for logq,
	// nce and sampled_logistic; log w for the Rawat weightings in softmax form;
	// la_tau·log π for logit_adjusted; −log Q' for logq_corrected; Expr.Correct
	// for a registered variant with Correction) is applied: "logits" (default)
	// gives s/τ + c, "scores" gives (s + c)/τ, i.e. τ divides the correction
	// too. Must be empty for variants without a correction.
	CorrectAt string `toml:"correct_at"`
	// UncorrectedPositive leaves the positive's own logit uncorrected (a
	// zeroed diagonal correction, docs/logq.md §4). Default false: every column,
	// the positive included, is corrected (Yi et al. eq. 4). Only for logq,
	// nce and sampled_logistic: Rawat's weightings never correct the positive
	// (the relative weighting is the positive-corrected importance weighting,
	// Remark 4).
	UncorrectedPositive bool `toml:"uncorrected_positive"`
	// RemoveAccidentalHits masks out of each row the columns, other than the
	// row's positive, whose item equals the row's positive item (default
	// false: such columns are ordinary negatives). Always on for
	// sampled_logistic, logq_corrected and logq_probability = dedupe
	// (Resolve sets it: it is part of their definitions).
	// Not for full, logit_adjusted and mse_gramian.
	RemoveAccidentalHits bool `toml:"remove_accidental_hits"`
	// LATau is τ_la of logit_adjusted, logits f_j + τ_la·log π_j (default 1).
	// Only for logit_adjusted.
	LATau float64 `toml:"la_tau"`
	// GramianWeight is λ of mse_gramian (default 1). Only for mse_gramian.
	GramianWeight float64 `toml:"gramian_weight"`
	// LogQProbability is, for logq, nce and sampled_logistic only, which
	// probability Q their −log Q correction uses: "expected_count" (default),
	// "inclusion" or "dedupe"; see the constants ProbExpectedCount,
	// ProbInclusion and ProbDedupe for what each column's correction means.
	LogQProbability LogQProbability `toml:"logq_probability"`
	// QSource is where the per-draw q of the in_batch and mixed samplers comes
	// from: "counts" (default, the exact training frequency) or "estimator"
	// (inverted from p̂). Only for the variants that read q (importance,
	// relative, tail, mse_gramian, logq_corrected; logq, nce and
	// sampled_logistic with logq_probability = expected_count) with sampler in_batch or mixed: the
	// uniform sampler's q = 1/M is exact.
	QSource QSource `toml:"q_source"`
	// Reduction over the rows of the batch: "mean" (default, (1/B)·Σ_i) or
	// "sum" (Σ_i, B times the mean).
	Reduction string `toml:"reduction"`
	// Impl is "auto" (default: the fused kernel where the variant and options
	// have one, else the expression), "expression" or "fused" (an error where
	// there is no fused kernel). Both compute the same loss (tested).
	Impl Impl `toml:"impl"`
	// LearnTemperature makes τ a learnable scalar, log-parameterised
	// (Inputs.LogTemperature), with Temperature its initial value (default
	// false). The loss is then always the expression: impl auto means
	// expression and impl fused is an error. Not for mse_gramian.
	LearnTemperature bool `toml:"learn_temperature"`
	// Options are the options of a variant added with Register, the
	// [loss.options] table, decoded strictly into the variant's options
	// struct: a key it does not declare is an error. Must be empty for the
	// built-in variants, whose options are the fields above.
	Options map[string]any `toml:"options,omitempty"`
}

// isRawat reports whether v is one of Rawat et al.'s Table 1 weightings.
func isRawat(v string) bool {
	return v == Constant || v == Importance || v == Relative || v == Tail
}

// isCorpus reports whether v scores the whole corpus (no sampler).
func isCorpus(v string) bool { return v == Full || v == LogitAdjusted }

// isBuiltin reports whether v is one of the package's own variants.
func isBuiltin(v string) bool {
	for _, n := range variantNames {
		if v == n {
			return true
		}
	}
	return false
}

// hasFused reports whether the resolved settings have a fused kernel: every
// built-in variant but logq_corrected, without learn_temperature.
func (s *Settings) hasFused() bool {
	return isBuiltin(s.Variant) && s.Variant != LogQCorrected && !s.LearnTemperature
}

// hasCorrection reports whether the resolved settings apply an additive logit correction.
func (s *Settings) hasCorrection() bool {
	switch s.Variant {
	case LogQ, NCE, SampledLogistic, LogitAdjusted, LogQCorrected:
		return true
	}
	if v, ok := registered(s.Variant); ok {
		return v.Correction
	}
	return isRawat(s.Variant) && s.Form != FormDecoupled
}

func oneOf(key, v string, allowed []string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("%s: unknown %q (allowed: %s)", key, v, strings.Join(allowed, ", "))
}

func finitePositive(key string, v float64) error {
	if !(v > 0) || math.IsInf(v, 1) {
		return fmt.Errorf("%s: must be finite and > 0, got %v", key, v)
	}
	return nil
}

// onlyFor resolves a positive numeric option *x of variant owner: filled with
// def when zero, validated, and required to be zero for any other variant v.
func onlyFor(key string, x *float64, def float64, v, owner string) error {
	if v != owner {
		if *x != 0 {
			return fmt.Errorf("%s: only for %s, not variant %s; leave it 0", key, owner, v)
		}
		return nil
	}
	if *x == 0 {
		*x = def
	}
	return finitePositive(key, *x)
}

// Resolve fills the zero fields with their documented defaults in place and
// validates the settings. Errors start with the TOML key, e.g.
// `variant: unknown "lgoq" (allowed: plain, logq, ...)`.
func (s *Settings) Resolve() error {
	if s.Variant == "" {
		s.Variant = Plain
	}
	if err := oneOf("variant", s.Variant, Variants()); err != nil {
		return err
	}
	v := s.Variant

	// form
	if isRawat(v) {
		if s.Form == "" {
			s.Form = FormSoftmax
		}
		if err := oneOf("form", s.Form, formNames); err != nil {
			return err
		}
	} else if s.Form != "" {
		return fmt.Errorf("form: only for constant, importance, relative and tail, not variant %s; leave it empty", v)
	}

	// sampler and negatives
	if isCorpus(v) {
		if s.Sampler != "" {
			return fmt.Errorf("sampler: variant %s scores the whole corpus and uses no sampler; leave it empty", v)
		}
		if s.Negatives != 0 {
			return fmt.Errorf("negatives: variant %s scores the whole corpus and draws no negatives; leave it 0", v)
		}
	} else {
		if s.Sampler == "" {
			s.Sampler = SamplerInBatch
		}
		if err := oneOf("sampler", s.Sampler, samplerNames); err != nil {
			return err
		}
		if s.Sampler == SamplerInBatch {
			if s.Negatives != 0 {
				return fmt.Errorf("negatives: sampler in_batch uses the batch as negatives; leave it 0, got %d", s.Negatives)
			}
		} else {
			if s.Negatives == 0 {
				s.Negatives = DefaultNegatives
			}
			if s.Negatives < 0 {
				return fmt.Errorf("negatives: must be > 0, got %d", s.Negatives)
			}
		}
	}

	// temperature
	if v == MSEGramian {
		if s.Temperature != 0 {
			return fmt.Errorf("temperature: variant mse_gramian works on the raw scores; leave it 0, got %v", s.Temperature)
		}
		if s.LearnTemperature {
			return fmt.Errorf("learn_temperature: variant %s has no temperature; leave it false", v)
		}
	} else {
		if s.Temperature == 0 {
			s.Temperature = DefaultTemperature
		}
		if err := finitePositive("temperature", s.Temperature); err != nil {
			return err
		}
	}

	// correct_at
	if s.hasCorrection() {
		if s.CorrectAt == "" {
			s.CorrectAt = CorrectLogits
		}
		if err := oneOf("correct_at", s.CorrectAt, correctNames); err != nil {
			return err
		}
	} else if s.CorrectAt != "" {
		return fmt.Errorf("correct_at: variant %s (form %q) applies no logit correction; leave it empty", v, s.Form)
	}

	// uncorrected_positive
	if s.UncorrectedPositive && v != LogQ && v != NCE && v != SampledLogistic {
		return fmt.Errorf("uncorrected_positive: only for logq, nce and sampled_logistic, not variant %s", v)
	}

	// remove_accidental_hits
	if v == SampledLogistic || v == LogQCorrected || (s.subtractsLogQ() && s.LogQProbability == ProbDedupe) {
		s.RemoveAccidentalHits = true
	}
	if s.RemoveAccidentalHits && (isCorpus(v) || v == MSEGramian) {
		return fmt.Errorf("remove_accidental_hits: variant %s has no sampled negatives to mask", v)
	}

	if err := onlyFor("la_tau", &s.LATau, DefaultLATau, v, LogitAdjusted); err != nil {
		return err
	}
	if err := onlyFor("gramian_weight", &s.GramianWeight, DefaultGramianWeight, v, MSEGramian); err != nil {
		return err
	}

	if err := s.resolveProbabilities(); err != nil {
		return err
	}

	// reduction
	if s.Reduction == "" {
		s.Reduction = ReduceMean
	}
	if err := oneOf("reduction", s.Reduction, reductionNames); err != nil {
		return err
	}

	if s.LearnTemperature && v == MSEGramian {
		return errors.New("learn_temperature: variant mse_gramian works on the raw scores and has no temperature")
	}
	if s.Impl == "" {
		s.Impl = ImplAuto
	}
	if err := oneOf("impl", string(s.Impl), implNames); err != nil {
		return err
	}
	if s.Impl == ImplFused && !s.hasFused() {
		if s.LearnTemperature {
			return errors.New("impl: fused has no learned temperature; use auto or expression with learn_temperature")
		}
		return fmt.Errorf("impl: variant %s has no fused kernel; use auto or expression", v)
	}
	_, err := s.decodeOptions()
	return err
}

// subtractsLogQ reports whether the variant subtracts a log Q whose meaning
// logq_probability chooses (logq, nce, sampled_logistic).
func (s *Settings) subtractsLogQ() bool {
	return s.Variant == LogQ || s.Variant == NCE || s.Variant == SampledLogistic
}

// readsQ reports whether the resolved settings read the per-draw q (Step.LogQ).
func (s *Settings) readsQ() bool {
	return s.Variant == Importance || s.Variant == Relative || s.Variant == Tail || s.Variant == MSEGramian ||
		s.Variant == LogQCorrected ||
		(s.subtractsLogQ() && s.LogQProbability == ProbExpectedCount)
}

// resolveProbabilities fills and checks logq_probability and q_source.
func (s *Settings) resolveProbabilities() error {
	if s.subtractsLogQ() {
		if s.LogQProbability == "" {
			s.LogQProbability = ProbExpectedCount
		}
		if err := oneOf("logq_probability", string(s.LogQProbability), probabilityNames); err != nil {
			return err
		}
	} else if s.LogQProbability != "" {
		return fmt.Errorf("logq_probability: only for logq, nce and sampled_logistic, not variant %s; leave it empty", s.Variant)
	}
	if s.readsQ() && (s.Sampler == SamplerInBatch || s.Sampler == SamplerMixed) {
		if s.QSource == "" {
			s.QSource = QSourceCounts
		}
		return oneOf("q_source", string(s.QSource), qSourceNames)
	}
	if s.QSource != "" {
		return fmt.Errorf("q_source: variant %s (sampler %q, logq_probability %q) reads no data frequency q; leave it empty",
			s.Variant, s.Sampler, s.LogQProbability)
	}
	return nil
}
