package losses

import (
	"fmt"

	G "gorgonia.org/gorgonia"
)

// Reading through elementwise ops: a row primitive (the log-sum-exp of SoftmaxLoss and
// LogSumExp, RowSoftplusSum) may read its R×C operand x as the elementwise ops that would make
// it, x = src·by + mask (the logits F = S/τ of Expr.Logits, plus NegLog), forming each entry
// itself in one pass over the scores instead of reading a matrix those ops wrote in passes of
// their own. It does their arithmetic in their order and precision (a float32 product, then a
// float32 sum, for float32 operands) and gives src the gradient they would have passed on (times
// by, rounded), so that the values and gradients are those of the ops run one after the other,
// bit for bit (TestThrough). The Expr methods SoftmaxLossNeg and SoftplusSumNeg read the scores
// so.

// through is how a row primitive reads its operand: src, times by when scaled, plus mask
// entrywise when mask is not nil.
type through struct {
	src    *G.Node
	scaled bool
	by     float64
	mask   *G.Node
}

// inputs are the nodes a row primitive reads for its operand: src, then mask where there is one.
func (th through) inputs() []*G.Node {
	if th.mask != nil {
		return []*G.Node{th.src, th.mask}
	}
	return []*G.Node{th.src}
}

// suffix names what a row primitive reads through, for its op's name (its identity in the graph:
// the scale is part of it).
func (th through) suffix() string {
	s := ""
	if th.scaled {
		s += fmt.Sprint("Scaled", th.by)
	}
	if th.mask != nil {
		s += "Masked"
	}
	return s
}

// logits returns how to read the logits F = S/τ (plus mask where not nil) from the scores: scaled
// by the constant 1/τ, or, with a learned τ, nil (they are not a scaling by a constant).
func (e *Expr) logits(mask *G.Node) *through {
	if e.Settings.LearnTemperature {
		return nil
	}
	return &through{src: e.Scores, scaled: true, by: 1 / e.Settings.Temperature, mask: mask}
}

// SoftmaxLossNeg is SoftmaxLoss(zPos, AddEach(Logits(), NegLog())): the softmax loss of zPos
// against the logits f_ij of the row's negatives N_i, read from the scores in one pass (with
// the values and gradients of the composition, bit for bit) where τ is a constant.
func (e *Expr) SoftmaxLossNeg(zPos *G.Node) *G.Node {
	if th := e.logits(e.NegLog()); th != nil {
		return lse(zPos, *th, true)
	}
	return SoftmaxLoss(zPos, AddEach(e.Logits(), e.NegLog()))
}

// SoftplusSumNeg is RowSoftplusSum(Logits(), Neg()): Σ_{j∈N_i} softplus(f_ij) over the row's
// negatives, read from the scores in one pass (with the values and gradients of the composition,
// bit for bit) where τ is a constant.
func (e *Expr) SoftplusSumNeg() *G.Node {
	if th := e.logits(nil); th != nil {
		return rowSoftplusSum(*th, e.Neg())
	}
	return RowSoftplusSum(e.Logits(), e.Neg())
}
