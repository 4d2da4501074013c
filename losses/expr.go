package losses

import (
	"math"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
)

// Expr is what a variant's expression is built from: the resolved settings,
// the R×C scores, the temperature, and the step's side inputs and the positives' columns and
// masks as graph input nodes, bound to the step before every run (see Loss.Node). An input
// joins the graph when its method is first called. Row vectors are R×1 and
// column vectors 1×C matrices, so that they broadcast against the R×C scores
// with AddCols, AddRows, MulCols and MulRows; AddEach, MulScalar, RowSum,
// RowDot, LogSumExp, SoftmaxLoss, Softplus, Sigmoid, RowSoftplusSum, LogSumPow and
// Log1mExp are the other R×C primitives. These are the package's own Gorgonia ops (prim.go,
// rowprims.go, elementwise.go), each tested against the stock ops it stands for or against its
// definition: they split their rows over the cores and keep their outputs from step to step,
// where Gorgonia's stock op of the same function copies or allocates, so an expression built
// from them costs about what a fused kernel does (README, BenchmarkLoss). Gorgonia's stock ops
// (Add, Mul, Exp, Log, Sum, ...) serve for scalars and small vectors. The methods and functions
// build nodes with gorgonia.Must.
//
// The side inputs are the step's named vectors (candidates.Step), read by name with Side and
// PosSide; LogQ, LogP, LogPrior, their Pos forms and Rewards are the names every training
// step has. A name the step does not have is an error naming the variant and the sampler, but
// the rewards, which are 1 where the step has none.
type Expr struct {
	// Settings are the resolved settings; Options the decoded options struct
	// of a registered variant (nil for one without options).
	Settings Settings
	Options  any
	// B and C are the numbers of rows R and columns of the scores.
	B, C int
	// Scores (R×C) are the raw scores s_ij = <u_i, v_j>.
	Scores *G.Node
	// Tau is the scalar temperature τ: Settings.Temperature, or
	// exp(Inputs.LogTemperature) with learn_temperature (nil for mse_gramian).
	Tau *G.Node
	bd  *binding
}

// Side is the side input name of the step (candidates.Step): for a value per item
// (candidates.PerItem), each column's, 1×C (R×C when each row has columns of its own); for a
// value per row (candidates.PerRow), each row's, R×1; for a value per entry
// (candidates.PerEntry), R×C, 0 at the entries the step does not list.
func (e *Expr) Side(name string) *G.Node { return e.bd.side(name, false) }

// PosSide (R×1) is the side input name, a value per item, at each row's positive.
func (e *Expr) PosSide(name string) *G.Node { return e.bd.side(name, true) }

// Pos (R×C) is 1 at each row's positive column and 0 elsewhere.
func (e *Expr) Pos() *G.Node { return e.bd.derivedInput(derivedPos) }

// Neg (R×C) is 1 at the row's negatives N_i (every column but the positive,
// minus the removed accidental hits, with logq_probability = dedupe the
// further copies of an item, and the columns of padding rows) and 0 elsewhere.
func (e *Expr) Neg() *G.Node { return e.bd.derivedInput(derivedNeg) }

// Cand (R×C) is 1 at the row's candidates {p} ∪ N_i, Pos + Neg, and 0 elsewhere.
func (e *Expr) Cand() *G.Node { return e.bd.derivedInput(derivedCand) }

// NegCount (R×1) is each row's number of negatives k_i = |N_i|, RowSum(Neg) without a pass over
// the mask.
func (e *Expr) NegCount() *G.Node { return e.bd.derivedInput(derivedNegCount) }

// NegLog (R×C) is log Neg: 0 on N_i and −Inf elsewhere, to add to logits.
func (e *Expr) NegLog() *G.Node { return e.bd.derivedInput(derivedNegLog) }

// LogQ is Side(candidates.LogQ): each column's log q_j, the sampler's per-draw probability.
func (e *Expr) LogQ() *G.Node { return e.Side(candidates.LogQ) }

// LogP is Side(candidates.LogP): each column's log p̂_j, the probability that the item is in a
// step's (row's) candidate set.
func (e *Expr) LogP() *G.Node { return e.Side(candidates.LogP) }

// LogPrior is Side(candidates.LogPrior): each column's log π_j, the training label prior
// (−Inf allowed).
func (e *Expr) LogPrior() *G.Node { return e.Side(candidates.LogPrior) }

// PosLogQ (R×1) is PosSide(candidates.LogQ): log q of each row's positive item.
func (e *Expr) PosLogQ() *G.Node { return e.PosSide(candidates.LogQ) }

// PosLogP (R×1) is PosSide(candidates.LogP): log p̂ of each row's positive item.
func (e *Expr) PosLogP() *G.Node { return e.PosSide(candidates.LogP) }

// PosLogPrior (R×1) is PosSide(candidates.LogPrior): log π of each row's positive item.
func (e *Expr) PosLogPrior() *G.Node { return e.PosSide(candidates.LogPrior) }

// Rewards (R×1) is Side(candidates.Rewards): the rewards r_i (1 where the step has none, 0 for
// a padding row).
func (e *Expr) Rewards() *G.Node { return e.Side(candidates.Rewards) }

// Gram (1×C, or R×C per row or with padding) is w_j/C_g on the C_g columns of the batch
// Gramian estimate of mse_gramian (all columns, or the drawn negatives under
// First; never a padding row's, nor in a padding row) and 0 elsewhere. For mse_gramian, whose
// drawn columns come ∝ q, w_j = 1/(M·q_j) (the step's Items = M, side input log_q), so that the
// weighted sum estimates the uniform Gramian; w_j = 1 for the other variants and under
// layout corpus. The weights are the plan's, the derivation the fused kernel uses.
func (e *Expr) Gram() *G.Node { return e.bd.derivedInput(derivedGram) }

// Const is the scalar constant x in the dtype and graph of the scores.
func (e *Expr) Const(x float64) *G.Node { return constLike(e.Scores, x) }

// constLike is the scalar constant x in the dtype and graph of n.
func constLike(n *G.Node, x float64) *G.Node {
	if n.Dtype() == tensor.Float32 {
		return G.NewConstant(float32(x), G.In(n.Graph()))
	}
	return G.NewConstant(x, G.In(n.Graph()))
}

// Logits is F = S/τ: S·(1/τ) in one parallel pass (MulScalar) when τ is the constant
// Settings.Temperature, a stock division by the learned τ with learn_temperature.
func (e *Expr) Logits() *G.Node {
	if !e.Settings.LearnTemperature {
		return MulScalar(e.Scores, 1/e.Settings.Temperature)
	}
	return G.Must(G.HadamardDiv(e.Scores, e.Tau))
}

// PosLogit (R×1) is f_ip = s_ip/τ, each row's positive logit: AtPos(Logits()) picked from the
// scores and scaled, so that an expression that reads the logits otherwise only in one pass over
// the scores (SoftmaxLossNeg, SoftplusSumNeg) needs no R×C logits.
func (e *Expr) PosLogit() *G.Node {
	if !e.Settings.LearnTemperature {
		return MulScalar(e.AtPos(e.Scores), 1/e.Settings.Temperature)
	}
	return G.Must(G.HadamardDiv(e.AtPos(e.Scores), e.Tau))
}

// Correct returns the additive correction c as it enters the logits: c
// (correct_at = logits, s/τ + c) or c/τ (correct_at = scores, (s + c)/τ).
func (e *Expr) Correct(c *G.Node) *G.Node {
	if e.Settings.CorrectAt == CorrectAtScores {
		return G.Must(G.HadamardDiv(c, e.Tau))
	}
	return c
}

// AddCols is x_ij + col_j for a B×C x and a 1×C col, or x_ij + col_ij for a
// B×C col: Expr's column inputs when each row has its own columns.
func AddCols(x, col *G.Node) *G.Node { return G.Must(G.ApplyOp(newBcast(false, colAxis(col)), x, col)) }

// colAxis is the axis of a column operand: axisCols for a 1×C one, axisEach
// for one with rows.
func colAxis(col *G.Node) axis {
	if s := col.Shape(); len(s) == 2 && s[0] > 1 {
		return axisEach
	}
	return axisCols
}

// AddRows is x_ij + row_i for a B×C x and a B×1 row.
func AddRows(x, row *G.Node) *G.Node { return G.Must(G.ApplyOp(newBcast(false, axisRows), x, row)) }

// AddEach is x_ij + y_ij for B×C x and y.
func AddEach(x, y *G.Node) *G.Node { return G.Must(G.ApplyOp(newBcast(false, axisEach), x, y)) }

// MulCols is x_ij·col_j for a B×C x and a 1×C col, or x_ij·col_ij for a B×C
// col (as AddCols).
func MulCols(x, col *G.Node) *G.Node { return G.Must(G.ApplyOp(newBcast(true, colAxis(col)), x, col)) }

// MulRows is x_ij·row_i for a B×C x and a B×1 row.
func MulRows(x, row *G.Node) *G.Node { return G.Must(G.ApplyOp(newBcast(true, axisRows), x, row)) }

// MulScalar is x_ij·a for a B×C x and a constant a.
func MulScalar(x *G.Node, a float64) *G.Node {
	var v *tensor.Dense
	if x.Dtype() == tensor.Float32 {
		v = tensor.New(tensor.WithShape(1, 1), tensor.WithBacking([]float32{float32(a)}))
	} else {
		v = tensor.New(tensor.WithShape(1, 1), tensor.WithBacking([]float64{a}))
	}
	return G.Must(G.ApplyOp(newBcast(true, axisAll), x, G.NewConstant(v, G.In(x.Graph()))))
}

// RowSum is Σ_j x_ij as a B×1 matrix.
func RowSum(x *G.Node) *G.Node { return G.Must(G.ApplyOp(newSum(false, axisRows), x)) }

// RowDot is Σ_j x_ij·y_ij as a B×1 matrix, for B×C x and y: RowSum of their
// elementwise product, without the product's B×C matrix.
func RowDot(x, y *G.Node) *G.Node { return G.Must(G.ApplyOp(newSum(true, axisRows), x, y)) }

// AtPos is x_ip, each row's entry at its positive column (B×1): RowDot(x, Pos) read as one
// gather per row.
func (e *Expr) AtPos(x *G.Node) *G.Node { return G.Must(G.ApplyOp(newPick(&e.bd.plan), x, e.Pos())) }

// LogSumExp is log(e^{a_i} + Σ_j e^{x_ij}) as a B×1 matrix, for a B×1 a
// and a B×C x, computed as m_i + log(e^{a_i − m_i} + Σ_j e^{x_ij − m_i})
// with m_i = max(a_i, max_j x_ij), which keeps the exponentials finite.
// Entries may be −Inf (e^{−Inf} = 0), but every row needs a finite one.
func LogSumExp(a, x *G.Node) *G.Node { return lse(a, through{src: x}, false) }

// SubRows is x_ij − row_i for a B×C x and a B×1 row.
func SubRows(x, row *G.Node) *G.Node { return AddRows(x, G.Must(G.Neg(row))) }

// Softplus is log(1 + e^x) = max(x, 0) + log(1 + e^{−|x|}) of every entry of a matrix, exact
// for any x (gorgonia.Softplus returns x above 16, a relative error of 1e-8); its gradient is
// σ(x).
func Softplus(x *G.Node) *G.Node { return G.Must(G.ApplyOp(newMap(mapSoftplus), x)) }

// Sigmoid is σ(x) = 1/(1 + e^{−x}) = e^{−max(−x, 0)} / (1 + e^{−|x|}) of every entry of a
// matrix, exact to rounding for any x: gorgonia.Sigmoid returns exactly 1 above x = 19
// (float64) and 15 (float32), a relative error up to 6e-9 (float64) in 1 − e^{−x}.
func Sigmoid(x *G.Node) *G.Node { return G.Must(G.ApplyOp(newMap(mapSigmoid), x)) }

// SoftmaxLoss is ℓ_i = log(e^{z_ip} + Σ_j e^{zNeg_ij}) − z_ip: the softmax
// cross-entropy of the positive logit zPos (B×1) against the candidate set
// {p} ∪ N_i, whose negatives' logits are zNeg (B×C) and the other columns
// −Inf (add e.NegLog()). It is computed as
//
//	ℓ_i = (m_i − z_ip) + log1p((e^{z_ip − m_i} − 1) + Σ_j e^{zNeg_ij − m_i}),
//
// m_i the row's maximum (LogSumExp), so that a row its positive dominates
// (m_i = z_ip) gets log1p(Σ_j e^{zNeg_ij − z_ip}), exact to rounding however
// small, rather than a log of 1 + a tiny sum rounded to 0.
func SoftmaxLoss(zPos, zNeg *G.Node) *G.Node { return lse(zPos, through{src: zNeg}, true) }

// Reduce is L = scale·Σ_i r_i·ℓ_i of the row losses ℓ (R×1), scale = 1/R
// (reduction mean; 1/valid rows with padding) or 1 (sum).
func (e *Expr) Reduce(rowLoss *G.Node) *G.Node {
	return e.scaled(G.Must(G.Sum(G.Must(G.HadamardProd(rowLoss, e.Rewards())))), 1)
}

// scaled is x·a·scale for a scalar x and a constant a: the constant a·scale, or, with padding,
// a times the step's scale, an input.
func (e *Expr) scaled(x *G.Node, a float64) *G.Node {
	if !e.bd.step.Geometry.Padded {
		return G.Must(G.Mul(x, e.Const(e.scale()*a)))
	}
	sa := G.Must(G.Mul(e.bd.derivedInput(derivedScale), e.Const(a)))
	return G.Must(G.Sum(G.Must(G.Mul(x, sa))))
}

// logNegatives is log m of the step, m the number of a row's negatives (NegativeCount: C − 1),
// a constant; where shared columns may be masked (maskedColumns: a padding row's positive, a
// memory column holding one, an empty drawn column) C − 1 less those columns, which changes from
// step to step: an input.
func (e *Expr) logNegatives() *G.Node {
	if !maskedColumns(e.bd.step.Geometry) {
		return e.Const(math.Log(float64(NegativeCount(e.C))))
	}
	return G.Must(G.Sum(e.bd.derivedInput(derivedLogM)))
}

// scale is the reduction's scale without padding: 1/R (mean) or 1 (sum).
func (e *Expr) scale() float64 {
	if e.Settings.Reduction == ReductionMean {
		return 1 / float64(e.B)
	}
	return 1
}

// Softmax family: plain, full (Yi et al. eq. 3; Rawat et al. eq. 2), logq
// (Yi et al. eq. 4) and logit_adjusted (Menon et al. 2020, the logit-adjusted loss):
//
//	z_ij = s_ij/τ + c_j (j ∈ N_i),  z_ip = s_ip/τ + c_p,i,
//	ℓ_i  = log Σ_{j∈{p}∪N_i} e^{z_ij} − z_ip,
//
// with c = 0 (plain, full), c_j = −log Q_j and c_p = −log Q_p (logq, Q as
// logq_probability says, see LogQCorrection; c_p = 0 with
// uncorrected_positive) or c_j = τ_la·log π_j (logit_adjusted).
func softmaxExpr(e *Expr) (*G.Node, error) {
	s := &e.Settings
	f := e.Logits()
	zPos, zNeg := e.AtPos(f), f
	switch s.Variant {
	case VariantLogQ:
		zNeg, zPos = e.LogQCorrection(f, zPos)
	case VariantLogitAdjusted:
		la := e.Const(s.LATau)
		zNeg = AddCols(f, e.Correct(G.Must(G.Mul(e.LogPrior(), la))))
		zPos = G.Must(G.Add(zPos, e.Correct(G.Must(G.Mul(e.PosLogPrior(), la)))))
	}
	return e.Reduce(SoftmaxLoss(zPos, AddEach(zNeg, e.NegLog()))), nil
}

// rawatLogWeight is log w_ij = a + col_j + row_i of Rawat et al. Table 1 and
// eq. (14), m = C−1 (NegativeCount): constant −log m; importance −log m −
// log q_j; relative log q_p − log q_j; tail log π_j − log m − log q_j −
// log π_p. a is a scalar, col 1×C, row B×1; a nil term is 0.
func rawatLogWeight(e *Expr) (a, col, row *G.Node) {
	minusLogM := G.Must(G.Neg(e.logNegatives()))
	switch e.Settings.Variant {
	case VariantConstant:
		return minusLogM, nil, nil
	case VariantImportance:
		return minusLogM, G.Must(G.Neg(e.LogQ())), nil
	case VariantRelative:
		return nil, G.Must(G.Neg(e.LogQ())), e.PosLogQ()
	}
	return minusLogM, G.Must(G.Sub(e.LogPrior(), e.LogQ())), G.Must(G.Neg(e.PosLogPrior()))
}

// addLogWeight is x_ij + Correct(log w_ij).
func addLogWeight(e *Expr, x *G.Node) *G.Node {
	a, col, row := rawatLogWeight(e)
	switch { // the scalar joins a vector term, so that x gets one pass per vector
	case a != nil && col != nil:
		a, col = nil, G.Must(G.Add(col, a))
	case a != nil && row != nil:
		a, row = nil, G.Must(G.Add(row, a))
	}
	if a != nil {
		x = G.Must(G.Add(x, e.Correct(a)))
	}
	if col != nil {
		x = AddCols(x, e.Correct(col))
	}
	if row != nil {
		x = AddRows(x, e.Correct(row))
	}
	return x
}

// rawatSoftmaxExpr is Rawat et al. eq. (5): ℓ_i = log[1 + Σ_{j∈N_i} w_ij
// e^{f_ij − f_ip}], the softmax over {p} ∪ N_i of z_ip = f_ip and
// z_ij = f_ij + log w_ij (w·e^f = e^{f + log w}).
func rawatSoftmaxExpr(e *Expr) (*G.Node, error) {
	f := e.Logits()
	zNeg := AddEach(addLogWeight(e, f), e.NegLog())
	return e.Reduce(SoftmaxLoss(e.AtPos(f), zNeg)), nil
}

// LogisticLoss is ℓ_i = softplus(−z_ip) + Σ_j W_ij·softplus(z_ij): the
// logistic loss with the positive labelled 1 and the columns weighted by W
// (B×C: the negative mask times the weights) labelled 0.
func LogisticLoss(zPos, z, w *G.Node) *G.Node {
	return G.Must(G.Add(Softplus(G.Must(G.Neg(zPos))), RowDot(Softplus(z), w)))
}

// rawatDecoupledExpr is Rawat et al. eq. (6): ℓ_i = φ(f_ip) + Σ_{j∈N_i}
// w_ij φ(−f_ij) with φ(z) = log(1 + e^{−z}), i.e. softplus(−f_ip) +
// Σ w_ij softplus(f_ij).
func rawatDecoupledExpr(e *Expr) (*G.Node, error) {
	f := e.Logits()
	a, col, row := rawatLogWeight(e)
	w := e.Neg()
	if a != nil {
		w = G.Must(G.Mul(w, G.Must(G.Exp(a))))
	}
	if col != nil {
		w = MulCols(w, G.Must(G.Exp(col)))
	}
	if row != nil {
		w = MulRows(w, G.Must(G.Exp(row)))
	}
	return e.Reduce(LogisticLoss(e.AtPos(f), f, w)), nil
}

// logisticExpr is the candidate-sampling table's logistic training:
// ℓ_i = −log σ(G_ip) − Σ_{j∈N_i} log(1 − σ(G_ij)), G = F − log Q with Q as
// logq_probability says (nce, sampled_logistic; the positive's own −log Q
// unless uncorrected_positive; see LogQCorrection) or G = F
// (negative_sampling).
func logisticExpr(e *Expr) (*G.Node, error) {
	f := e.Logits()
	gPos, gNeg := e.AtPos(f), f
	if e.Settings.Variant != VariantNegativeSampling {
		gNeg, gPos = e.LogQCorrection(f, gPos)
	}
	return e.Reduce(LogisticLoss(gPos, gNeg, e.Neg())), nil
}

// LogQCorrection returns the logits f (B×C) and the positives' fPos (B×1)
// corrected by −log Q, as logq, nce and sampled_logistic do (Yi et al. eq. 4;
// the candidate-sampling table's Q(y|x)): column j gets c_j = −log Q_j and the
// positive c_p = −log Q_p (none with uncorrected_positive), placed as
// correct_at says. Q is what logq_probability says:
//
//   - expected_count: Q_j = m·q_j, m = C−1 (NegativeCount), the expected
//     number of copies of column j's item among a row's m negative draws, q
//     from the side input log_q (filled per q_source by the trainer);
//   - inclusion: Q_j = p̂_j, the probability that the item is in the step
//     (the side input log_p; Yi et al.'s Algorithm 2);
//   - dedupe: Q_j = p̂_j as for inclusion, on one column per distinct item:
//     the further copies are out of N_i (Neg, NegLog, from the plan's masks).
//
// A registered variant with Custom.LogQ reads the configured form through it
// (logq_probability, uncorrected_positive, correct_at) as logq does.
func (e *Expr) LogQCorrection(f, fPos *G.Node) (z, zPos *G.Node) {
	s := &e.Settings
	col, pos := e.LogP, e.PosLogP
	minusLogQ := func(logP *G.Node) *G.Node { return G.Must(G.Neg(logP)) }
	if s.LogQProbability == LogQProbabilityExpectedCount {
		col, pos = e.LogQ, e.PosLogQ
		logM := e.logNegatives()
		minusLogQ = func(logQ *G.Node) *G.Node { return G.Must(G.Neg(G.Must(G.Add(logQ, logM)))) }
	}
	z, zPos = AddCols(f, e.Correct(minusLogQ(col()))), fPos
	if !s.UncorrectedPositive {
		zPos = G.Must(G.Add(fPos, e.Correct(minusLogQ(pos()))))
	}
	return z, zPos
}

// mseGramianExpr is Krichene et al.'s MSE with the batch Gramian estimate:
// L = scale·Σ_i r_i (s_ip − 1)² + scale·λ·Σ_i Σ_j Gram_j s_ij², where
// Gram_j = 1/C_g on the C_g Gramian columns.
func mseGramianExpr(e *Expr) (*G.Node, error) {
	d := G.Must(G.Sub(e.AtPos(e.Scores), e.Const(1)))
	mse := e.Reduce(G.Must(G.Square(d)))
	// Σ_ij Gram_j·s_ij² as Σ_i (Σ_j (s_ij·Gram_j)·s_ij): two passes over S, no B×C square.
	gram := G.Must(G.Sum(RowDot(MulCols(e.Scores, e.Gram()), e.Scores)))
	return G.Add(mse, e.scaled(gram, e.Settings.GramianWeight))
}

// logqCorrectedExpr is the corrected logQ loss of Khrylchenko et al.,
// "Correcting the LogQ Correction" (RecSys 2025, arXiv 2507.09331). With
// the proposal without the positive Q'(j) = q_j/(1 − q_p) and
// ŝ_ij = f_ij − log Q'(j) (the correction placed as correct_at says) over
// the row's negatives S_i (copies of the positive masked out: k'_i of them),
//
//	ℓ_i = −f_ip + log Σ_{j∈S_i} e^{ŝ_ij},
//	P̂_i = e^{f_ip} / (e^{f_ip} + (1/k'_i) Σ_{j∈S_i} e^{ŝ_ij}),
//
// each row weighted by w_i = stop-gradient(1 − P̂_i), where
// 1 − P̂_i = σ(log Σ_j e^{ŝ_ij} − log k'_i − f_ip), computed without
// saturation (Sigmoid) so that a row whose loss exceeds 19 + log k'_i keeps
// its weight 1 − e^{−x} rather than 1. A row without negatives (k' = 0,
// P̂ = 1) has no loss.
func logqCorrectedExpr(e *Expr) (*G.Node, error) {
	f := e.Logits()
	fPos := e.AtPos(f)
	logOneMinusQp := G.Must(G.Log1p(G.Must(G.Neg(G.Must(G.Exp(e.PosLogQ()))))))
	// ŝ = f − log Q' = f − log q_j + log(1 − q_p), on S_i only.
	sHat := AddRows(AddCols(f, e.Correct(G.Must(G.Neg(e.LogQ())))), e.Correct(logOneMinusQp))
	sHat = AddEach(sHat, e.NegLog())
	// log k'_i (log 1 without negatives), and an extra term that is 0 in a row
	// without negatives and −Inf otherwise, so that the log-sum-exp is finite
	// in every row.
	_, logK, none := negativeCount(e)
	one := e.Const(1)
	lse := LogSumExp(none, sHat)
	oneMinusP := Sigmoid(G.Must(G.Sub(G.Must(G.Sub(lse, logK)), fPos)))
	w := StopGradient(G.Must(G.HadamardProd(oneMinusP, G.Must(G.Sub(one, G.Must(G.Exp(none)))))))
	return e.Reduce(G.Must(G.HadamardProd(G.Must(G.Sub(lse, fPos)), w))), nil
}

// builtinExpr is the expression of a built-in variant.
func builtinExpr(e *Expr) (*G.Node, error) {
	switch v := e.Settings.Variant; {
	case v == VariantMSEGramian:
		return mseGramianExpr(e)
	case v == VariantLogQCorrected:
		return logqCorrectedExpr(e)
	case v == VariantLogIn:
		return logInExpr(e)
	case v == VariantLogOut:
		return logOutExpr(e)
	case v == VariantNCE || v == VariantNegativeSampling || v == VariantSampledLogistic:
		return logisticExpr(e)
	case isRawat(v) && e.Settings.Form == FormDecoupled:
		return rawatDecoupledExpr(e)
	case isRawat(v):
		return rawatSoftmaxExpr(e)
	}
	return softmaxExpr(e)
}
