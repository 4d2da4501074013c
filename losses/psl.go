package losses

import (
	"fmt"
	"strings"

	G "gorgonia.org/gorgonia"

	"github.com/samplingbias/workbench/internal/setting"
)

// Surrogate is the surrogate activation σ of psl, which stands for the exponential of the
// softmax (PSLOptions.Surrogate). Each is 1 at d = 0 and lies between the Heaviside step and e^d
// on d ∈ [−1, 1], the differences of cosine scores that Yang et al. consider.
type Surrogate string

// Surrogate activations of Yang et al.
const (
	SurrogateTanh Surrogate = "tanh" // σ(d) = tanh(d) + 1
	SurrogateAtan Surrogate = "atan" // σ(d) = arctan(d) + 1, taken as 0 below d = −tan 1
	SurrogateReLU Surrogate = "relu" // σ(d) = max(d + 1, 0)
)

// surrogates are the Surrogate values, in their documented order.
var surrogates = []Surrogate{SurrogateTanh, SurrogateAtan, SurrogateReLU}

// UnmarshalText sets s from its name; an unknown name is an error that lists the allowed ones.
func (s *Surrogate) UnmarshalText(b []byte) error { return setting.Unmarshal(s, b, surrogates) }

// fn is the elemFn of σ.
func (s Surrogate) fn() elemFn {
	switch s {
	case SurrogateAtan:
		return elemAtan1
	case SurrogateReLU:
		return elemReLU1
	}
	return elemTanh1
}

// PSLOptions are the options of psl, [loss.options] (or [loss.options.psl]). Its τ is the loss's
// temperature (loss.temperature, or learned with learn_temperature).
type PSLOptions struct {
	// Surrogate is the activation σ, one of the Surrogate constants; required (the paper
	// compares the three and recommends none over the others).
	Surrogate Surrogate `toml:"surrogate"`
}

// Resolve requires a surrogate.
func (o *PSLOptions) Resolve() error {
	if o.Surrogate == "" {
		return fmt.Errorf("surrogate: required for variant psl (one of %s)", strings.Join(setting.Names(surrogates), ", "))
	}
	return setting.OneOf("surrogate", o.Surrogate, surrogates)
}

// pslExpr is the pairwise softmax loss of Yang et al., "PSL: Rethinking and Improving Softmax
// Loss from Pairwise Perspective for Recommendation" (NeurIPS 2024, §3): the softmax loss written
// over the score differences d_ij = s_ij − s_ip, ℓ_i = log Σ_{j∈{p}∪N_i} e^{d_ij/τ}, with the
// exponential replaced by a surrogate activation σ,
//
//	ℓ_i = log Σ_{j∈{p}∪N_i} σ(d_ij)^{1/τ},
//
// on the raw scores s (τ is the temperature; the positive's own term is σ(0)^{1/τ} = 1, as the
// softmax's is). Where σ(d) would be negative (atan below d = −tan 1 ≈ −1.557, reachable with
// cosine scores, d ∈ [−2, 2]) it is 0, as relu's is below d = −1: the value of the step σ bounds
// from above there, and the limit of σ(d)^{1/τ} as σ(d) → 0. LogSumPow takes the powers by
// repeated squaring when 1/τ is an integer (τ = 0.05, 0.1, 0.2, 0.5, …), without a logarithm
// per entry; PairwiseSurrogate forms σ(d_ij) from the scores in one pass.
func pslExpr(e *Expr) (*G.Node, error) {
	sigma := e.PairwiseSurrogate(e.Options.(*PSLOptions).Surrogate)
	return e.Reduce(LogSumPow(sigma, e.Cand(), e.invTemperature())), nil
}
