package losses

import (
	"fmt"
	"hash"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/internal/parallel"
)

// The primitives of the expressions over a B×C matrix x and a vector along one of its axes: a
// row vector r (B×1, one value per row) or a column vector k (1×C, one value per column).
// Gorgonia's broadcast operations materialise the vector as a B×C matrix (a Repeat, whose
// gradient is a reduction of another B×C copy), and a log-sum-exp built of stock ops takes a
// row maximum, a broadcast subtraction, an exponential and a sum, each a B×C result allocated
// at every step. The ops below compute the same functions in one pass over x, into a buffer
// the tape machine reuses from step to step, and their gradients are again such ops:
//
//	x_ij + v, x_ij · v   (bcastOp)     ∂/∂x: g or g·v; ∂/∂v: Σ g or Σ g·x along the axis
//	Σ_j x_ij, Σ_i x_ij   (sumOp)       ∂/∂x: g broadcast (expandOp)
//	Σ x_ij·y_ij          (sumOp, prod) ∂/∂x: g·y; ∂/∂y: g·x
//	log(e^{a_i} + Σ_j e^{x_ij}) and that minus a_i (lseOp)
//	                                   ∂/∂x_ij: e^{x_ij − lse_i}·g_i, ∂/∂a_i: e^{a_i − lse_i}·g_i (lseBackOp)
//
// Each is tested against the stock expression it replaces (value and gradient, float32 and
// float64) and against finite differences.

// mat2 is the type of every primitive's operands: a matrix of any float dtype.
var mat2 = G.TensorType{Dims: 2, Of: hm.TypeVariable('a')}

// primMin is the number of matrix entries from which a primitive splits its rows among
// goroutines.
const primMin = 1 << 15

// primOp holds what the primitives share: their shape checks, allocation and hashing.
type primOp struct{ name string }

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

// output returns prealloc if it is a contiguous matrix of shape s and dtype dt, and a new one
// otherwise.
func output(prealloc G.Value, s tensor.Shape, dt tensor.Dtype) *tensor.Dense {
	if t, ok := prealloc.(*tensor.Dense); ok && t.Dtype() == dt && t.Shape().Eq(s) && !t.RequiresIterator() {
		return t
	}
	return tensor.New(tensor.WithShape(s...), tensor.Of(dt))
}

// bcastOp is x_ij + v or x_ij·v for a B×C x and v a row vector r_i (rows) or a column vector
// k_j (not rows).
type bcastOp struct {
	primOp
	mul, rows bool
}

func newBcast(mul, rows bool) *bcastOp {
	name := map[[2]bool]string{{false, false}: "addCols", {false, true}: "addRows", {true, false}: "mulCols", {true, true}: "mulRows"}[[2]bool{mul, rows}]
	return &bcastOp{primOp{name}, mul, rows}
}

func (op *bcastOp) Arity() int    { return 2 }
func (op *bcastOp) Type() hm.Type { return hm.NewFnType(mat2, mat2, mat2) }

func (op *bcastOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := op.shapes(in, 2)
	if err != nil {
		return nil, err
	}
	if want := vecShape(s[0], op.rows); !s[1].Eq(want) {
		return nil, fmt.Errorf("losses: %s of a %v matrix needs a %v vector, got %v", op.name, s[0], want, s[1])
	}
	return s[0].Clone(), nil
}

// vecShape is the shape of a row (B×1) or column (1×C) vector of a B×C matrix.
func vecShape(m tensor.Shape, rows bool) tensor.Shape {
	if rows {
		return tensor.Shape{m[0], 1}
	}
	return tensor.Shape{1, m[1]}
}

func (op *bcastOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *bcastOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, err := op.dense(in, 2)
	if err != nil {
		return nil, err
	}
	out := output(prealloc, t[0].Shape(), t[0].Dtype())
	switch x := t[0].Data().(type) {
	case []float32:
		bcast(out.Data().([]float32), x, t[1].Data().([]float32), t[0].Shape()[1], op.mul, op.rows)
	case []float64:
		bcast(out.Data().([]float64), x, t[1].Data().([]float64), t[0].Shape()[1], op.mul, op.rows)
	}
	return out, nil
}

func bcast[T floats](out, x, v []T, c int, mul, rows bool) {
	parallel.Split(len(x)/c, parallel.Parts(len(x), primMin, defaultWorkers()), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			o, xi := out[i*c:(i+1)*c], x[i*c:(i+1)*c]
			switch {
			case rows && mul:
				for j := range xi {
					o[j] = xi[j] * v[i]
				}
			case rows:
				for j := range xi {
					o[j] = xi[j] + v[i]
				}
			case mul:
				for j := range xi {
					o[j] = xi[j] * v[j]
				}
			default:
				for j := range xi {
					o[j] = xi[j] + v[j]
				}
			}
		}
	})
}

func (op *bcastOp) DiffWRT(int) []bool { return []bool{true, true} }

func (op *bcastOp) SymDiff(in G.Nodes, _, g *G.Node) (G.Nodes, error) {
	x, v := in[0], in[1]
	if !op.mul {
		dv, err := G.ApplyOp(newSum(false, op.rows), g)
		return G.Nodes{g, dv}, err
	}
	dx, err := G.ApplyOp(newBcast(true, op.rows), g, v)
	if err != nil {
		return nil, err
	}
	dv, err := G.ApplyOp(newSum(true, op.rows), g, x)
	return G.Nodes{dx, dv}, err
}

// DoDiff is the lisp machine's differentiation.
func (op *bcastOp) DoDiff(_ G.ExecutionContext, in G.Nodes, out *G.Node) error {
	return doDiff(in, out, func(v []G.Value, g G.Value) ([]G.Value, error) {
		if !op.mul {
			dv, err := newSum(false, op.rows).Do(g)
			return []G.Value{g, dv}, err
		}
		dx, err := newBcast(true, op.rows).Do(g, v[1])
		if err != nil {
			return nil, err
		}
		dv, err := newSum(true, op.rows).Do(g, v[0])
		return []G.Value{dx, dv}, err
	})
}

// sumOp is Σ_j x_ij (rows: a B×1 row vector) or Σ_i x_ij (a 1×C column vector) of a B×C x,
// or, with prod, of x_ij·y_ij.
type sumOp struct {
	primOp
	prod, rows bool
}

func newSum(prod, rows bool) *sumOp {
	name := map[[2]bool]string{{false, false}: "colSum", {false, true}: "rowSum", {true, false}: "colDot", {true, true}: "rowDot"}[[2]bool{prod, rows}]
	return &sumOp{primOp{name}, prod, rows}
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
	return vecShape(s[0], op.rows), nil
}

func (op *sumOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *sumOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, err := op.dense(in, op.arity())
	if err != nil {
		return nil, err
	}
	s := t[0].Shape()
	out := output(prealloc, vecShape(s, op.rows), t[0].Dtype())
	var y *tensor.Dense
	if op.prod {
		y = t[1]
	}
	switch x := t[0].Data().(type) {
	case []float32:
		sumAlong(out.Data().([]float32), x, dataOf[float32](y), s[1], op.rows)
	case []float64:
		sumAlong(out.Data().([]float64), x, dataOf[float64](y), s[1], op.rows)
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

// sumAlong writes into out the sums of x (times y if not nil) along each row (rows) or column,
// accumulated in float64.
func sumAlong[T floats](out, x, y []T, c int, rows bool) {
	b := len(x) / c
	parts := parallel.Parts(len(x), primMin, defaultWorkers())
	if rows {
		parallel.Split(b, parts, func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				out[i] = T(dot(x[i*c:(i+1)*c], y, i*c))
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
		dx, err := G.ApplyOp(&expandOp{primOp{"expand"}, op.rows}, g, in[0])
		return G.Nodes{dx}, err
	}
	dx, err := G.ApplyOp(newBcast(true, op.rows), in[1], g)
	if err != nil {
		return nil, err
	}
	dy, err := G.ApplyOp(newBcast(true, op.rows), in[0], g)
	return G.Nodes{dx, dy}, err
}

// DoDiff is the lisp machine's differentiation.
func (op *sumOp) DoDiff(_ G.ExecutionContext, in G.Nodes, out *G.Node) error {
	return doDiff(in, out, func(v []G.Value, g G.Value) ([]G.Value, error) {
		if !op.prod {
			dx, err := (&expandOp{primOp{"expand"}, op.rows}).Do(g, v[0])
			return []G.Value{dx}, err
		}
		dx, err := newBcast(true, op.rows).Do(v[1], g)
		if err != nil {
			return nil, err
		}
		dy, err := newBcast(true, op.rows).Do(v[0], g)
		return []G.Value{dx, dy}, err
	})
}

// expandOp is the row vector r (rows) or column vector k broadcast to the shape of its second
// input, a B×C matrix whose values it does not read: the gradient of sumOp.
type expandOp struct {
	primOp
	rows bool
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
	out := output(prealloc, s, t[0].Dtype())
	switch v := t[0].Data().(type) {
	case []float32:
		expand(out.Data().([]float32), v, s[1], op.rows)
	case []float64:
		expand(out.Data().([]float64), v, s[1], op.rows)
	}
	return out, nil
}

func expand[T floats](out, v []T, c int, rows bool) {
	for i := range len(out) / c {
		o := out[i*c : (i+1)*c]
		if rows {
			for j := range o {
				o[j] = v[i]
			}
		} else {
			copy(o, v)
		}
	}
}

func (op *expandOp) DiffWRT(int) []bool { return []bool{true, false} }

func (op *expandOp) SymDiff(_ G.Nodes, _, g *G.Node) (G.Nodes, error) {
	dv, err := G.ApplyOp(newSum(false, op.rows), g)
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
}

func newLSE(loss bool) *lseOp {
	name := "logSumExp"
	if loss {
		name = "softmaxLoss"
	}
	return &lseOp{primOp{name}, loss, &lseState{}}
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
	if want := vecShape(s[1], true); !s[0].Eq(want) {
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
	out := output(prealloc, t[0].Shape(), t[0].Dtype())
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
	parallel.Split(b, parallel.Parts(len(x), primMin, defaultWorkers()), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			xi, ai := x[i*c:(i+1)*c], float64(a[i])
			m := ai
			for _, v := range xi {
				if float64(v) > m {
					m = float64(v)
				}
			}
			var s float64
			if terms == nil {
				for _, v := range xi {
					s += expNeg(float64(v) - m)
				}
			} else {
				ti := terms[i*c : (i+1)*c]
				for j, v := range xi {
					e := expNeg(float64(v) - m)
					ti[j] = T(e)
					s += e
				}
			}
			st.m[i] = m
			if loss {
				l := math.Log1p(math.Expm1(ai-m) + s)
				out[i], st.logS[i], st.shift[i] = T((m-ai)+l), l, -((m - ai) + l)
			} else {
				l := math.Log(expNeg(ai-m) + s)
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
	return &lseBackOp{primOp{name}, fwd, share}
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
	out := output(prealloc, t[0].Shape(), t[0].Dtype())
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
				scale := expNeg(-l) * gi
				for j, e := range terms[i*c : (i+1)*c] {
					oi[j] = T(float64(e) * scale)
				}
				continue
			}
			for j, v := range x[i*c : (i+1)*c] {
				oi[j] = T(expNeg((float64(v)-m)-l) * gi)
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
			out[i] = T(expNeg(d) * float64(g[i]))
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
		dv, err := newSum(false, op.rows).Do(g)
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
