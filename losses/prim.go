package losses

import (
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/internal/ops"
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

// scalarOf is the element type of mat2, the type of a scalar operand.
var scalarOf = hm.TypeVariable('a')

// primMin is the number of matrix entries from which a primitive splits its rows among
// goroutines.
const primMin = 1 << 15

// primOp holds what the primitives share: the op base (ops.Base, named after the primitive), the
// output it owns (ops.Out: valid until the next run of its machine), and the shape checks.
type primOp struct {
	ops.Base
	out ops.Out
}

func newPrim(name string) primOp { return primOp{Base: ops.Base{Name: name}} }

// gradOp is the base of the gradient ops whose inputs are all matrices and whose output is a
// matrix of the shape of the first (the forward op's operand or the output's gradient). A
// gradient op is not differentiated again.
type gradOp struct {
	primOp
	arity int
}

func newGrad(name string, arity int) gradOp { return gradOp{primOp: newPrim(name), arity: arity} }

func (op *gradOp) Arity() int { return op.arity }

func (op *gradOp) Type() hm.Type {
	t := make([]hm.Type, op.arity+1)
	for i := range t {
		t[i] = mat2
	}
	return hm.NewFnType(t...)
}

func (op *gradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := op.shapes(in, op.arity)
	if err != nil {
		return nil, err
	}
	return s[0].Clone(), nil
}

// kept is what a forward primitive keeps for its gradient ops: a tensor of its operand's shape
// (the partial derivatives it computes with its output), owned like an output (ops.Out: valid
// until the next run of its machine), and the tensor of its last forward pass. A gradient op
// that reads it takes the forward op's output as an input, which orders it after the forward
// pass and keeps it apart from another forward pass's gradient (ops' identity rule).
type kept struct {
	out ops.Out
	t   *tensor.Dense
}

// get returns the tensor of shape s and dtype dt that the forward pass fills.
func (k *kept) get(s tensor.Shape, dt tensor.Dtype) *tensor.Dense {
	k.t = k.out.Get(dt, s...)
	return k.t
}

// of returns the tensor of the last forward pass on an operand like x, or an error naming the
// gradient op (name) that runs before it.
func (k *kept) of(name string, x *tensor.Dense) (*tensor.Dense, error) {
	if k.t == nil || !ops.Fits(k.t, x.Dtype(), x.Shape()...) {
		return nil, fmt.Errorf("losses: %s runs before its forward op", name)
	}
	return k.t, nil
}

// keptGradOp is the gradient of a forward primitive from the partial derivatives k it kept
// (keep): g ⊙ k for an elementwise function (ax = axisEach, g R×C), g_i·k_ij for a row
// reduction (axisRows, g R×1), and with scaled a·(g ⊙ k) for the scalar a of its last input. Its
// inputs are g, the forward op's R×C operand x (which gives its shape) and the forward op's
// output, which it does not read (see kept), then a when scaled.
type keptGradOp struct {
	primOp
	keep   *kept
	ax     axis
	scaled bool
	then   bool    // the product g·k then times by, rounded (the gradient of a fused MulScalar)
	by     float64 // with then
}

func newKeptGrad(name string, keep *kept, ax axis, scaled bool) *keptGradOp {
	return &keptGradOp{primOp: newPrim(name), keep: keep, ax: ax, scaled: scaled}
}

func (op *keptGradOp) Arity() int {
	if op.scaled {
		return 4
	}
	return 3
}

func (op *keptGradOp) Type() hm.Type {
	if op.scaled {
		return hm.NewFnType(mat2, mat2, mat2, scalarOf, mat2)
	}
	return hm.NewFnType(mat2, mat2, mat2, mat2)
}

func (op *keptGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	var s []tensor.Shape
	var err error
	if op.scaled {
		s, err = op.shapesWithScalar(in, 4)
	} else {
		s, err = op.shapes(in, 3)
	}
	if err != nil {
		return nil, err
	}
	if want := vecShape(s[1], op.ax); !s[0].Eq(want) {
		return nil, fmt.Errorf("losses: %s of a %v operand needs a %v gradient, got %v", op.Name, s[1], want, s[0])
	}
	return s[1].Clone(), nil
}

func (op *keptGradOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *keptGradOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	var t []*tensor.Dense
	var a float64
	var err error
	if op.scaled {
		t, a, err = op.denseWithScalar(in, 4)
	} else {
		t, err = op.dense(in, 3)
	}
	if err != nil {
		return nil, err
	}
	k, err := op.keep.of(op.Name, t[1])
	if err != nil {
		return nil, err
	}
	out := op.output(prealloc, k.Shape(), k.Dtype())
	c := k.Shape()[1]
	switch g := t[0].Data().(type) {
	case []float32:
		keptGrad(out.Data().([]float32), g, k.Data().([]float32), a, c, op)
	case []float64:
		keptGrad(out.Data().([]float64), g, k.Data().([]float64), a, c, op)
	}
	return out, nil
}

// keptGrad writes g·k along ax into out (then times by, with then), or with scaled a·g ⊙ k in
// float64, rows split among the cores.
func keptGrad[T floats](out, g, k []T, a float64, c int, op *keptGradOp) {
	if !op.scaled && op.then {
		by := [1]T{T(op.by)}
		parallel.Split(len(k)/c, parallel.Parts(len(k), primMin, defaultWorkers()), func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				o := out[i*c : (i+1)*c]
				bcastRow(o, k[i*c:(i+1)*c], rowOf(g, op.ax, i, c), true)
				bcastRow(o, o, by[:], true)
			}
		})
		return
	}
	if !op.scaled {
		bcast(out, k, g, c, true, op.ax)
		return
	}
	parallel.Split(len(k)/c, parallel.Parts(len(k), primMin, defaultWorkers()), func(_, lo, hi int) {
		for j := lo * c; j < hi*c; j++ {
			out[j] = T(a * float64(g[j]) * float64(k[j]))
		}
	})
}

func (op *keptGradOp) DiffWRT(n int) []bool { return make([]bool, n) }
func (op *keptGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("losses: %s has no gradient", op.Name)
}

// shapes returns the shapes of the input DimSizers, each a matrix.
func (p primOp) shapes(in []G.DimSizer, n int) ([]tensor.Shape, error) {
	if len(in) != n {
		return nil, fmt.Errorf("losses: %s takes %d inputs, got %d", p.Name, n, len(in))
	}
	out := make([]tensor.Shape, n)
	for i, d := range in {
		s, ok := d.(tensor.Shape)
		if !ok || len(s) != 2 {
			return nil, fmt.Errorf("losses: %s: input %d is not a matrix (%v)", p.Name, i, d)
		}
		out[i] = s
	}
	return out, nil
}

// dense returns the inputs as contiguous matrices of one float dtype.
func (p primOp) dense(in []G.Value, n int) ([]*tensor.Dense, error) {
	if len(in) != n {
		return nil, fmt.Errorf("losses: %s takes %d inputs, got %d", p.Name, n, len(in))
	}
	out := make([]*tensor.Dense, n)
	for i, v := range in {
		t, ok := v.(*tensor.Dense)
		if !ok || len(t.Shape()) != 2 || t.RequiresIterator() {
			return nil, fmt.Errorf("losses: %s: input %d is not a contiguous matrix (%T)", p.Name, i, v)
		}
		if t.Dtype() != tensor.Float32 && t.Dtype() != tensor.Float64 || i > 0 && t.Dtype() != out[0].Dtype() {
			return nil, fmt.Errorf("losses: %s: input %d has dtype %v", p.Name, i, t.Dtype())
		}
		out[i] = t
	}
	return out, nil
}

// shapesWithScalar returns the shapes of the n−1 matrices that come before a last, scalar,
// input.
func (p primOp) shapesWithScalar(in []G.DimSizer, n int) ([]tensor.Shape, error) {
	if len(in) != n {
		return nil, fmt.Errorf("losses: %s takes %d inputs, got %d", p.Name, n, len(in))
	}
	return p.shapes(in[:n-1], n-1)
}

// denseWithScalar returns the n−1 matrices that come before a last, scalar, input, and the
// scalar's value.
func (p primOp) denseWithScalar(in []G.Value, n int) ([]*tensor.Dense, float64, error) {
	if len(in) != n {
		return nil, 0, fmt.Errorf("losses: %s takes %d inputs, got %d", p.Name, n, len(in))
	}
	t, err := p.dense(in[:n-1], n-1)
	if err != nil {
		return nil, 0, err
	}
	switch a := in[n-1].(type) {
	case *G.F64:
		return t, float64(*a), nil
	case *G.F32:
		return t, float64(*a), nil
	}
	return nil, 0, fmt.Errorf("losses: %s: input %d is not a float scalar (%T)", p.Name, n-1, in[n-1])
}

// output is the op's output of shape s and dtype dt: the machine's preallocated value prealloc
// if it fits, else the op's own (ops.Out). A tape machine runs each op once per step, so an op
// reuses its output instead of allocating a B×C matrix at every step (Gorgonia's tape gives a
// preallocated output to few ops). Each node has its own op: the helpers of Expr and the
// gradients create one per node.
func (p *primOp) output(prealloc G.Value, s tensor.Shape, dt tensor.Dtype) *tensor.Dense {
	return p.out.Prealloc(prealloc, dt, s...)
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
	return &bcastOp{primOp: newPrim(name + axisNames[ax]), mul: mul, ax: ax}
}

func (op *bcastOp) Arity() int    { return 2 }
func (op *bcastOp) Type() hm.Type { return hm.NewFnType(mat2, mat2, mat2) }

func (op *bcastOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := op.shapes(in, 2)
	if err != nil {
		return nil, err
	}
	if want := vecShape(s[0], op.ax); !s[1].Eq(want) {
		hint := ""
		if op.ax != axisRows && len(s[1]) == 2 && s[1][0] == s[0][0] && s[1][1] == 1 {
			hint = " (a B×1 operand, one value per row, is for AddRows and MulRows; AddCols and MulCols take 1×C or B×C)"
		}
		return nil, fmt.Errorf("losses: %s of a %v matrix needs a %v vector, got %v%s", op.Name, s[0], want, s[1], hint)
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
	return &sumOp{newPrim(name + axisNames[ax]), prod, ax}
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
		return nil, fmt.Errorf("losses: %s of matrices of shapes %v and %v", op.Name, s[0], s[1])
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
		dx, err := G.ApplyOp(&expandOp{newPrim("expand"), op.ax}, g, in[0])
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
			dx, err := (&expandOp{newPrim("expand"), op.ax}).Do(g, v[0])
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
