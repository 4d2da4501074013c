package losses

import (
	"fmt"

	G "gorgonia.org/gorgonia"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/setting"
)

// DefaultGBCET is gbce's default calibration parameter t, the value Petrov & Macdonald recommend
// with 256 negatives (gSASRec's released configuration).
const DefaultGBCET = 0.75

// GBCEOptions are the options of gbce, [loss.options] (or [loss.options.gbce]).
type GBCEOptions struct {
	// T is the calibration parameter t ∈ [0, 1] of Petrov & Macdonald (default DefaultGBCET):
	// β = α(t(1 − 1/α) + 1/α) runs from 1 at t = 0 (the plain binary cross-entropy,
	// overconfident by about 1/α) to α at t = 1 (calibrated). Outside [0, 1] β leaves the
	// segment between them: above 1 or below α, more over- or under-confident than either end,
	// which the paper does not define.
	T *float64 `toml:"t"`
}

// Resolve fills the default and requires t ∈ [0, 1].
func (o *GBCEOptions) Resolve() error {
	return resolveFloat("t", &o.T, DefaultGBCET, setting.Closed(0.0, 1.0))
}

// checkGBCE refuses the geometries whose negatives are not drawn uniformly: gbce's α = k/(N − 1)
// is the sampling rate of k negatives drawn uniformly from the N − 1 items other than the
// positive, so a row's candidates must be its positive and uniform draws (layout First, with
// Geometry.Uniform): not the batch's other positives, nor draws by popularity.
func checkGBCE(_ *Settings, g candidates.Geometry) error {
	if g.Layout == candidates.First && g.Uniform {
		return nil
	}
	why := "does not draw them uniformly"
	if g.Layout == candidates.Diagonal {
		why = "takes them from the batch"
	}
	return fmt.Errorf("variant: gbce needs negatives drawn uniformly (sampler.kind = \"uniform\" or \"uniform_per_row\"): "+
		"its β uses α = k/(N − 1), the sampling rate of k uniform negatives among N items; sampler %s %s", g.Sampler, why)
}

// gbceExpr is gBCE, the generalised binary cross-entropy of Petrov & Macdonald, "gSASRec:
// Reducing Overconfidence in Sequential Recommendation Trained with Negative Sampling" (RecSys
// 2023, §4): with logits f = s/τ, the row's negatives N_i (k_i = |N_i| of them) out of a corpus of
// N items (the step's Items),
//
//	ℓ_i = −log σ(f_ip)^β_i − Σ_{j∈N_i} log(1 − σ(f_ij)) = β_i·softplus(−f_ip) + Σ_{j∈N_i} softplus(f_ij),
//	α_i = k_i/(N − 1),  β_i = α_i(t(1 − 1/α_i) + 1/α_i) = 1 − t(1 − α_i),
//
// the second form of β equal to the paper's and finite in a row without negatives. At t = 0,
// β = 1 and ℓ is negative_sampling's binary cross-entropy exactly. The paper averages each row
// over its |N_i| + 1 terms; like the logistic family (negative_sampling, nce, sampled_logistic)
// the sum here leaves that constant per row out, a rescaling of the row's gradient that does not
// move the minimum.
func gbceExpr(e *Expr) (*G.Node, error) {
	t := e.Const(*e.Options.(*GBCEOptions).T)
	one := e.Const(1)
	k := e.NegCount()
	alpha := G.Must(G.HadamardDiv(k, G.Must(G.Sub(e.Items(), one))))
	beta := G.Must(G.Sub(one, G.Must(G.Mul(t, G.Must(G.Sub(one, alpha))))))
	pos := G.Must(G.HadamardProd(beta, Softplus(G.Must(G.Neg(e.PosLogit())))))
	return e.Reduce(G.Must(G.Add(pos, e.SoftplusSumNeg()))), nil
}
