package losses

import (
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

var (
	variantNames = []string{Plain, LogQ, Constant, Importance, Relative, Tail, Full, LogitAdjusted,
		MSEGramian, NCE, NegativeSampling, SampledLogistic}
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
	// negative_sampling | sampled_logistic. See the package documentation for
	// the formula of each.
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
	// LearnTemperature makes τ a learnable scalar of the model, parameterised
	// as log τ, initialised at Temperature and trained with the towers
	// (package models). Not for mse_gramian.
	LearnTemperature bool `toml:"learn_temperature"`
	// CorrectAt says where an additive logit correction c (−log p̂ for logq,
	// nce and sampled_logistic; log w for the Rawat weightings in softmax form;
	// la_tau·log π for logit_adjusted) is applied: "logits" (default) gives
	// s/τ + c, "scores" gives (s + c)/τ, i.e. τ divides the correction too.
	// Must be empty for variants without a correction.
	CorrectAt string `toml:"correct_at"`
	// UncorrectedPositive leaves the positive's own logit uncorrected (the
	// blog's zeroed diagonal correction). Default false: every column,
	// the positive included, is corrected (Yi et al. eq. 4). Only for logq,
	// nce and sampled_logistic: Rawat's weightings never correct the positive
	// (the relative weighting is the positive-corrected importance weighting,
	// Remark 4).
	UncorrectedPositive bool `toml:"uncorrected_positive"`
	// RemoveAccidentalHits masks out of each row the columns, other than the
	// row's positive, whose item equals the row's positive item (default
	// false: such columns are ordinary negatives). Always on for
	// sampled_logistic (Resolve sets it: it is that variant's definition).
	// Not for full, logit_adjusted and mse_gramian.
	RemoveAccidentalHits bool `toml:"remove_accidental_hits"`
	// LATau is τ_la of logit_adjusted, logits f_j + τ_la·log π_j (default 1).
	// Only for logit_adjusted.
	LATau float64 `toml:"la_tau"`
	// GramianWeight is λ of mse_gramian (default 1). Only for mse_gramian.
	GramianWeight float64 `toml:"gramian_weight"`
	// Reduction over the rows of the batch: "mean" (default, (1/B)·Σ_i) or
	// "sum" (Σ_i, B times the mean).
	Reduction string `toml:"reduction"`
}

// isRawat reports whether v is one of Rawat et al.'s Table 1 weightings.
func isRawat(v string) bool {
	return v == Constant || v == Importance || v == Relative || v == Tail
}

// isCorpus reports whether v scores the whole corpus (no sampler).
func isCorpus(v string) bool { return v == Full || v == LogitAdjusted }

// hasCorrection reports whether the resolved settings apply an additive logit correction.
func (s *Settings) hasCorrection() bool {
	switch s.Variant {
	case LogQ, NCE, SampledLogistic, LogitAdjusted:
		return true
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
	if err := oneOf("variant", s.Variant, variantNames); err != nil {
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
	if v == SampledLogistic {
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

	// reduction
	if s.Reduction == "" {
		s.Reduction = ReduceMean
	}
	return oneOf("reduction", s.Reduction, reductionNames)
}
