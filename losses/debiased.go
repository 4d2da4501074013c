package losses

import (
	"math"

	G "gorgonia.org/gorgonia"

	"github.com/samplingbias/workbench/internal/setting"
)

// DefaultTauPlus is debiased_contrastive's default class prior τ⁺, the default of Chuang et
// al.'s released code.
const DefaultTauPlus = 0.1

// DebiasedContrastiveOptions are the options of debiased_contrastive, [loss.options] (or
// [loss.options.debiased_contrastive]).
type DebiasedContrastiveOptions struct {
	// TauPlus is the class prior τ⁺ ∈ [0, 1) (default DefaultTauPlus): the probability that a
	// drawn negative is in fact a positive of the query, under the sampler in use. τ⁺ = 0 is
	// the plain softmax cross-entropy wherever the clamp does not bind (every score ≥ −1, as
	// for cosine scores); τ⁺ = 1 would leave no negatives (τ⁻ = 0).
	TauPlus *float64 `toml:"tau_plus"`
}

// Resolve fills the default and requires τ⁺ ∈ [0, 1).
func (o *DebiasedContrastiveOptions) Resolve() error {
	return resolveFloat("tau_plus", &o.TauPlus, DefaultTauPlus, setting.ClosedOpen(0.0, 1.0))
}

// debiasedContrastiveExpr is the debiased contrastive loss of Chuang et al., "Debiased
// Contrastive Learning" (NeurIPS 2020, §3, the objective L^N_Debiased with M = 1 positive
// sample, as their code): with logits f = s/τ, the row's k_i = |N_i| negatives and τ⁻ = 1 − τ⁺,
//
//	ℓ_i = −log e^{f_ip} / (e^{f_ip} + k_i·g_i),
//	g_i = max{ (1/τ⁻)·((1/k_i) Σ_{j∈N_i} e^{f_ij} − τ⁺ e^{f_ip}),  e^{−1/τ} },
//
// g_i the estimate of the mean of e^f over the true negatives: the drawn ones' mean less the
// share τ⁺ of positives among them, estimated by the row's positive, and at least e^{−1/τ}, the
// smallest e^{s/τ} of a cosine score. It is computed relative to the positive, ℓ_i =
// softplus(log(k_i·g_i/e^{f_ip})), from u_i = log(Σ_{j∈N_i} e^{f_ij − f_ip}) = y_i + log(1 −
// e^{−y_i}), y_i the plain softmax loss log(1 + e^{u_i}) (SoftmaxLoss):
//
//	log(k_i·g_i/e^{f_ip}) = max( u_i + log(1 − τ⁺k_i e^{−u_i}) − log τ⁻,  log k_i − 1/τ − f_ip ),
//
// where Log1mExp is −Inf when the debiased estimate is not positive, so that the max takes the
// bound. A row without negatives has no loss.
func debiasedContrastiveExpr(e *Expr) (*G.Node, error) {
	tauPlus := *e.Options.(*DebiasedContrastiveOptions).TauPlus
	fPos := e.PosLogit()
	_, logK, none := negativeCount(e)
	y := e.SoftmaxLossNeg(fPos)
	u := G.Must(G.Add(y, Log1mExp(G.Must(G.Neg(y)))))
	debiased := u
	if tauPlus > 0 {
		w := G.Must(G.Sub(G.Must(G.Add(logK, e.Const(math.Log(tauPlus)))), u))
		debiased = G.Must(G.Sub(G.Must(G.Add(u, Log1mExp(w))), e.Const(math.Log1p(-tauPlus))))
	}
	bound := G.Must(G.Sub(G.Must(G.Sub(logK, e.invTemperature())), fPos))
	rowLoss := Softplus(G.Must(G.MaxBetween(debiased, bound)))
	return e.Reduce(G.Must(G.HadamardProd(rowLoss, G.Must(G.Sub(e.Const(1), G.Must(G.Exp(none))))))), nil
}
