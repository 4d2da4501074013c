package models

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The custom Gorgonia ops of the towers and the score matrix. Each op owns its output tensor and
// overwrites it on every execution (one allocation per graph, not per step), and implements its
// gradient with further custom ops (gorgonia.SDOp) so that the tape machine runs forward and
// backward in one program:
//
//	denseOp       Y = act(X·W + b)            ∂: reluGradOp, matMulOp (dX = dZ·Wᵀ, dW = Xᵀ·dZ), colSumOp
//	l2NormOp      Y = Z / sqrt(‖Z‖² + ε²)     ∂: l2NormGradOp
//	scoresOp      S = U·Vᵀ (one Gemm NoTrans/Trans, no Transpose copy), or the First layout
//	              S = [⟨u_i, v_i⟩ | U·V[B:]ᵀ]  ∂: matMulOp or firstGradOp

var (
	tvA    = hm.TypeVariable('a')
	matrix = gorgonia.TensorType{Dims: 2, Of: tvA}
	vector = gorgonia.TensorType{Dims: 1, Of: tvA}
)

// outBuf is the output tensor an op owns.
type outBuf[T float] struct{ out *tensor.Dense }

// get returns the op's output tensor with the given shape, allocated on first use.
func (o *outBuf[T]) get(shape ...int) (*tensor.Dense, []T) {
	if o.out == nil || !o.out.Shape().Eq(tensor.Shape(shape)) {
		n := 1
		for _, s := range shape {
			n *= s
		}
		o.out = tensor.New(tensor.WithShape(shape...), tensor.WithBacking(make([]T, n)))
	}
	return o.out, o.out.Data().([]T)
}

// opCommon implements the boilerplate methods of gorgonia.Op for an op whose String identifies
// it within a graph.
type opCommon struct{}

func (opCommon) ReturnsPtr() bool     { return false }
func (opCommon) CallsExtern() bool    { return false }
func (opCommon) OverwritesInput() int { return -1 }

func writeHash(h hash.Hash, s fmt.Stringer) { fmt.Fprint(h, s.String()) }

func hashcode(s fmt.Stringer) uint32 {
	h := fnv.New32a()
	writeHash(h, s)
	return h.Sum32()
}

// data returns the elements of a value.
func data[T float](v gorgonia.Value) []T { return v.Data().([]T) }

func shape2(d gorgonia.DimSizer) (int, int, error) {
	s, ok := d.(tensor.Shape)
	if !ok || len(s) != 2 {
		return 0, 0, fmt.Errorf("expected a matrix shape, got %v", d)
	}
	return s[0], s[1], nil
}

func valShape2(v gorgonia.Value) (int, int) {
	s := v.Shape()
	return s[0], s[1]
}

// ---- denseOp ----

// denseOp computes Y = act(X·W + b) for X n×in, W in×out, b out.
type denseOp[T float] struct {
	opCommon
	outBuf[T]
	name   string
	relu   bool
	needDX bool // whether the gradient w.r.t. X is wanted (embedding inputs, hidden layers)
}

func (op *denseOp[T]) Arity() int            { return 3 }
func (op *denseOp[T]) Type() hm.Type         { return hm.NewFnType(matrix, matrix, vector, matrix) }
func (op *denseOp[T]) String() string        { return fmt.Sprintf("Dense{%s,relu=%t}", op.name, op.relu) }
func (op *denseOp[T]) Hashcode() uint32      { return hashcode(op) }
func (op *denseOp[T]) WriteHash(h hash.Hash) { writeHash(h, op) }

func (op *denseOp[T]) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	n, k, err := shape2(in[0])
	if err != nil {
		return nil, err
	}
	k2, out, err := shape2(in[1])
	if err != nil {
		return nil, err
	}
	if k != k2 {
		return nil, fmt.Errorf("%v: X is %d×%d but W is %d×%d", op, n, k, k2, out)
	}
	return tensor.Shape{n, out}, nil
}

func (op *denseOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	n, k := valShape2(in[0])
	_, out := valShape2(in[1])
	t, y := op.get(n, out)
	denseForward(data[T](in[0]), data[T](in[1]), data[T](in[2]), y, n, k, out, op.relu)
	return t, nil
}

func (op *denseOp[T]) DiffWRT(int) []bool { return []bool{op.needDX, true, true} }

func (op *denseOp[T]) SymDiff(in gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	dz := grad
	var err error
	if op.relu {
		if dz, err = gorgonia.ApplyOp(&reluGradOp[T]{name: op.name}, output, grad); err != nil {
			return nil, err
		}
	}
	var dx *gorgonia.Node
	if op.needDX {
		if dx, err = gorgonia.ApplyOp(&matMulOp[T]{name: op.name + ".dX", tB: true}, dz, in[1]); err != nil {
			return nil, err
		}
	}
	dw, err := gorgonia.ApplyOp(&matMulOp[T]{name: op.name + ".dW", tA: true}, in[0], dz)
	if err != nil {
		return nil, err
	}
	db, err := gorgonia.ApplyOp(&colSumOp[T]{name: op.name + ".db"}, dz)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dx, dw, db}, nil
}

// denseForward sets y = act(x·w + b) for x n×in, w in×out (act = ReLU when relu, else identity).
func denseForward[T float](x, w, b, y []T, n, in, out int, relu bool) {
	gemm(false, false, n, out, in, 1, x, in, w, out, 0, y, out)
	biasAct(y[:n*out], b, out, relu)
}

// ---- reluGradOp ----

// reluGradOp computes G ⊙ [Y > 0] from (Y, G).
type reluGradOp[T float] struct {
	opCommon
	outBuf[T]
	name string
}

func (op *reluGradOp[T]) Arity() int            { return 2 }
func (op *reluGradOp[T]) Type() hm.Type         { return hm.NewFnType(matrix, matrix, matrix) }
func (op *reluGradOp[T]) String() string        { return fmt.Sprintf("ReLUGrad{%s}", op.name) }
func (op *reluGradOp[T]) Hashcode() uint32      { return hashcode(op) }
func (op *reluGradOp[T]) WriteHash(h hash.Hash) { writeHash(h, op) }

func (op *reluGradOp[T]) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	return in[0].(tensor.Shape).Clone(), nil
}

func (op *reluGradOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	n, h := valShape2(in[0])
	t, dz := op.get(n, h)
	reluGrad(dz, data[T](in[0]), data[T](in[1]))
	return t, nil
}

// ---- matMulOp ----

// matMulOp computes op(A)·op(B) with one Gemm (gradient graphs only; not differentiable).
type matMulOp[T float] struct {
	opCommon
	outBuf[T]
	name     string
	tA, tB   bool
	zeroTail int // rows of the result at the end set to zero (constant inputs' gradients)
}

func (op *matMulOp[T]) Arity() int    { return 2 }
func (op *matMulOp[T]) Type() hm.Type { return hm.NewFnType(matrix, matrix, matrix) }
func (op *matMulOp[T]) String() string {
	return fmt.Sprintf("MatMul{%s,tA=%t,tB=%t,zeroTail=%d}", op.name, op.tA, op.tB, op.zeroTail)
}
func (op *matMulOp[T]) Hashcode() uint32      { return hashcode(op) }
func (op *matMulOp[T]) WriteHash(h hash.Hash) { writeHash(h, op) }

// dims returns m, n, k of op(A) (m×k) · op(B) (k×n) from the stored shapes.
func (op *matMulOp[T]) dims(ar, ac, br, bc int) (m, n, k, k2 int) {
	m, k = ar, ac
	if op.tA {
		m, k = ac, ar
	}
	k2, n = br, bc
	if op.tB {
		k2, n = bc, br
	}
	return m, n, k, k2
}

func (op *matMulOp[T]) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	ar, ac, err := shape2(in[0])
	if err != nil {
		return nil, err
	}
	br, bc, err := shape2(in[1])
	if err != nil {
		return nil, err
	}
	m, n, k, k2 := op.dims(ar, ac, br, bc)
	if k != k2 {
		return nil, fmt.Errorf("%v: inner dimensions %d and %d differ", op, k, k2)
	}
	return tensor.Shape{m, n}, nil
}

func (op *matMulOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	ar, ac := valShape2(in[0])
	br, bc := valShape2(in[1])
	m, n, k, _ := op.dims(ar, ac, br, bc)
	t, c := op.get(m, n)
	live := m - op.zeroTail
	gemm(op.tA, op.tB, live, n, k, 1, data[T](in[0]), ac, data[T](in[1]), bc, 0, c, n)
	clear(c[live*n:])
	return t, nil
}

// ---- colSumOp ----

// colSumOp sums the rows of a matrix (the bias gradient).
type colSumOp[T float] struct {
	opCommon
	outBuf[T]
	name string
}

func (op *colSumOp[T]) Arity() int            { return 1 }
func (op *colSumOp[T]) Type() hm.Type         { return hm.NewFnType(matrix, vector) }
func (op *colSumOp[T]) String() string        { return fmt.Sprintf("ColSum{%s}", op.name) }
func (op *colSumOp[T]) Hashcode() uint32      { return hashcode(op) }
func (op *colSumOp[T]) WriteHash(h hash.Hash) { writeHash(h, op) }

func (op *colSumOp[T]) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	_, h, err := shape2(in[0])
	if err != nil {
		return nil, err
	}
	return tensor.Shape{h}, nil
}

func (op *colSumOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	_, h := valShape2(in[0])
	t, s := op.get(h)
	colSum(s, data[T](in[0]), h)
	return t, nil
}

// ---- l2NormOp ----

// l2NormOp normalises every row: Y = Z / sqrt(‖Z‖² + ε²). Unlike Gorgonia's Norm it has an
// epsilon, so a zero row gives a zero output and a finite gradient.
type l2NormOp[T float] struct {
	opCommon
	outBuf[T]
	name string
	eps  float64
}

func (op *l2NormOp[T]) Arity() int            { return 1 }
func (op *l2NormOp[T]) Type() hm.Type         { return hm.NewFnType(matrix, matrix) }
func (op *l2NormOp[T]) String() string        { return fmt.Sprintf("L2Norm{%s,eps=%g}", op.name, op.eps) }
func (op *l2NormOp[T]) Hashcode() uint32      { return hashcode(op) }
func (op *l2NormOp[T]) WriteHash(h hash.Hash) { writeHash(h, op) }

func (op *l2NormOp[T]) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	return in[0].(tensor.Shape).Clone(), nil
}

func (op *l2NormOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	n, d := valShape2(in[0])
	t, y := op.get(n, d)
	l2Norm(y, data[T](in[0]), d, op.eps)
	return t, nil
}

func (op *l2NormOp[T]) DiffWRT(int) []bool { return []bool{true} }

func (op *l2NormOp[T]) SymDiff(in gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	dz, err := gorgonia.ApplyOp(&l2NormGradOp[T]{name: op.name, eps: op.eps}, in[0], output, grad)
	return gorgonia.Nodes{dz}, err
}

// l2NormGradOp computes the gradient of l2NormOp from (Z, Y, G).
type l2NormGradOp[T float] struct {
	opCommon
	outBuf[T]
	name string
	eps  float64
}

func (op *l2NormGradOp[T]) Arity() int    { return 3 }
func (op *l2NormGradOp[T]) Type() hm.Type { return hm.NewFnType(matrix, matrix, matrix, matrix) }
func (op *l2NormGradOp[T]) String() string {
	return fmt.Sprintf("L2NormGrad{%s,eps=%g}", op.name, op.eps)
}
func (op *l2NormGradOp[T]) Hashcode() uint32      { return hashcode(op) }
func (op *l2NormGradOp[T]) WriteHash(h hash.Hash) { writeHash(h, op) }

func (op *l2NormGradOp[T]) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	return in[0].(tensor.Shape).Clone(), nil
}

func (op *l2NormGradOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	n, d := valShape2(in[0])
	t, dz := op.get(n, d)
	l2NormGrad(dz, data[T](in[0]), data[T](in[1]), data[T](in[2]), d, op.eps)
	return t, nil
}

// ---- scoresOp ----

// scoresOp computes the raw score matrix from U (B×d) and V (rows×d). In the Diagonal and
// Indexed layouts S = U·Vᵀ (B×rows). In the First layout V holds the B positives followed by m
// shared negatives and S (B×(1+m)) has S[i,0] = ⟨u_i, v_i⟩ and S[i,1+j] = ⟨u_i, v_{B+j}⟩.
type scoresOp[T float] struct {
	opCommon
	outBuf[T]
	first    bool
	constant int // the trailing rows of V held constant: their gradient is zero (Diagonal only)
}

func (op *scoresOp[T]) Arity() int    { return 2 }
func (op *scoresOp[T]) Type() hm.Type { return hm.NewFnType(matrix, matrix, matrix) }
func (op *scoresOp[T]) String() string {
	return fmt.Sprintf("Scores{first=%t,constant=%d}", op.first, op.constant)
}
func (op *scoresOp[T]) Hashcode() uint32      { return hashcode(op) }
func (op *scoresOp[T]) WriteHash(h hash.Hash) { writeHash(h, op) }

func (op *scoresOp[T]) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	b, d, err := shape2(in[0])
	if err != nil {
		return nil, err
	}
	rows, d2, err := shape2(in[1])
	if err != nil {
		return nil, err
	}
	if d != d2 {
		return nil, fmt.Errorf("%v: U has %d columns, V %d", op, d, d2)
	}
	if op.first {
		if rows < b {
			return nil, fmt.Errorf("%v: V has %d rows, fewer than the %d positives", op, rows, b)
		}
		return tensor.Shape{b, 1 + rows - b}, nil
	}
	return tensor.Shape{b, rows}, nil
}

func (op *scoresOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	b, d := valShape2(in[0])
	rows, _ := valShape2(in[1])
	u, v := data[T](in[0]), data[T](in[1])
	if !op.first {
		t, s := op.get(b, rows)
		gemm(false, true, b, rows, d, 1, u, d, v, d, 0, s, rows)
		return t, nil
	}
	c := 1 + rows - b
	t, s := op.get(b, c)
	rowDot(s, c, u, v[:b*d], d)
	gemm(false, true, b, c-1, d, 1, u, d, v[b*d:], d, 0, s[1:], c)
	return t, nil
}

func (op *scoresOp[T]) DiffWRT(int) []bool { return []bool{true, true} }

func (op *scoresOp[T]) SymDiff(in gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	var du, dv *gorgonia.Node
	var err error
	if op.first {
		du, err = gorgonia.ApplyOp(&firstGradOp[T]{wrtV: false}, grad, in[0], in[1])
		if err == nil {
			dv, err = gorgonia.ApplyOp(&firstGradOp[T]{wrtV: true}, grad, in[0], in[1])
		}
	} else {
		du, err = gorgonia.ApplyOp(&matMulOp[T]{name: "scores.dU"}, grad, in[1])
		if err == nil {
			dv, err = gorgonia.ApplyOp(&matMulOp[T]{name: "scores.dV", tA: true, zeroTail: op.constant}, grad, in[0])
		}
	}
	return gorgonia.Nodes{du, dv}, err
}

// firstGradOp computes, from (G, U, V), the gradient of the First-layout scores w.r.t. U
// (dU = G[:,0]⊙V[:B] + G[:,1:]·V[B:]) or w.r.t. V (dV[:B] = G[:,0]⊙U, dV[B:] = G[:,1:]ᵀ·U).
type firstGradOp[T float] struct {
	opCommon
	outBuf[T]
	wrtV bool
}

func (op *firstGradOp[T]) Arity() int            { return 3 }
func (op *firstGradOp[T]) Type() hm.Type         { return hm.NewFnType(matrix, matrix, matrix, matrix) }
func (op *firstGradOp[T]) String() string        { return fmt.Sprintf("FirstScoresGrad{wrtV=%t}", op.wrtV) }
func (op *firstGradOp[T]) Hashcode() uint32      { return hashcode(op) }
func (op *firstGradOp[T]) WriteHash(h hash.Hash) { writeHash(h, op) }

func (op *firstGradOp[T]) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	if op.wrtV {
		return in[2].(tensor.Shape).Clone(), nil
	}
	return in[1].(tensor.Shape).Clone(), nil
}

func (op *firstGradOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	b, c := valShape2(in[0])
	_, d := valShape2(in[1])
	rows, _ := valShape2(in[2])
	g, u, v := data[T](in[0]), data[T](in[1]), data[T](in[2])
	if op.wrtV {
		t, dv := op.get(rows, d)
		scaleRows(dv[:b*d], g, c, u, d)
		gemm(true, false, c-1, d, b, 1, g[1:], c, u, d, 0, dv[b*d:], d)
		return t, nil
	}
	t, du := op.get(b, d)
	gemm(false, false, b, d, c-1, 1, g[1:], c, v[b*d:], d, 0, du, d)
	addScaledRows(du, g, c, v[:b*d], d)
	return t, nil
}
