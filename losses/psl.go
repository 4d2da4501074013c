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

// logFn is the elemFn of log σ.
func (s Surrogate) logFn() elemFn {
	switch s {
	case SurrogateAtan:
		return elemLogAtan1
	case SurrogateReLU:
		return elemLogReLU1
	}
	return elemLogTanh1
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
//	ℓ_i = log Σ_{j∈{p}∪N_i} σ(d_ij)^{1/τ} = log Σ_{j∈{p}∪N_i} e^{log σ(d_ij)/τ},
//
// on the raw scores s (τ is the temperature; the positive's own term is σ(0)^{1/τ} = 1, as the
// softmax's is). Where σ(d) ≤ 0 (relu below d = −1, atan below −tan 1 ≈ −1.557, reachable with
// cosine scores, d ∈ [−2, 2]) the term is 0: the value of the step σ bounds from above there, and
// the limit of σ(d)^{1/τ} as σ(d) → 0.
func pslExpr(e *Expr) (*G.Node, error) {
	d := SubRows(e.Scores, e.AtPos(e.Scores))
	x := logSurrogate(e, d, e.Options.(*PSLOptions).Surrogate)
	return e.Reduce(LogSumExp(e.AtPos(x), AddEach(x, e.NegLog()))), nil
}

// logSurrogate is log σ(d)/τ of every entry of d, −Inf where σ(d) ≤ 0.
func logSurrogate(e *Expr, d *G.Node, s Surrogate) *G.Node {
	return G.Must(G.ApplyOp(newElem(s.logFn()), d, e.invTemperature()))
}
