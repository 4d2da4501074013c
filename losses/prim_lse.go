package losses

import (
	"fmt"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/reuse"
	"github.com/samplingbias/workbench/internal/simd"
)

// lseOp is the row-wise log-sum-exp lse_i = log(e^{a_i} + Σ_j e^{x_ij}) of a B×1 a and a B×C x,
// or, with loss, the softmax cross-entropy ℓ_i = lse_i − a_i of the logit a_i against the
// candidates {a_i} ∪ {x_ij}. Both are computed from the row's maximum m_i as
//
//	lse_i = m_i + log(e^{a_i − m_i} + Σ_j e^{x_ij − m_i}),
//	ℓ_i   = (m_i − a_i) + log1p((e^{a_i − m_i} − 1) + Σ_j e^{x_ij − m_i}),
//
// in float64, so that no exponential overflows and a row that a_i dominates gets ℓ_i =
// log1p(Σ_j e^{x_ij − a_i}), exact to rounding however small. Entries of x, and for lse_i a_i,
// may be −Inf (e^{−Inf} = 0) as long as each row has a finite one; ℓ_i needs a finite a_i.
//
// The forward pass keeps lse_i in float64 for the gradient ops (lseBackOp), which
// the tape machine runs after it, so that they do not inherit the rounding of a float32 output,
// and each e^{x_ij − m_i}, so that the gradient takes no exponential of its own. It reads x as th
// says (fuse.go): its inputs are a, then th's.
type lseOp struct {
	primOp
	loss bool
	th   through
	st   *lseState
}

// lseState is what lseOp's forward pass leaves for its gradient ops, per row: the maximum m_i,
// lse_i − m_i, a_i − lse_i (for the loss −ℓ_i, exact however large a_i), and the terms
// e^{x_ij − m_i} (a []float32 or []float64 of x's dtype).
type lseState struct {
	m, logS, shift []float64
	terms          any
	// z holds a row's exponentials, one buffer per part of the rows.
	z [][]float64
}

// lse applies the log-sum-exp (or with loss the softmax loss) of a and the operand read as th
// says.
func lse(a *G.Node, th through, loss bool) *G.Node {
	name := "logSumExp"
	if loss {
		name = "softmaxLoss"
	}
	op := &lseOp{primOp: newPrim(name + th.suffix()), loss: loss, th: th, st: &lseState{}}
	return G.Must(G.ApplyOp(op, append([]*G.Node{a}, th.inputs()...)...))
}

func (op *lseOp) Arity() int { return 1 + len(op.th.inputs()) }
func (op *lseOp) Type() hm.Type {
	if op.th.mask != nil {
		return hm.NewFnType(mat2, mat2, mat2, mat2)
	}
	return hm.NewFnType(mat2, mat2, mat2)
}

func (op *lseOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := op.shapes(in, op.Arity())
	if err != nil {
		return nil, err
	}
	if want := vecShape(s[1], axisRows); !s[0].Eq(want) {
		return nil, fmt.Errorf("losses: %s of a %v matrix needs a %v vector, got %v", op.Name, s[1], want, s[0])
	}
	if len(s) > 2 && !s[2].Eq(s[1]) {
		return nil, fmt.Errorf("losses: %s of a %v matrix plus a %v one", op.Name, s[1], s[2])
	}
	return s[0].Clone(), nil
}

func (op *lseOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *lseOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, err := op.dense(in, op.Arity())
	if err != nil {
		return nil, err
	}
	out := op.output(prealloc, t[0].Shape(), t[0].Dtype())
	st := op.st
	b := t[0].Shape()[0]
	st.m, st.logS, st.shift = reuse.Grow(st.m, b), reuse.Grow(st.logS, b), reuse.Grow(st.shift, b)
	switch a := t[0].Data().(type) {
	case []float32:
		lseRows(out.Data().([]float32), st, a, readOf[float32](op.th, t[1:]), op.loss)
	case []float64:
		lseRows(out.Data().([]float64), st, a, readOf[float64](op.th, t[1:]), op.loss)
	}
	return out, nil
}

// read is a row primitive's operand x as it reads it (through): src, times by when scaled, plus
// mask when not nil.
type read[T floats] struct {
	src, mask []T
	scaled    bool
	by        T
}

// readOf is the read of th from the values t of its inputs.
func readOf[T floats](th through, t []*tensor.Dense) read[T] {
	r := read[T]{src: t[0].Data().([]T), scaled: th.scaled, by: T(th.by)}
	if th.mask != nil {
		r.mask = t[1].Data().([]T)
	}
	return r
}

// row widens row i of x (c values) into z and returns the largest of m and its entries
// (widenMax; simd.ScaleAddWidenMax through the scale and the mask).
func (r read[T]) row(z []float64, i, c int, m float64) float64 {
	x := r.src[i*c : (i+1)*c]
	if !r.scaled && r.mask == nil {
		return widenMax(z, x, m)
	}
	by, mask := T(1), []T(nil)
	if r.scaled {
		by = r.by
	}
	if r.mask != nil {
		mask = r.mask[i*c : (i+1)*c]
	}
	return simd.ScaleAddWidenMax(z, x, by, mask, m)
}

// lseRows writes ℓ_i (loss) or lse_i into out and the row's quantities of lseState into st.
func lseRows[T floats](out []T, st *lseState, a []T, x read[T], loss bool) {
	b := len(a)
	c := len(x.src) / b
	prev, _ := st.terms.([]T)
	terms := reuse.Grow(prev, len(x.src))
	st.terms = terms
	parts := parallel.Parts(len(x.src), primMin, defaultWorkers())
	st.z = reuse.GrowRows(st.z, parts, c)
	parallel.Split(b, parts, func(w, lo, hi int) {
		z := st.z[w]
		for i := lo; i < hi; i++ {
			ai := float64(a[i])
			m := x.row(z, i, c, ai)
			s := expSum(z, terms[i*c:(i+1)*c], m)
			st.m[i] = m
			if loss {
				l := math.Log1p(math.Expm1(ai-m) + s)
				out[i], st.logS[i], st.shift[i] = T((m-ai)+l), l, -((m - ai) + l)
			} else {
				l := math.Log(simd.ExpNeg(ai-m) + s)
				out[i], st.logS[i], st.shift[i] = T(m+l), l, (ai-m)-l
			}
		}
	})
}

func (op *lseOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for k := range d {
		d[k] = true
	}
	return d
}

// SymDiff: ∂/∂a_i = e^{a_i − lse_i}·g_i (for the loss e^{a_i − lse_i} − 1) and
// ∂/∂x_ij = e^{x_ij − lse_i}·g_i (lseBackOp, which reads the forward pass's output node), passed
// on to the mask as it is and to the source times the scale.
func (op *lseOp) SymDiff(in G.Nodes, out, g *G.Node) (G.Nodes, error) {
	grads := make(G.Nodes, len(in))
	for k := range in {
		var err error
		if grads[k], err = G.ApplyOp(newLSEBack(op, lseWRT(k)), in[k], g, out); err != nil {
			return nil, err
		}
	}
	return grads, nil
}

// DoDiff is the lisp machine's differentiation.
func (op *lseOp) DoDiff(_ G.ExecutionContext, in G.Nodes, out *G.Node) error {
	return doDiff(in, out, func(v []G.Value, g G.Value) ([]G.Value, error) {
		grads := make([]G.Value, len(v))
		for k := range v {
			var err error
			if grads[k], err = newLSEBack(op, lseWRT(k)).Do(v[k], g, out.Value()); err != nil {
				return nil, err
			}
		}
		return grads, nil
	})
}

// lseWRT says which input of lseOp a gradient is of.
type lseWRT int

const (
	wrtA    lseWRT = iota // a
	wrtX                  // x, or the source it is read from (times the scale)
	wrtMask               // the mask added to the source
)

// lseBackOp is a gradient of its forward op fwd, from the forward pass's row quantities and the
// output's gradient g (its second input): of a, ∂/∂a_i = e^{a_i − lse_i}·g_i, or for the loss
// (e^{a_i − lse_i} − 1)·g_i, the positive's share of the row minus 1 taken as expm1 (its first
// input, a, gives only the shape); of x, ∂/∂x_ij = e^{x_ij − lse_i}·g_i from the kept terms (else
// from its first input x), times the scale for the source of a scaled x, as is for its mask. Its
// third input, the forward pass's output, is not read: it orders the op after the forward pass
// whose state it reads, and keeps it apart from another forward pass's gradient.
type lseBackOp struct {
	gradOp
	fwd *lseOp
	wrt lseWRT
}

func newLSEBack(fwd *lseOp, wrt lseWRT) *lseBackOp {
	return &lseBackOp{newGrad(fwd.Name+[...]string{"GradA", "GradX", "GradMask"}[wrt], 3), fwd, wrt}
}

func (op *lseBackOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *lseBackOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, err := op.dense(in, 3)
	if err != nil {
		return nil, err
	}
	st := op.fwd.st
	th := op.fwd.th
	fused := th.scaled || th.mask != nil // the terms are the only record of x's values
	if len(st.m) != t[0].Shape()[0] || fused && op.wrt != wrtA && !keptFor(st.terms, t[0]) {
		return nil, fmt.Errorf("losses: %s ran before its forward pass", op.Name)
	}
	out := op.output(prealloc, t[0].Shape(), t[0].Dtype())
	scaled := op.wrt == wrtX && th.scaled
	switch x := t[0].Data().(type) {
	case []float32:
		lseBack(out.Data().([]float32), st, x, t[1].Data().([]float32), op.wrt, op.fwd.loss, scaled, float32(th.by))
	case []float64:
		lseBack(out.Data().([]float64), st, x, t[1].Data().([]float64), op.wrt, op.fwd.loss, scaled, th.by)
	}
	return out, nil
}

// lseBack writes lseBackOp's gradient into out.
func lseBack[T floats](out []T, st *lseState, x, g []T, wrt lseWRT, loss, scaled bool, by T) {
	if wrt == wrtA {
		lseShare(out, st.shift, g, loss)
	} else {
		lseGrad(out, st, x, g, scaled, by)
	}
}

// keptFor reports whether the kept terms (a []float32 or []float64) are as many as x's entries,
// in its dtype.
func keptFor(terms any, x *tensor.Dense) bool {
	switch k := terms.(type) {
	case []float32:
		return x.Dtype() == tensor.Float32 && len(k) == x.Shape().TotalSize()
	case []float64:
		return x.Dtype() == tensor.Float64 && len(k) == x.Shape().TotalSize()
	}
	return false
}

// lseGrad writes e^{x_ij − lse_i}·g_i into out (times by, the product rounded, when scaled): the
// forward pass's terms e^{x_ij − m_i} times e^{m_i − lse_i}·g_i where it kept them for this x,
// else from x.
func lseGrad[T floats](out []T, st *lseState, x, g []T, scaled bool, by T) {
	b := len(st.m)
	c := len(x) / b
	terms, _ := st.terms.([]T)
	if len(terms) != len(x) {
		terms = nil
	}
	parallel.Split(b, parallel.Parts(len(x), primMin, defaultWorkers()), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			m, l, gi := st.m[i], st.logS[i], float64(g[i])
			oi := out[i*c : (i+1)*c]
			if terms != nil {
				mulWide(oi, terms[i*c:(i+1)*c], simd.ExpNeg(-l)*gi)
			} else {
				for j, v := range x[i*c : (i+1)*c] {
					oi[j] = T(simd.ExpNeg((float64(v)-m)-l) * gi)
				}
			}
			if scaled {
				v := [1]T{by}
				bcastRow(oi, oi, v[:], true)
			}
		}
	})
}

// lseShare writes e^{a_i − lse_i}·g_i, or for the loss expm1(a_i − lse_i)·g_i, into out.
func lseShare[T floats](out []T, shift []float64, g []T, loss bool) {
	for i, d := range shift {
		if loss {
			out[i] = T(math.Expm1(d) * float64(g[i]))
		} else {
			out[i] = T(simd.ExpNeg(d) * float64(g[i]))
		}
	}
}
