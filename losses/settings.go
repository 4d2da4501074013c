package losses

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/setting"
)

// Variant is the name of a loss, Settings.Variant: one of the Variant constants or the name of
// a variant added with Register.
type Variant string

// Built-in variants, in their documented order (the package documentation gives each formula).
const (
	VariantPlain            Variant = "plain"
	VariantLogQ             Variant = "logq"
	VariantConstant         Variant = "constant"
	VariantImportance       Variant = "importance"
	VariantRelative         Variant = "relative"
	VariantTail             Variant = "tail"
	VariantFull             Variant = "full"
	VariantLogitAdjusted    Variant = "logit_adjusted"
	VariantMSEGramian       Variant = "mse_gramian"
	VariantNCE              Variant = "nce"
	VariantNegativeSampling Variant = "negative_sampling"
	VariantSampledLogistic  Variant = "sampled_logistic"
	VariantLogQCorrected    Variant = "logq_corrected"
	// The variants below are expressions with options of their own ([loss.options]; see
	// builtinCustom and docs/losses.md).
	VariantGBCE                Variant = "gbce"
	VariantPSL                 Variant = "psl"
	VariantDebiasedContrastive Variant = "debiased_contrastive"
	// The variants below count each row's other known positives as positives (multipos.go).
	VariantLogIn  Variant = "login"
	VariantLogOut Variant = "logout"
)

// UnmarshalText sets v from its name, a built-in or a registered variant's; an unknown name is
// an error that lists the allowed ones.
func (v *Variant) UnmarshalText(b []byte) error { return setting.Unmarshal(v, b, Variants()) }

// Family is a set of loss variants whose values share a scale, so that their training-loss
// curves can be drawn on one axis (see Settings.Family).
type Family string

// Families of the built-in variants.
const (
	// FamilySoftmax: the cross-entropy of a softmax over the row's candidates, ℓ_i = −log of the
	// positive's (corrected, weighted) share: plain, logq, logq_corrected, full, logit_adjusted,
	// Rawat et al.'s weightings in their softmax form (eq. 5), psl, debiased_contrastive, login
	// and logout.
	FamilySoftmax Family = "softmax"
	// FamilyLogistic: sums of binary cross-entropies, one for the positive and one per negative:
	// nce, negative_sampling, sampled_logistic, gbce, and Rawat et al.'s weightings in their
	// decoupled form (eq. 6).
	FamilyLogistic Family = "logistic"
	// FamilyRegression: mse_gramian's squared error plus its Gramian penalty.
	FamilyRegression Family = "regression"
)

// Family returns the family of s's variant (see the Family constants); a registered variant's
// is its Custom.Family, or its own name if it declares none. s need not be resolved: an empty
// Variant is DefaultVariant's family.
func (s Settings) Family() Family {
	switch s.Variant {
	case "", VariantPlain, VariantLogQ, VariantLogQCorrected, VariantFull, VariantLogitAdjusted, VariantLogIn, VariantLogOut:
		return FamilySoftmax
	case VariantConstant, VariantImportance, VariantRelative, VariantTail:
		if s.Form == FormDecoupled {
			return FamilyLogistic
		}
		return FamilySoftmax
	case VariantNCE, VariantNegativeSampling, VariantSampledLogistic:
		return FamilyLogistic
	case VariantMSEGramian:
		return FamilyRegression
	}
	if c, ok := registered(s.Variant); ok && c.Family != "" {
		return c.Family
	}
	return Family(s.Variant)
}

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

// UnmarshalText sets i from its name; an unknown name is an error that lists the allowed ones.
func (i *Impl) UnmarshalText(b []byte) error { return setting.Unmarshal(i, b, implNames) }

// Form is the form of Rawat et al.'s weightings, Settings.Form.
type Form string

// Forms.
const (
	FormSoftmax   Form = "softmax"   // Rawat et al. eq. 5
	FormDecoupled Form = "decoupled" // Rawat et al. eq. 6, the logistic margin loss
)

// UnmarshalText sets f from its name; an unknown name is an error that lists the allowed ones.
func (f *Form) UnmarshalText(b []byte) error { return setting.Unmarshal(f, b, forms) }

// CorrectAt is where an additive logit correction is applied, Settings.CorrectAt.
type CorrectAt string

// Correction placements.
const (
	CorrectAtLogits CorrectAt = "logits" // s/τ + c
	CorrectAtScores CorrectAt = "scores" // (s + c)/τ
)

// UnmarshalText sets c from its name; an unknown name is an error that lists the allowed ones.
func (c *CorrectAt) UnmarshalText(b []byte) error { return setting.Unmarshal(c, b, correctAts) }

// Reduction is how the rows' losses are reduced, Settings.Reduction.
type Reduction string

// Reductions.
const (
	ReductionMean Reduction = "mean" // (1/B)·Σ_i
	ReductionSum  Reduction = "sum"  // Σ_i
)

// UnmarshalText sets r from its name; an unknown name is an error that lists the allowed ones.
func (r *Reduction) UnmarshalText(b []byte) error { return setting.Unmarshal(r, b, reductions) }

// Defaults filled in by Resolve.
const (
	DefaultVariant         = VariantPlain
	DefaultForm            = FormSoftmax
	DefaultTemperature     = 0.05
	DefaultCorrectAt       = CorrectAtLogits
	DefaultLATau           = 1.0
	DefaultGramianWeight   = 1.0
	DefaultLogQProbability = LogQProbabilityExpectedCount
	DefaultQSource         = QSourceCounts
	DefaultReduction       = ReductionMean
	DefaultImpl            = ImplAuto
)

// LogQProbability is the probability Q whose log the logq, nce and sampled_logistic
// variants subtract from a column's logit (Settings.LogQProbability). Under
// in-batch sampling a popular item can fill several columns of one step
// (B·q > 1), and the three choices then differ.
type LogQProbability string

const (
	// LogQProbabilityExpectedCount (the default): Q_j = m·q_j, the expected number of copies of
	// column j's item among a row's m = C−1 negative draws (side input log_q): (B−1)·q̂ in-batch,
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
	LogQProbabilityExpectedCount LogQProbability = "expected_count"
	// LogQProbabilityInclusion: Q_j = p̂_j = P(item j is in the step) (side input log_p), Yi et al.'s
	// Algorithm 2 as written. p̂ saturates at 1, so an item filling k columns is
	// corrected as if it filled one: not a consistent estimate of the full softmax
	// once B·q > 1 for some item (its k copies weigh k times too much).
	LogQProbabilityInclusion LogQProbability = "inclusion"
	// LogQProbabilityDedupe: one column per distinct item, the other copies masked from every
	// row (the row's own positive column always stays; the copies of the row's
	// positive item are masked as accidental hits), each kept column corrected
	// by its inclusion probability Q_j = p̂_j (side input log_p): the Horvitz–Thompson
	// estimate Σ_{distinct y} e^{f_y}/p̂_y of the partition function, consistent.
	LogQProbabilityDedupe LogQProbability = "dedupe"
)

// QSource says where the per-draw probability q of the in-batch and mixed
// samplers (side input log_q, read by importance, relative, tail, mse_gramian,
// logq_corrected and by logq_probability = expected_count) comes from (Settings.QSource). The
// trainer (models.Train) fills log_q accordingly.
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

// The names of each enum, in their documented order: the one list of its values, which
// Resolve and UnmarshalText check against.
var (
	variantNames = []Variant{VariantPlain, VariantLogQ, VariantConstant, VariantImportance, VariantRelative,
		VariantTail, VariantFull, VariantLogitAdjusted, VariantMSEGramian, VariantNCE, VariantNegativeSampling,
		VariantSampledLogistic, VariantLogQCorrected, VariantGBCE, VariantPSL, VariantDebiasedContrastive,
		VariantLogIn, VariantLogOut}
	implNames     = []Impl{ImplAuto, ImplExpression, ImplFused}
	forms         = []Form{FormSoftmax, FormDecoupled}
	correctAts    = []CorrectAt{CorrectAtLogits, CorrectAtScores}
	reductions    = []Reduction{ReductionMean, ReductionSum}
	probabilities = []LogQProbability{LogQProbabilityExpectedCount, LogQProbabilityInclusion, LogQProbabilityDedupe}
	qSources      = []QSource{QSourceCounts, QSourceEstimator}
)

// UnmarshalText sets p from its name; an unknown name is an error that lists the allowed ones.
func (p *LogQProbability) UnmarshalText(b []byte) error {
	return setting.Unmarshal(p, b, probabilities)
}

// UnmarshalText sets q from its name; an unknown name is an error that lists the allowed ones.
func (q *QSource) UnmarshalText(b []byte) error { return setting.Unmarshal(q, b, qSources) }

// Settings is the [loss] section of a config. The zero value is the plain
// in-batch batch softmax (Yi et al. eq. 3) with temperature
// DefaultTemperature and mean reduction. Each field's default is the
// constant its comment names, the one place the value is written.
//
// An option that a variant does not use must be left at its zero value: Resolve
// rejects it rather than ignore it silently.
type Settings struct {
	// Variant selects the loss (default DefaultVariant): one of the Variant
	// constants, or the name of a variant added with Register. See the package
	// documentation for the formula of each.
	Variant Variant `toml:"variant"`
	// Form is, for constant, importance, relative and tail only, FormSoftmax
	// (Rawat et al. eq. 5) or FormDecoupled (eq. 6 with the logistic margin
	// loss); default DefaultForm.
	Form Form `toml:"form"`
	// Temperature τ > 0 divides the scores: f = s/τ (default
	// DefaultTemperature). Must be 0 for mse_gramian, which works on the raw
	// scores.
	Temperature float64 `toml:"temperature"`
	// CorrectAt says where an additive logit correction c (−log Q for logq,
	// nce and sampled_logistic; log w for the Rawat weightings in softmax form;
	// la_tau·log π for logit_adjusted; −log Q' for logq_corrected; Expr.Correct
	// for a registered variant with Correction) is applied: CorrectAtLogits
	// gives s/τ + c, CorrectAtScores gives (s + c)/τ, i.e. τ divides the
	// correction too; default DefaultCorrectAt. Must be empty for variants
	// without a correction.
	CorrectAt CorrectAt `toml:"correct_at"`
	// UncorrectedPositive leaves the positive's own logit uncorrected (a
	// zeroed diagonal correction, docs/logq.md §4). Default false: every column,
	// the positive included, is corrected (Yi et al. eq. 4). Only for logq,
	// nce and sampled_logistic, and login and logout with logq_probability:
	// Rawat's weightings never correct the positive (the relative weighting is
	// the positive-corrected importance weighting, Remark 4).
	UncorrectedPositive bool `toml:"uncorrected_positive"`
	// RemoveAccidentalHits masks out of each row the columns, other than the
	// row's positive, whose item equals the row's positive item (default
	// false: such columns are ordinary negatives). Always on for
	// sampled_logistic, logq_corrected and logq_probability = dedupe
	// (Resolve sets it: it is part of their definitions).
	// Not for full, logit_adjusted and mse_gramian.
	RemoveAccidentalHits bool `toml:"remove_accidental_hits"`
	// LATau is τ_la of logit_adjusted, logits f_j + τ_la·log π_j (default
	// DefaultLATau). Only for logit_adjusted.
	LATau float64 `toml:"la_tau"`
	// GramianWeight is λ of mse_gramian (default DefaultGramianWeight). Only
	// for mse_gramian.
	GramianWeight float64 `toml:"gramian_weight"`
	// LogQProbability is, for logq, nce and sampled_logistic only, which
	// probability Q their −log Q correction uses: one of the LogQProbability
	// constants, which say what each column's correction means; default
	// DefaultLogQProbability. For login and logout it is optional: written, they
	// subtract that log Q as logq does; left empty, they subtract none.
	LogQProbability LogQProbability `toml:"logq_probability"`
	// QSource is where the per-draw q of the samplers whose columns are the batch's positives
	// (in_batch, mixed, memory: layout diagonal) comes from: QSourceCounts (the exact training
	// frequency) or QSourceEstimator (inverted from p̂); default DefaultQSource. Only for the
	// variants that read q (importance, relative, tail, mse_gramian, logq_corrected; logq, nce,
	// sampled_logistic, login and logout with logq_probability = expected_count) with such a
	// sampler: a drawing sampler's q is its own law's.
	QSource QSource `toml:"q_source"`
	// Reduction over the rows of the batch: ReductionMean ((1/B)·Σ_i) or
	// ReductionSum (Σ_i, B times the mean); default DefaultReduction.
	Reduction Reduction `toml:"reduction"`
	// Impl is one of the Impl constants; default DefaultImpl. Both the fused
	// kernel and the expression compute the same loss (tested).
	Impl Impl `toml:"impl"`
	// LearnTemperature makes τ a learnable scalar, log-parameterised
	// (Inputs.LogTemperature), with Temperature its initial value (default
	// false). The loss is then always the expression: impl auto means
	// expression and impl fused is an error. Not for mse_gramian.
	LearnTemperature bool `toml:"learn_temperature"`
	// Options are the options of a variant added with Register, or of the
	// built-in gbce (t), psl (surrogate) and debiased_contrastive (tau_plus):
	// the [loss.options] table, decoded strictly into the variant's options
	// struct: a key it does not declare is an error. Must be empty for the
	// other built-in variants, whose options are the fields above. A table
	// [loss.options.<variant>] holds the options of that variant only, for a
	// grid over several variants (see resolveOptions), and is an error in a
	// grid with no run of that variant; resolved, Options are the run's
	// variant's options with their defaults.
	Options map[string]any `toml:"options,omitempty"`
}

// isRawat reports whether v is one of Rawat et al.'s Table 1 weightings.
func isRawat(v Variant) bool {
	return v == VariantConstant || v == VariantImportance || v == VariantRelative || v == VariantTail
}

// ScoresCorpus reports whether the variant scores the whole corpus: full and logit_adjusted,
// which need a sampler of layout corpus (sampler full), the variants that sampler serves with
// login and logout (SeveralPositives). It is the one place that says so.
func (v Variant) ScoresCorpus() bool { return v == VariantFull || v == VariantLogitAdjusted }

// SeveralPositives reports whether the variant counts each row's other known positives
// (candidates.Positives) as positives: login and logout, which need data whose queries have
// several training items, and serve any sampler, the whole corpus included.
func (v Variant) SeveralPositives() bool { return v == VariantLogIn || v == VariantLogOut }

// ReadsPositives reports whether the resolved settings read the side input candidates.Positives,
// which the data declares only for them: login and logout, and a registered variant whose Custom
// says Positives.
func (s Settings) ReadsPositives() bool {
	if s.Variant.SeveralPositives() {
		return true
	}
	c, ok := registry.Get(s.Variant)
	return ok && c.Positives
}

// isBuiltin reports whether v is one of the package's own variants.
func isBuiltin(v Variant) bool { return slices.Contains(variantNames, v) }

// hasFused reports whether the resolved settings have a fused kernel: every
// built-in variant but logq_corrected and those defined by an expression with
// options (builtinCustom), without learn_temperature.
func (s *Settings) hasFused() bool {
	_, custom := builtinCustom(s.Variant)
	return isBuiltin(s.Variant) && s.Variant != VariantLogQCorrected && !custom && !s.Variant.SeveralPositives() && !s.LearnTemperature
}

// autoExpression are the built-in variants whose impl auto builds the expression although they
// have a fused kernel (none: auto takes every fused kernel, as the whole jobs measured with the
// expressions took more than 3% longer: the main job 1.12×, configs/delicious.toml 1.06×; see
// docs/performance.md). Making the expression a variant's default is adding its line here.
var autoExpression = map[Variant]bool{}

// autoFused reports whether impl auto takes the fused kernel for the resolved settings.
func (s *Settings) autoFused() bool { return s.hasFused() && !autoExpression[s.Variant] }

// hasCorrection reports whether the resolved settings apply an additive logit correction.
func (s *Settings) hasCorrection() bool {
	switch s.Variant {
	case VariantLogQ, VariantNCE, VariantSampledLogistic, VariantLogitAdjusted, VariantLogQCorrected:
		return true
	}
	if v, ok := registered(s.Variant); ok {
		return v.Correction || v.LogQ
	}
	if s.Variant.SeveralPositives() {
		return s.subtractsLogQ()
	}
	return isRawat(s.Variant) && s.Form != FormDecoupled
}

// finitePositive requires v finite and > 0.
func finitePositive(key string, v float64) error {
	if !(v > 0) || math.IsInf(v, 1) {
		return fmt.Errorf("%s: must be finite and > 0, got %v", key, v)
	}
	return nil
}

// ownOption resolves a positive numeric option *x of variant owner: filled with
// def when it is owner's, and required to be zero for any other variant.
func (s *Settings) ownOption(key string, x *float64, def float64, owner Variant) error {
	if s.Variant == owner {
		setting.Default(x, def)
		return finitePositive(key, *x)
	}
	return setting.OnlyFor(key, *x != 0, false, "only for %s, not variant %s; leave it 0", owner, s.Variant)
}

// Resolve fills the zero fields with their documented defaults in place and
// validates the settings. Errors start with the TOML key, e.g.
// `variant: unknown "lgoq" (allowed: plain, logq, ...)`.
func (s *Settings) Resolve() error {
	setting.Default(&s.Variant, DefaultVariant)
	if err := setting.OneOf("variant", s.Variant, Variants()); err != nil {
		return err
	}
	v := s.Variant
	rawat, corpus := isRawat(v), v.ScoresCorpus()
	if rawat {
		setting.Default(&s.Form, DefaultForm)
	}
	if v != VariantMSEGramian {
		setting.Default(&s.Temperature, DefaultTemperature)
	}
	if err := setting.First(
		setting.EnumFor("form", s.Form, forms, rawat,
			"only for constant, importance, relative and tail, not variant %s; leave it empty", v),
		setting.OnlyFor("temperature", s.Temperature != 0, v != VariantMSEGramian,
			"variant mse_gramian works on the raw scores; leave it 0, got %v", s.Temperature),
		setting.OnlyFor("learn_temperature", s.LearnTemperature, v != VariantMSEGramian,
			"variant %s has no temperature; leave it false", v),
		s.checkTemperature(),
	); err != nil {
		return err
	}

	correction := s.hasCorrection()
	if correction {
		setting.Default(&s.CorrectAt, DefaultCorrectAt)
	}
	if v == VariantSampledLogistic || v == VariantLogQCorrected ||
		(s.subtractsLogQ() && s.LogQProbability == LogQProbabilityDedupe) {
		s.RemoveAccidentalHits = true
	}
	if err := setting.First(
		setting.EnumFor("correct_at", s.CorrectAt, correctAts, correction,
			"variant %s%s applies no logit correction; leave it empty", v, formOf(s.Form)),
		setting.OnlyFor("uncorrected_positive", s.UncorrectedPositive, s.subtractsLogQ(),
			"only for logq, nce and sampled_logistic, and login and logout with logq_probability, not variant %s", v),
		setting.OnlyFor("remove_accidental_hits", s.RemoveAccidentalHits, !corpus && v != VariantMSEGramian,
			"variant %s has no sampled negatives to mask", v),
		s.ownOption("la_tau", &s.LATau, DefaultLATau, VariantLogitAdjusted),
		s.ownOption("gramian_weight", &s.GramianWeight, DefaultGramianWeight, VariantMSEGramian),
		s.resolveProbabilities(),
	); err != nil {
		return err
	}

	setting.Default(&s.Reduction, DefaultReduction)
	setting.Default(&s.Impl, DefaultImpl)
	if err := setting.First(
		setting.OneOf("reduction", s.Reduction, reductions),
		setting.OneOf("impl", s.Impl, implNames),
		s.checkFused(),
	); err != nil {
		return err
	}
	return s.resolveOptions()
}

// checkTemperature requires a finite positive temperature where there is one.
func (s *Settings) checkTemperature() error {
	if s.Variant == VariantMSEGramian {
		return nil
	}
	return finitePositive("temperature", s.Temperature)
}

// checkFused rejects impl fused where there is no fused kernel.
func (s *Settings) checkFused() error {
	switch {
	case s.Impl != ImplFused || s.hasFused():
		return nil
	case s.LearnTemperature:
		return errors.New("impl: fused has no learned temperature; use auto or expression with learn_temperature")
	}
	return fmt.Errorf("impl: variant %s has no fused kernel; use auto or expression", s.Variant)
}

// formOf is " (form F)" for a written form F, else "": a clause of messages about a variant.
func formOf(f Form) string {
	if f == "" {
		return ""
	}
	return fmt.Sprintf(" (form %q)", f)
}

// subtractsLogQ reports whether the variant subtracts a log Q whose meaning
// logq_probability chooses: logq, nce, sampled_logistic, and login and logout when
// logq_probability is written (they subtract none without it).
func (s *Settings) subtractsLogQ() bool {
	if v, ok := registered(s.Variant); ok {
		return v.LogQ
	}
	return s.Variant == VariantLogQ || s.Variant == VariantNCE || s.Variant == VariantSampledLogistic ||
		(s.Variant.SeveralPositives() && s.LogQProbability != "")
}

// ReadsDeclared reports whether the resolved settings read the probabilities a sampler declares
// for its columns (side inputs log_q or log_p, see samplers.Declaration): every built-in variant
// but plain, constant, negative_sampling, full, logit_adjusted, gbce, psl and
// debiased_contrastive does; a registered variant may (its expression reads what it asks for),
// and counts as one that does.
func (s Settings) ReadsDeclared() bool {
	return !isBuiltin(s.Variant) || s.subtractsLogQ() || s.ReadsQ()
}

// ReadsInclusion reports whether the resolved settings read the inclusion probability p̂ that a
// sampler declares (side input log_p, from the estimator wherever the sampler's law takes the
// positives' p̂), or derive their q from it (q_source = "estimator"): logq, nce,
// sampled_logistic, login and logout with logq_probability inclusion or dedupe, q_source
// estimator, and a registered variant (its expression reads what it asks for).
func (s Settings) ReadsInclusion() bool {
	return !isBuiltin(s.Variant) || s.QSource == QSourceEstimator ||
		(s.subtractsLogQ() && s.LogQProbability != LogQProbabilityExpectedCount)
}

// ReadsQ reports whether the resolved settings read the per-draw q (side input log_q).
func (s Settings) ReadsQ() bool {
	return s.Variant == VariantImportance || s.Variant == VariantRelative || s.Variant == VariantTail ||
		s.Variant == VariantMSEGramian || s.Variant == VariantLogQCorrected ||
		(s.subtractsLogQ() && s.LogQProbability == LogQProbabilityExpectedCount)
}

// resolveProbabilities fills and checks logq_probability, and checks q_source against the
// variant (ResolveFor fills it, knowing the sampler).
func (s *Settings) resolveProbabilities() error {
	subtracts := s.subtractsLogQ()
	if subtracts {
		setting.Default(&s.LogQProbability, DefaultLogQProbability)
	}
	return setting.First(
		setting.EnumFor("logq_probability", s.LogQProbability, probabilities, subtracts,
			"only for logq, nce, sampled_logistic, login and logout, not variant %s; leave it empty (a registered variant reads it with Custom.LogQ)", s.Variant),
		setting.OnlyFor("q_source", s.QSource != "", s.ReadsQ(),
			"variant %s (logq_probability %q) reads no data frequency q; leave it empty", s.Variant, s.LogQProbability),
		setting.EnumFor("q_source", s.QSource, qSources, s.QSource != "", ""),
	)
}

// ResolveFor resolves s (Resolve) for the candidates of a sampler of geometry g: a variant that
// scores the whole corpus needs a sampler of layout corpus (full), and that sampler serves no
// other variant; q_source, where the variant reads q, is filled (DefaultQSource) for a sampler
// whose columns are the batch's positives (layout diagonal), whose q is the data's, and is an
// error for any other, whose q is its own law's; a built-in variant with options refuses the
// samplers its paper does not allow (gbce: uniform negatives only). Errors start with the key and
// name the sampler.
func (s *Settings) ResolveFor(g candidates.Geometry) error {
	if err := s.Resolve(); err != nil {
		return err
	}
	if err := g.Check(); err != nil {
		return err
	}
	v := s.Variant
	if corpus := g.Layout == candidates.Corpus; v.ScoresCorpus() != corpus && !v.SeveralPositives() {
		if corpus {
			return fmt.Errorf("variant: sampler %s scores the whole corpus, which only variants full, logit_adjusted, login and logout do, not %s", g.Sampler, v)
		}
		return fmt.Errorf("variant: %s scores the whole corpus, which needs sampler full, not %s", v, g.Sampler)
	}
	if g.QUndefined {
		if err := s.refuseUndefined(g); err != nil {
			return err
		}
	}
	readsQ := s.ReadsQ() && g.Layout == candidates.Diagonal
	if readsQ {
		setting.Default(&s.QSource, DefaultQSource)
	}
	if err := setting.OnlyFor("q_source", s.QSource != "", readsQ,
		"variant %s reads sampler %s's own q (layout %v), not the data's; leave it empty", v, g.Sampler, g.Layout); err != nil {
		return err
	}
	if b, ok := builtinCustom(v); ok && b.check != nil {
		return b.check(s, g)
	}
	return nil
}
