package losses

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
)

// Losses for several positives per query: the "log inside" and "log outside" forms of InfoNCE
// (Khosla et al., "Supervised Contrastive Learning", NeurIPS 2020, eq. 3 and 2, L_in and L_out;
// the LogInCE and LogOutCE losses of RePlay, sb-ai-lab/RePlay, replay/nn/loss). A row's
// positives are its own positive column p and every negative column whose item is a known
// training positive of the row's query (the side input candidates.Positives, which the data
// declares): such a column is removed from the negatives and counted as a positive. With
// P_i = {p} ∪ {j ∈ N_i : K_ij = 1}, the negatives left N'_i = N_i \ P_i and the logits z (the
// logits f = s/τ, corrected by −log Q as logq corrects them when logq_probability is written):
//
//	login:   ℓ_i = −log Σ_{j∈P_i} e^{z_ij} / (Σ_{j∈P_i} e^{z_ij} + Σ_{n∈N'_i} e^{z_in})
//	logout:  ℓ_i = (1/|P_i|)·Σ_{j∈P_i} −log e^{z_ij} / (e^{z_ij} + Σ_{n∈N'_i} e^{z_in})
//
// login is RePlay's LogInCE and Khosla et al.'s L_in without its constant log|P_i|; logout is
// RePlay's LogOutCE (each positive's cross-entropy against the negatives only, the other
// positives out of its denominator) averaged over the row's positives as Khosla et al.'s L_out
// is. With one positive (K_i empty) both are the softmax cross-entropy of plain (logq with
// logq_probability). Rawat et al.'s setting for extreme multi-label data is neither: they reduce
// a query of t labels to t single-label examples, each a softmax cross-entropy over all labels
// with the query's other labels among its negatives (the log-outside form without the mask):
// the workbench's plain, logq or the Rawat weightings on the data's pairs.

// refuseUndefined refuses a variant that needs the sampler's probabilities for a sampler of
// geometry g whose probabilities are undefined (candidates.Geometry.QUndefined), naming both.
func (s *Settings) refuseUndefined(g candidates.Geometry) error {
	why := ""
	switch {
	case !isBuiltin(s.Variant):
		return nil // a registered variant reads what it asks for: a missing log_q is MissingSideError
	case s.Variant == VariantGBCE:
		why = "its β uses α = k/(M − 1), the sampling rate of uniform negatives"
	case s.subtractsLogQ():
		why = fmt.Sprintf("it subtracts log Q, logq_probability = %q", s.LogQProbability)
	case s.ReadsQ():
		why = "it weighs the columns by the sampler's q"
	default:
		return nil
	}
	return fmt.Errorf("variant: %s needs the sampler's probability Q (%s), and sampler %s draws by the model's scores, "+
		"so its columns have none (Q undefined); use a variant that needs no Q (plain, constant, negative_sampling, psl, "+
		"debiased_contrastive, login or logout without logq_probability) or a sampler with a law", s.Variant, why, g.Sampler)
}

// shiftedLogits are the logits of login and logout relative to each row's positive,
// d_ij = z_ij − z_ip (R×C; z = f = s/τ, corrected by −log Q as logq does when logq_probability is
// written), so that every log-sum-exp below is of differences, not of logits as large as s/τ.
func shiftedLogits(e *Expr) *G.Node {
	f := e.Logits()
	z, zPos := f, e.AtPos(f)
	if e.Settings.subtractsLogQ() {
		z, zPos = e.LogQCorrection(f, zPos)
	}
	return SubRows(z, zPos)
}

// otherPositives is the R×C indicator of the row's negatives whose item is a known positive of
// its query, K ∘ Neg.
func otherPositives(e *Expr) *G.Node { return MulCols(e.Neg(), e.Side(candidates.Positives)) }

// zeros is an R×1 matrix of zeros, the positive's own shifted logit.
func (e *Expr) zeros() *G.Node {
	return G.NewConstant(tensor.New(tensor.Of(e.Scores.Dtype()), tensor.WithShape(e.B, 1)), G.In(e.Scores.Graph()))
}

// logInExpr is login: with u_i = log Σ_{j∈P_i} e^{d_ij} (≥ 0, the positive's own d = 0),
// ℓ_i = log(e^{u_i} + Σ_{n∈N'_i} e^{d_in}) − u_i, a softmax loss of u_i against the negatives.
func logInExpr(e *Expr) (*G.Node, error) {
	d := shiftedLogits(e)
	other := otherPositives(e)
	rest := G.Must(G.Sub(e.Neg(), other))
	u := LogSumExp(e.zeros(), AddEach(d, G.Must(G.Log(other))))
	return e.Reduce(SoftmaxLoss(u, AddEach(d, G.Must(G.Log(rest))))), nil
}

// logOutExpr is logout: with a_i = log Σ_{n∈N'_i} e^{d_in}, the positive's cross-entropy is
// log(1 + e^{a_i}) (a softmax loss of its d = 0 against N'_i) and another positive j's is
// softplus(a_i − d_ij); ℓ_i is their mean over P_i. A row whose negatives are all positives has
// no loss (N'_i empty: each positive's share is 1).
func logOutExpr(e *Expr) (*G.Node, error) {
	d := shiftedLogits(e)
	other := otherPositives(e)
	rest := G.Must(G.Sub(e.Neg(), other))
	logRest := AddEach(d, G.Must(G.Log(rest)))
	one := e.Const(1)
	// none_i is 0 where N'_i is empty and −Inf elsewhere, so that a_i is finite in every row.
	none := G.Must(G.Log(G.Must(G.Rectify(G.Must(G.Sub(one, RowSum(rest)))))))
	a := LogSumExp(none, logRest)
	pos := SoftmaxLoss(e.zeros(), logRest)
	others := RowDot(Softplus(AddRows(MulScalar(d, -1), a)), other)
	others = G.Must(G.HadamardProd(others, G.Must(G.Sub(one, G.Must(G.Exp(none))))))
	count := G.Must(G.Add(RowSum(other), one))
	return e.Reduce(G.Must(G.HadamardDiv(G.Must(G.Add(pos, others)), count))), nil
}
