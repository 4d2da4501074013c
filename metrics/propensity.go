package metrics

import (
	"math"

	"github.com/samplingbias/workbench/internal/setting"
)

// Defaults of PropensitySettings: Jain et al.'s values for data sets other than their
// Wikipedia-LSHTC (A = 0.5, B = 0.4) and Amazon (A = 0.6, B = 2.6) ones.
const (
	DefaultPropensityA = 0.55
	DefaultPropensityB = 1.5
)

// PropensitySettings is the [eval.propensity] table: the parameters of the propensity model of
// Jain, Prabhu & Varma ("Extreme Multi-label Loss Functions for Recommendation, Tagging, Ranking
// & Other Missing Label Applications", KDD 2016, §3): a label with N_l positives among the N
// training examples is observed with probability p_l = 1/(1 + C·e^(−A·ln(N_l + B))), where
// C = (ln N − 1)·(B + 1)^A. PSP@K and PSRecall@K weigh each hit by 1/p_l.
type PropensitySettings struct {
	// A is the model's exponent, > 0 (default DefaultPropensityA; Jain et al. use 0.5 on
	// Wikipedia-LSHTC and 0.6 on Amazon).
	A float64 `toml:"a"`
	// B is the model's offset, > 0 (default DefaultPropensityB; Jain et al. use 0.4 on
	// Wikipedia-LSHTC and 2.6 on Amazon).
	B float64 `toml:"b"`
}

// Resolve fills the defaults in place and validates the settings.
func (s *PropensitySettings) Resolve() error {
	setting.Default(&s.A, DefaultPropensityA)
	setting.Default(&s.B, DefaultPropensityB)
	return setting.First(
		setting.Positive("a", s.A),
		setting.Positive("b", s.B),
	)
}

// Propensities returns Jain et al.'s propensity p_l of every label l (see PropensitySettings)
// given its training positives counts[l] and the number n of training examples. The settings
// are resolved on a copy, so the zero value gives Jain et al.'s default model; invalid settings
// are programming errors and panic (the experiments command resolves them when it loads its
// configuration). A label with no training positive has the smallest propensity,
// 1/(1 + C·B^(−A)). With n ≤ e examples C would not be positive: it is taken as 0, every
// propensity 1 (the model is meant for large training sets).
func Propensities(counts []int64, n int, s PropensitySettings) []float64 {
	if err := s.Resolve(); err != nil {
		panic("metrics: Propensities: " + err.Error())
	}
	c := max(0, (math.Log(float64(n))-1)*math.Pow(s.B+1, s.A))
	out := make([]float64, len(counts))
	for l, nl := range counts {
		out[l] = 1 / (1 + c*math.Exp(-s.A*math.Log(float64(nl)+s.B)))
	}
	return out
}
