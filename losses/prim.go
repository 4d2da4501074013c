package losses

import (
	"fmt"
	"hash"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/simd"
)

// The primitives of the expressions over a B×C matrix x and a second operand v along an axis
// of it: a row vector r (B×1, one value per row), a column vector k (1×C, one value per column),
// a scalar (1×1) or a matrix of x's shape (elementwise).
// Gorgonia's broadcast operations materialise the vector as a B×C matrix (a Repeat, whose
// gradient is a reduction of another B×C copy), and a log-sum-exp built of stock ops takes a
// row maximum, a broadcast subtraction, an exponential and a sum, each a B×C result allocated
// at every step. The ops below compute the same functions in one pass over x, into a buffer
// the tape machine reuses from step to step, and their gradients are again such ops:
//
//	x_ij + v, x_ij · v   (bcastOp)     ∂/∂x: g or g·v; ∂/∂v: Σ g or Σ g·x along the axis
//	Σ_j x_ij, Σ_i x_ij, Σ_ij x_ij (sumOp)  ∂/∂x: g broadcast (expandOp)
//	Σ x_ij·y_ij          (sumOp, prod) ∂/∂x: g·y; ∂/∂y: g·x
//	log(e^{a_i} + Σ_j e^{x_ij}) and that minus a_i (lseOp)
//	                                   ∂/∂x_ij: e^{x_ij − lse_i}·g_i, ∂/∂a_i: e^{a_i − lse_i}·g_i (lseBackOp)
//	x_{i,p(i)}, the positive's entry (pickOp) ∂/∂x: g_i at (i, p(i)), 0 elsewhere (pickBackOp)
//
// Each is tested against the stock expression it replaces (value and gradient, float32 and
// float64) and against finite differences.

// mat2 is the type of every primitive's operands: a matrix of any float dtype.
var mat2 = G.TensorType{Dims: 2, Of: hm.TypeVariable('a')}

// primMin is the number of matrix entries from which a primitive splits its rows among
// goroutines.
const primMin = 1 << 15

// primOp holds what the primitives share: their shape checks, allocation and hashing.
type primOp struct {
	name string
	buf  *tensor.Dense // the output of the op's last Do, reused when the tape gives none
}

func (p primOp) ReturnsPtr() bool      { return false }
func (p primOp) CallsExtern() bool     { return false }
func (p primOp) OverwritesInput() int  { return -1 }
func (p primOp) WriteHash(h hash.Hash) { fmt.Fprint(h, "losses.", p.name) }
func (p primOp) Hashcode() uint32      { return hashOf(p) }
func (p primOp) String() string        { return p.name }

// shapes returns the shapes of the input DimSizers, each a matrix.
func (p primOp) shapes(in []G.DimSizer, n int) ([]tensor.Shape, error) {
	if len(in) != n {
		return nil, fmt.Errorf("losses: %s takes %d inputs, got %d", p.name, n, len(in))
	}
	out := make([]tensor.Shape, n)
	for i, d := range in {
		s, ok := d.(tensor.Shape)
		if !ok || len(s) != 2 {
			return nil, fmt.Errorf("losses: %s: input %d is not a matrix (%v)", p.name, i, d)
		}
		out[i] = s
	}
	return out, nil
}

// dense returns the inputs as contiguous matrices of one float dtype.
func (p primOp) dense(in []G.Value, n int) ([]*tensor.Dense, error) {
	if len(in) != n {
		return nil, fmt.Errorf("losses: %s takes %d inputs, got %d", p.name, n, len(in))
	}
	out := make([]*tensor.Dense, n)
	for i, v := range in {
		t, ok := v.(*tensor.Dense)
		if !ok || len(t.Shape()) != 2 || t.RequiresIterator() {
			return nil, fmt.Errorf("losses: %s: input %d is not a contiguous matrix (%T)", p.name, i, v)
		}
		if t.Dtype() != tensor.Float32 && t.Dtype() != tensor.Float64 || i > 0 && t.Dtype() != out[0].Dtype() {
			return nil, fmt.Errorf("losses: %s: input %d has dtype %v", p.name, i, t.Dtype())
		}
		out[i] = t
	}
	return out, nil
}

// output returns prealloc if it is a contiguous matrix of shape s and dtype dt, else the op's
// output of its previous execution if it is one, else a new one, which the op keeps. A tape
// machine runs each op once per step and the step's values are dead when the next one starts,
// so an op reuses its output instead of allocating a B×C matrix at every step (Gorgonia's tape
// gives a preallocated output to few ops). Each node has its own op: the helpers of Expr and
// the gradients create one per node.
func (p *primOp) output(prealloc G.Value, s tensor.Shape, dt tensor.Dtype) *tensor.Dense {
	if t, ok := prealloc.(*tensor.Dense); ok && fits(t, s, dt) {
		return t
	}
	return reuse(&p.buf, s, dt)
}

// reuse returns *buf if it is a contiguous matrix of shape s and dtype dt, else a new one, which
// it stores in *buf.
func reuse(buf **tensor.Dense, s tensor.Shape, dt tensor.Dtype) *tensor.Dense {
	if !fits(*buf, s, dt) {
		*buf = tensor.New(tensor.WithShape(s...), tensor.Of(dt))
	}
	return *buf
}

// fits reports whether t is a contiguous matrix of shape s and dtype dt.
func fits(t *tensor.Dense, s tensor.Shape, dt tensor.Dtype) bool {
	return t != nil && t.Dtype() == dt && t.Shape().Eq(s) && !t.RequiresIterator()
}

// axis says what a primitive's second operand v holds of a B×C matrix: one value per column
// (1×C), per row (B×1), one for all (1×1) or one per entry (B×C).
type axis int

const (
	axisCols axis = iota
	axisRows
	axisAll
	axisEach
)

// axisNames name the primitives by their axis.
var axisNames = [...]string{axisCols: "Cols", axisRows: "Rows", axisAll: "All", axisEach: "Each"}

// vecShape is the shape of the operand along ax of a B×C matrix m.
func vecShape(m tensor.Shape, ax axis) tensor.Shape {
	switch ax {
	case axisRows:
		return tensor.Shape{m[0], 1}
	case axisAll:
		return tensor.Shape{1, 1}
	case axisEach:
		return m.Clone()
	}
	return tensor.Shape{1, m[1]}
}

// rowOf is what the operand v along ax holds for row i of a matrix of c columns: its one value
// for the row (axisRows, axisAll) or its c values (axisCols, axisEach).
func rowOf[T floats](v []T, ax axis, i, c int) []T {
	switch ax {
	case axisRows:
		return v[i : i+1]
	case axisAll:
		return v[:1]
	case axisEach:
		return v[i*c : (i+1)*c]
	}
	return v[:c]
}

// bcastOp is x_ij + v or x_ij·v for a B×C x and v along ax (a row vector r_i, a column vector
// k_j, a scalar, or a B×C matrix).
type bcastOp struct {
	primOp
	mul bool
	ax  axis
}

func newBcast(mul bool, ax axis) *bcastOp {
	name := "add"
	if mul {
		name = "mul"
	}
	return &bcastOp{primOp{name: name + axisNames[ax]}, mul, ax}
}

func (op *bcastOp) Arity() int    { return 2 }
func (op *bcastOp) Type() hm.Type { return hm.NewFnType(mat2, mat2, mat2) }

func (op *bcastOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := op.shapes(in, 2)
	if err != nil {
		return nil, err
	}
	if want := vecShape(s[0], op.ax); !s[1].Eq(want) {
		return nil, fmt.Errorf("losses: %s of a %v matrix needs a %v vector, got %v", op.name, s[0], want, s[1])
	}
	return s[0].Clone(), nil
}

func (op *bcastOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *bcastOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, err := op.dense(in, 2)
	if err != nil {
		return nil, err
	}
	out := op.output(prealloc, t[0].Shape(), t[0].Dtype())
	switch x := t[0].Data().(type) {
	case []float32:
		bcast(out.Data().([]float32), x, t[1].Data().([]float32), t[0].Shape()[1], op.mul, op.ax)
	case []float64:
		bcast(out.Data().([]float64), x, t[1].Data().([]float64), t[0].Shape()[1], op.mul, op.ax)
	}
	return out, nil
}

func bcast[T floats](out, x, v []T, c int, mul bool, ax axis) {
	parallel.Split(len(x)/c, parallel.Parts(len(x), primMin, defaultWorkers()), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			bcastRow(out[i*c:(i+1)*c], x[i*c:(i+1)*c], rowOf(v, ax, i, c), mul)
		}
	})
}

// bcastRow sets o = x·v (mul) or x + v, v holding one value or one per entry of x.
func bcastRow[T floats](o, x, v []T, mul bool) {
	if o32, ok := any(o).([]float32); ok {
		x32, v32 := any(x).([]float32), any(v).([]float32)
		switch {
		case len(v) == 1 && mul:
			simd.MulScalar(o32, x32, v32[0])
		case len(v) == 1:
			simd.AddScalar(o32, x32, v32[0])
		case mul:
			simd.Mul(o32, x32, v32)
		default:
			simd.Add(o32, x32, v32)
		}
		return
	}
	switch {
	case len(v) == 1 && mul:
		for j := range x {
			o[j] = x[j] * v[0]
		}
	case len(v) == 1:
		for j := range x {
			o[j] = x[j] + v[0]
		}
	case mul:
		v = v[:len(x)]
		for j := range x {
			o[j] = x[j] * v[j]
		}
	default:
		v = v[:len(x)]
		for j := range x {
			o[j] = x[j] + v[j]
		}
	}
}

func (op *bcastOp) DiffWRT(int) []bool { return []bool{true, true} }

func (op *bcastOp) SymDiff(in G.Nodes, _, g *G.Node) (G.Nodes, error) {
	x, v := in[0], in[1]
	if !op.mul {
		if op.ax == axisEach {
			return G.Nodes{g, g}, nil
		}
		dv, err := G.ApplyOp(newSum(false, op.ax), g)
		return G.Nodes{g, dv}, err
	}
	dx, err := G.ApplyOp(newBcast(true, op.ax), g, v)
	if err != nil {
		return nil, err
	}
	dv, err := G.ApplyOp(newSum(true, op.ax), g, x)
	return G.Nodes{dx, dv}, err
}

// DoDiff is the lisp machine's differentiation.
func (op *bcastOp) DoDiff(_ G.ExecutionContext, in G.Nodes, out *G.Node) error {
	return doDiff(in, out, func(v []G.Value, g G.Value) ([]G.Value, error) {
		if !op.mul {
			dv, err := newSum(false, op.ax).Do(g)
			return []G.Value{g, dv}, err
		}
		dx, err := newBcast(true, op.ax).Do(g, v[1])
		if err != nil {
			return nil, err
		}
		dv, err := newSum(true, op.ax).Do(g, v[0])
		return []G.Value{dx, dv}, err
	})
}

// sumOp is the sum of a B×C x along ax: Σ_j x_ij (axisRows: a B×1 row vector), Σ_i x_ij
// (axisCols: a 1×C column vector), Σ_ij x_ij (axisAll: 1×1) or x itself (axisEach); or, with
// prod, the same of x_ij·y_ij.
type sumOp struct {
	primOp
	prod bool
	ax   axis
}

func newSum(prod bool, ax axis) *sumOp {
	name := "sum"
	if prod {
		name = "dot"
	}
	return &sumOp{primOp{name: name + axisNames[ax]}, prod, ax}
}

func (op *sumOp) arity() int {
	if op.prod {
		return 2
	}
	return 1
}

func (op *sumOp) Arity() int { return op.arity() }
func (op *sumOp) Type() hm.Type {
	if op.prod {
		return hm.NewFnType(mat2, mat2, mat2)
	}
	return hm.NewFnType(mat2, mat2)
}

func (op *sumOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := op.shapes(in, op.arity())
	if err != nil {
		return nil, err
	}
	if op.prod && !s[0].Eq(s[1]) {
		return nil, fmt.Errorf("losses: %s of matrices of shapes %v and %v", op.name, s[0], s[1])
	}
	return vecShape(s[0], op.ax), nil
}

func (op *sumOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *sumOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, err := op.dense(in, op.arity())
	if err != nil {
		return nil, err
	}
	s := t[0].Shape()
	out := op.output(prealloc, vecShape(s, op.ax), t[0].Dtype())
	var y *tensor.Dense
	if op.prod {
		y = t[1]
	}
	switch x := t[0].Data().(type) {
	case []float32:
		sumAlong(out.Data().([]float32), x, dataOf[float32](y), s[1], op.ax)
	case []float64:
		sumAlong(out.Data().([]float64), x, dataOf[float64](y), s[1], op.ax)
	}
	return out, nil
}

// dataOf is t's data, nil for a nil t.
func dataOf[T floats](t *tensor.Dense) []T {
	if t == nil {
		return nil
	}
	return t.Data().([]T)
}

// sumAlong writes into out the sums of x (times y if not nil) along ax, accumulated in float64
// (axisAll: the rows' sums added in row order, whatever the split).
func sumAlong[T floats](out, x, y []T, c int, ax axis) {
	b := len(x) / c
	parts := parallel.Parts(len(x), primMin, defaultWorkers())
	switch ax {
	case axisRows, axisAll:
		rowSums := make([]float64, b)
		parallel.Split(b, parts, func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				rowSums[i] = dot(x[i*c:(i+1)*c], y, i*c)
				if ax == axisRows {
					out[i] = T(rowSums[i])
				}
			}
		})
		if ax == axisAll {
			var s float64
			for _, v := range rowSums {
				s += v
			}
			out[0] = T(s)
		}
		return
	case axisEach:
		parallel.Split(b, parts, func(_, lo, hi int) {
			if y == nil {
				copy(out[lo*c:hi*c], x[lo*c:hi*c])
				return
			}
			for k := lo * c; k < hi*c; k++ {
				out[k] = x[k] * y[k]
			}
		})
		return
	}
	parallel.Split(c, parts, func(_, lo, hi int) {
		acc := make([]float64, hi-lo)
		for i := range b {
			xi := x[i*c+lo : i*c+hi]
			if y == nil {
				for j, v := range xi {
					acc[j] += float64(v)
				}
				continue
			}
			yi := y[i*c+lo : i*c+hi]
			for j, v := range xi {
				acc[j] += float64(v) * float64(yi[j])
			}
		}
		for j, v := range acc {
			out[lo+j] = T(v)
		}
	})
}

// dot is Σ_k x_k·y_{off+k} in float64, or Σ_k x_k if y is nil.
func dot[T floats](x, y []T, off int) float64 {
	var s float64
	if y == nil {
		for _, v := range x {
			s += float64(v)
		}
		return s
	}
	y = y[off : off+len(x)]
	for k, v := range x {
		s += float64(v) * float64(y[k])
	}
	return s
}

func (op *sumOp) DiffWRT(int) []bool {
	if op.prod {
		return []bool{true, true}
	}
	return []bool{true}
}

func (op *sumOp) SymDiff(in G.Nodes, _, g *G.Node) (G.Nodes, error) {
	if !op.prod {
		dx, err := G.ApplyOp(&expandOp{primOp{name: "expand"}, op.ax}, g, in[0])
		return G.Nodes{dx}, err
	}
	dx, err := G.ApplyOp(newBcast(true, op.ax), in[1], g)
	if err != nil {
		return nil, err
	}
	dy, err := G.ApplyOp(newBcast(true, op.ax), in[0], g)
	return G.Nodes{dx, dy}, err
}

// DoDiff is the lisp machine's differentiation.
func (op *sumOp) DoDiff(_ G.ExecutionContext, in G.Nodes, out *G.Node) error {
	return doDiff(in, out, func(v []G.Value, g G.Value) ([]G.Value, error) {
		if !op.prod {
			dx, err := (&expandOp{primOp{name: "expand"}, op.ax}).Do(g, v[0])
			return []G.Value{dx}, err
		}
		dx, err := newBcast(true, op.ax).Do(v[1], g)
		if err != nil {
			return nil, err
		}
		dy, err := newBcast(true, op.ax).Do(v[0], g)
		return []G.Value{dx, dy}, err
	})
}

// expandOp is its first input, an operand along ax, broadcast to the shape of its second input,
// a B×C matrix whose values it does not read: the gradient of sumOp.
type expandOp struct {
	primOp
	ax axis
}

func (op *expandOp) Arity() int    { return 2 }
func (op *expandOp) Type() hm.Type { return hm.NewFnType(mat2, mat2, mat2) }

func (op *expandOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := op.shapes(in, 2)
	if err != nil {
		return nil, err
	}
	return s[1].Clone(), nil
}

func (op *expandOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *expandOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, err := op.dense(in, 2)
	if err != nil {
		return nil, err
	}
	s := t[1].Shape()
	out := op.output(prealloc, s, t[0].Dtype())
	switch v := t[0].Data().(type) {
	case []float32:
		expand(out.Data().([]float32), v, s[1], op.ax)
	case []float64:
		expand(out.Data().([]float64), v, s[1], op.ax)
	}
	return out, nil
}

func expand[T floats](out, v []T, c int, ax axis) {
	for i := range len(out) / c {
		o, vi := out[i*c:(i+1)*c], rowOf(v, ax, i, c)
		if len(vi) == 1 {
			for j := range o {
				o[j] = vi[0]
			}
			continue
		}
		copy(o, vi)
	}
}

func (op *expandOp) DiffWRT(int) []bool { return []bool{true, false} }

func (op *expandOp) SymDiff(_ G.Nodes, _, g *G.Node) (G.Nodes, error) {
	dv, err := G.ApplyOp(newSum(false, op.ax), g)
	return G.Nodes{dv, nil}, err
}

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
// the tape machine runs after it, so that they do not inherit the rounding of a float32 output;
// once the node is differentiated (SymDiff), it also keeps each e^{x_ij − m_i}, so that the
// gradient takes no exponential of its own.
type lseOp struct {
	primOp
	loss bool
	st   *lseState
}

// lseState is what lseOp's forward pass leaves for its gradient ops, per row: the maximum m_i,
// lse_i − m_i, a_i − lse_i (for the loss −ℓ_i, exact however large a_i), and, when needGrad,
// the terms e^{x_ij − m_i} (a []float32 or []float64 of x's dtype).
type lseState struct {
	needGrad       bool
	m, logS, shift []float64
	terms          any
	// z holds a row's exponentials, one buffer per part of the rows.
	z [][]float64
}

func newLSE(loss bool) *lseOp {
	name := "logSumExp"
	if loss {
		name = "softmaxLoss"
	}
	return &lseOp{primOp{name: name}, loss, &lseState{}}
}

// WriteHash includes the state's address: the gradient ops of one node read its forward pass.
func (op *lseOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "losses.%s{%p}", op.name, op.st) }
func (op *lseOp) Hashcode() uint32      { return hashOf(op) }

func (op *lseOp) Arity() int    { return 2 }
func (op *lseOp) Type() hm.Type { return hm.NewFnType(mat2, mat2, mat2) }

func (op *lseOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := op.shapes(in, 2)
	if err != nil {
		return nil, err
	}
	if want := vecShape(s[1], axisRows); !s[0].Eq(want) {
		return nil, fmt.Errorf("losses: %s of a %v matrix needs a %v vector, got %v", op.name, s[1], want, s[0])
	}
	return s[0].Clone(), nil
}

func (op *lseOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *lseOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, err := op.dense(in, 2)
	if err != nil {
		return nil, err
	}
	out := op.output(prealloc, t[0].Shape(), t[0].Dtype())
	st := op.st
	b := t[0].Shape()[0]
	st.m, st.logS, st.shift = grow(st.m, b), grow(st.logS, b), grow(st.shift, b)
	switch a := t[0].Data().(type) {
	case []float32:
		lse(out.Data().([]float32), st, a, t[1].Data().([]float32), op.loss)
	case []float64:
		lse(out.Data().([]float64), st, a, t[1].Data().([]float64), op.loss)
	}
	return out, nil
}

// lse writes ℓ_i (loss) or lse_i into out and the row's quantities of lseState into st.
func lse[T floats](out []T, st *lseState, a, x []T, loss bool) {
	b := len(a)
	c := len(x) / b
	var terms []T
	if st.needGrad {
		prev, _ := st.terms.([]T)
		terms = grow(prev, len(x))
		st.terms = terms
	}
	parts := parallel.Parts(len(x), primMin, defaultWorkers())
	st.z = growRows(st.z, parts, c)
	parallel.Split(b, parts, func(w, lo, hi int) {
		z := st.z[w]
		for i := lo; i < hi; i++ {
			ai := float64(a[i])
			m := widenMax(z, x[i*c:(i+1)*c], ai)
			s := simd.ExpNegShift(z, z, m)
			if terms != nil {
				narrow(terms[i*c:(i+1)*c], z)
			}
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

func (op *lseOp) DiffWRT(int) []bool { return []bool{true, true} }

// SymDiff: ∂/∂a_i = e^{a_i − lse_i}·g_i (for the loss e^{a_i − lse_i} − 1) and
// ∂/∂x_ij = e^{x_ij − lse_i}·g_i (lseBackOp).
func (op *lseOp) SymDiff(in G.Nodes, _, g *G.Node) (G.Nodes, error) {
	op.st.needGrad = true
	da, err := G.ApplyOp(newLSEBack(op, true), in[0], g)
	if err != nil {
		return nil, err
	}
	dx, err := G.ApplyOp(newLSEBack(op, false), in[1], g)
	return G.Nodes{da, dx}, err
}

// DoDiff is the lisp machine's differentiation.
func (op *lseOp) DoDiff(_ G.ExecutionContext, in G.Nodes, out *G.Node) error {
	return doDiff(in, out, func(v []G.Value, g G.Value) ([]G.Value, error) {
		da, err := newLSEBack(op, true).Do(v[0], g)
		if err != nil {
			return nil, err
		}
		dx, err := newLSEBack(op, false).Do(v[1], g)
		return []G.Value{da, dx}, err
	})
}

// lseBackOp is a gradient of its forward op fwd, from the forward pass's row quantities and the
// output's gradient g (its second input): with share, ∂/∂a_i = e^{a_i − lse_i}·g_i, or for the
// loss (e^{a_i − lse_i} − 1)·g_i, the positive's share of the row minus 1 taken as expm1 (its
// first input, a, gives only the shape); else ∂/∂x_ij = e^{x_ij − lse_i}·g_i from its first
// input x.
type lseBackOp struct {
	primOp
	fwd   *lseOp
	share bool
}

func newLSEBack(fwd *lseOp, share bool) *lseBackOp {
	name := fwd.name + "GradX"
	if share {
		name = fwd.name + "GradA"
	}
	return &lseBackOp{primOp{name: name}, fwd, share}
}

func (op *lseBackOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "losses.%s{%p}", op.name, op.fwd.st) }
func (op *lseBackOp) Hashcode() uint32      { return hashOf(op) }

func (op *lseBackOp) Arity() int    { return 2 }
func (op *lseBackOp) Type() hm.Type { return hm.NewFnType(mat2, mat2, mat2) }

func (op *lseBackOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := op.shapes(in, 2)
	if err != nil {
		return nil, err
	}
	return s[0].Clone(), nil
}

func (op *lseBackOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *lseBackOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, err := op.dense(in, 2)
	if err != nil {
		return nil, err
	}
	st := op.fwd.st
	if len(st.m) != t[0].Shape()[0] {
		return nil, fmt.Errorf("losses: %s ran before its forward pass", op.name)
	}
	out := op.output(prealloc, t[0].Shape(), t[0].Dtype())
	switch x := t[0].Data().(type) {
	case []float32:
		lseBack(out.Data().([]float32), st, x, t[1].Data().([]float32), op.share, op.fwd.loss)
	case []float64:
		lseBack(out.Data().([]float64), st, x, t[1].Data().([]float64), op.share, op.fwd.loss)
	}
	return out, nil
}

// lseBack writes lseBackOp's gradient into out.
func lseBack[T floats](out []T, st *lseState, x, g []T, share, loss bool) {
	if share {
		lseShare(out, st.shift, g, loss)
	} else {
		lseGrad(out, st, x, g)
	}
}

// lseGrad writes e^{x_ij − lse_i}·g_i into out: the forward pass's terms e^{x_ij − m_i} times
// e^{m_i − lse_i}·g_i where it kept them (a tape machine's graph), else from x (the lisp
// machine's, differentiated as it runs).
func lseGrad[T floats](out []T, st *lseState, x, g []T) {
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
				continue
			}
			for j, v := range x[i*c : (i+1)*c] {
				oi[j] = T(simd.ExpNeg((float64(v)-m)-l) * gi)
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

// doDiff is the lisp machine's differentiation of a primitive: grads returns the gradients of
// its inputs (nil for one without) from their values and the output's gradient, and doDiff adds
// them to the inputs' gradients.
func doDiff(in G.Nodes, out *G.Node, grads func(v []G.Value, g G.Value) ([]G.Value, error)) error {
	g, err := out.Grad()
	if err != nil {
		return err
	}
	v := make([]G.Value, len(in))
	for i, n := range in {
		v[i] = n.Value()
	}
	gs, err := grads(v, g)
	if err != nil {
		return err
	}
	for i, gi := range gs {
		if gi == nil {
			continue
		}
		if err := addGrad(in[i], gi); err != nil {
			return err
		}
	}
	return nil
}

// DoDiff is the lisp machine's differentiation.
func (op *expandOp) DoDiff(_ G.ExecutionContext, in G.Nodes, out *G.Node) error {
	return doDiff(in, out, func(_ []G.Value, g G.Value) ([]G.Value, error) {
		dv, err := newSum(false, op.ax).Do(g)
		return []G.Value{dv, nil}, err
	})
}

var (
	_ G.SDOp = (*bcastOp)(nil)
	_ G.ADOp = (*bcastOp)(nil)
	_ G.SDOp = (*sumOp)(nil)
	_ G.ADOp = (*sumOp)(nil)
	_ G.SDOp = (*expandOp)(nil)
	_ G.ADOp = (*expandOp)(nil)
	_ G.SDOp = (*lseOp)(nil)
	_ G.ADOp = (*lseOp)(nil)

	_ G.UsePreallocDoer = (*bcastOp)(nil)
	_ G.UsePreallocDoer = (*sumOp)(nil)
	_ G.UsePreallocDoer = (*expandOp)(nil)
	_ G.UsePreallocDoer = (*lseOp)(nil)
	_ G.UsePreallocDoer = (*lseBackOp)(nil)
)

// mapOp applies a function to every entry of a matrix, computed in float64 as the fused kernels
// do (softplusSigmoid, sigmoidFrom: stable for any x) and split over rows like the other
// primitives:
//
//	softplus  log(1 + e^x)   ∂: σ(x), kept from the forward pass (softplusBackOp)
//	sigmoid   σ(x)           ∂: σ(x)(1 − σ(x))   (mapSigmoidSlope, whose own gradient is not defined)
//
// The softplus op keeps the σ(x) it computes with log(1 + e^x) (both come from one e^{−|x|}) for
// its gradient, which the tape machine runs after it in the same step: the backward pass then
// costs one multiplication per entry instead of an exponential.
type mapOp struct {
	primOp
	fn   mapFn
	keep *tensor.Dense // σ(x) of the last forward pass (softplus)
}

// mapFn is the function of a mapOp.
type mapFn int

const (
	mapSoftplus mapFn = iota
	mapSigmoid
	mapSigmoidSlope
)

func newMap(fn mapFn) *mapOp {
	return &mapOp{primOp: primOp{name: [...]string{"softplus", "sigmoid", "sigmoidSlope"}[fn]}, fn: fn}
}

func (op *mapOp) Arity() int    { return 1 }
func (op *mapOp) Type() hm.Type { return hm.NewFnType(mat2, mat2) }

func (op *mapOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := op.shapes(in, 1)
	if err != nil {
		return nil, err
	}
	return s[0].Clone(), nil
}

func (op *mapOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *mapOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, err := op.dense(in, 1)
	if err != nil {
		return nil, err
	}
	out := op.output(prealloc, t[0].Shape(), t[0].Dtype())
	var keep *tensor.Dense
	if op.fn == mapSoftplus {
		keep = reuse(&op.keep, t[0].Shape(), t[0].Dtype())
	}
	switch x := t[0].Data().(type) {
	case []float32:
		mapEntries(out.Data().([]float32), dataOf[float32](keep), x, t[0].Shape()[1], op.fn)
	case []float64:
		mapEntries(out.Data().([]float64), dataOf[float64](keep), x, t[0].Shape()[1], op.fn)
	}
	return out, nil
}

// mapEntries writes fn of every entry of x into out, and for softplus σ(x) into keep.
func mapEntries[T floats](out, keep, x []T, c int, fn mapFn) {
	parallel.Split(len(x)/c, parallel.Parts(len(x), primMin, defaultWorkers()), func(_, lo, hi int) {
		for k := lo * c; k < hi*c; k++ {
			v := float64(x[k])
			if fn == mapSoftplus {
				sp, sig := softplusSigmoid(v)
				out[k], keep[k] = T(sp), T(sig)
				continue
			}
			sig := sigmoidFrom(v, simd.ExpNeg(-math.Abs(v)))
			if fn == mapSigmoidSlope {
				sig *= 1 - sig
			}
			out[k] = T(sig)
		}
	})
}

func (op *mapOp) DiffWRT(int) []bool { return []bool{op.fn != mapSigmoidSlope} }

// slope is the op of the function's derivative.
func (op *mapOp) slope() (*mapOp, error) {
	switch op.fn {
	case mapSoftplus:
		return newMap(mapSigmoid), nil
	case mapSigmoid:
		return newMap(mapSigmoidSlope), nil
	}
	return nil, fmt.Errorf("losses: %s has no gradient", op.name)
}

func (op *mapOp) SymDiff(in G.Nodes, _, g *G.Node) (G.Nodes, error) {
	if op.fn == mapSoftplus {
		dx, err := G.ApplyOp(&softplusBackOp{primOp: primOp{name: "softplusBack"}, src: op}, g, in[0])
		return G.Nodes{dx}, err
	}
	d, err := op.slope()
	if err != nil {
		return nil, err
	}
	s, err := G.ApplyOp(d, in[0])
	if err != nil {
		return nil, err
	}
	dx, err := G.ApplyOp(newBcast(true, axisEach), g, s)
	return G.Nodes{dx}, err
}

// DoDiff is the lisp machine's differentiation.
func (op *mapOp) DoDiff(_ G.ExecutionContext, in G.Nodes, out *G.Node) error {
	return doDiff(in, out, func(v []G.Value, g G.Value) ([]G.Value, error) {
		d, err := op.slope()
		if err != nil {
			return nil, err
		}
		s, err := d.Do(v[0])
		if err != nil {
			return nil, err
		}
		dx, err := newBcast(true, axisEach).Do(g, s)
		return []G.Value{dx}, err
	})
}

var (
	_ G.SDOp = (*mapOp)(nil)
	_ G.ADOp = (*mapOp)(nil)
)

// softplusBackOp is g ⊙ σ(x), the gradient of the softplus op src, with the σ(x) src kept from
// its forward pass on x (its second input, which orders it after src and gives its shape).
type softplusBackOp struct {
	primOp
	src *mapOp
	mul *bcastOp // g ⊙ σ, with its own output
}

func (op *softplusBackOp) Arity() int    { return 2 }
func (op *softplusBackOp) Type() hm.Type { return hm.NewFnType(mat2, mat2, mat2) }

func (op *softplusBackOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := op.shapes(in, 2)
	if err != nil {
		return nil, err
	}
	return s[0].Clone(), nil
}

func (op *softplusBackOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *softplusBackOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, err := op.dense(in, 2)
	if err != nil {
		return nil, err
	}
	k := op.src.keep
	if k == nil || !k.Shape().Eq(t[1].Shape()) || k.Dtype() != t[1].Dtype() {
		return nil, fmt.Errorf("losses: %s runs before its softplus", op.name)
	}
	if op.mul == nil {
		op.mul = newBcast(true, axisEach)
	}
	return op.mul.UsePreallocDo(prealloc, t[0], k)
}

func (op *softplusBackOp) DiffWRT(int) []bool { return []bool{false, false} }
func (op *softplusBackOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("losses: %s has no gradient", op.name)
}

// pickOp is x_{i,col(i)} as a B×1 matrix, for a B×C x and the column col(i) = cols.pos(i) of
// each row: the positive's gather of Expr.AtPos, which equals RowDot(x, Pos) for the one-hot
// Pos of the same columns (where x is finite) in one read per row instead of a pass over the
// B×C entries. Its second input, that Pos, is not read; it orders the op after the binding that
// builds cols for the step. ∂/∂x_ij = g_i at j = col(i) and 0 elsewhere (pickBackOp).
type pickOp struct {
	primOp
	cols *plan
}

func newPick(cols *plan) *pickOp { return &pickOp{primOp{name: "pick"}, cols} }

// WriteHash includes the plan's address: picks of different steps must never be merged.
func (op *pickOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "losses.pick{%p}", op.cols) }
func (op *pickOp) Hashcode() uint32      { return hashOf(op) }

func (op *pickOp) Arity() int    { return 2 }
func (op *pickOp) Type() hm.Type { return hm.NewFnType(mat2, mat2, mat2) }

func (op *pickOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := op.shapes(in, 2)
	if err != nil {
		return nil, err
	}
	if !s[0].Eq(s[1]) {
		return nil, fmt.Errorf("losses: pick of a matrix of shape %v at positives of shape %v", s[0], s[1])
	}
	return vecShape(s[0], axisRows), nil
}

func (op *pickOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *pickOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, err := op.dense(in, 2)
	if err != nil {
		return nil, err
	}
	s := t[0].Shape()
	out := op.output(prealloc, vecShape(s, axisRows), t[0].Dtype())
	switch x := t[0].Data().(type) {
	case []float32:
		pick(out.Data().([]float32), x, op.cols, s[1])
	case []float64:
		pick(out.Data().([]float64), x, op.cols, s[1])
	}
	return out, nil
}

// pick sets out[i] = x[i*c + cols.pos(i)].
func pick[T floats](out, x []T, cols *plan, c int) {
	for i := range out {
		out[i] = x[i*c+cols.pos(i)]
	}
}

func (op *pickOp) DiffWRT(int) []bool { return []bool{true, false} }

func (op *pickOp) SymDiff(in G.Nodes, _, g *G.Node) (G.Nodes, error) {
	dx, err := G.ApplyOp(newPickBack(op), in[0], g)
	return G.Nodes{dx, nil}, err
}

// DoDiff is the lisp machine's differentiation.
func (op *pickOp) DoDiff(_ G.ExecutionContext, in G.Nodes, out *G.Node) error {
	return doDiff(in, out, func(v []G.Value, g G.Value) ([]G.Value, error) {
		dx, err := newPickBack(op).Do(v[0], g)
		return []G.Value{dx, nil}, err
	})
}

// pickBackOp is pickOp's gradient: a B×C matrix (the shape of its first input) holding g_i at
// (i, col(i)) and 0 elsewhere, for the B×1 output gradient g (its second input).
type pickBackOp struct {
	primOp
	fwd *pickOp
}

func newPickBack(fwd *pickOp) *pickBackOp { return &pickBackOp{primOp{name: "pickGrad"}, fwd} }

func (op *pickBackOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "losses.pickGrad{%p}", op.fwd.cols) }
func (op *pickBackOp) Hashcode() uint32      { return hashOf(op) }

func (op *pickBackOp) Arity() int    { return 2 }
func (op *pickBackOp) Type() hm.Type { return hm.NewFnType(mat2, mat2, mat2) }

func (op *pickBackOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := op.shapes(in, 2)
	if err != nil {
		return nil, err
	}
	return s[0].Clone(), nil
}

func (op *pickBackOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *pickBackOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, err := op.dense(in, 2)
	if err != nil {
		return nil, err
	}
	s := t[0].Shape()
	out := op.output(prealloc, s, t[0].Dtype())
	switch g := t[1].Data().(type) {
	case []float32:
		unpick(out.Data().([]float32), g, op.fwd.cols, s[1])
	case []float64:
		unpick(out.Data().([]float64), g, op.fwd.cols, s[1])
	}
	return out, nil
}

// unpick sets out to 0 but out[i*c + cols.pos(i)] = g[i].
func unpick[T floats](out, g []T, cols *plan, c int) {
	clear(out)
	for i, v := range g {
		out[i*c+cols.pos(i)] = v
	}
}
