package models

import (
	"fmt"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/ops"
	"github.com/samplingbias/workbench/internal/reuse"
)

// The custom Gorgonia ops of the towers and the score matrix, built on the workbench's op base
// (internal/ops): each is named after its function and parameters, its identity in the graph,
// owns its output tensor and overwrites it on every execution (one allocation per graph, not per
// step; a value is valid until the next run of the machine), and implements its gradient with
// further custom ops (gorgonia.SDOp) so that the tape machine runs forward and backward in one
// program:
//
//	denseOp       Y = act(X·W + b)            ∂: reluGradOp, matMulOp (dX = dZ·Wᵀ, dW = Xᵀ·dZ), colSumOp
//	l2NormOp      Y = Z / sqrt(‖Z‖² + ε²)     ∂: l2NormGradOp
//	scoresOp      S = U·Vᵀ (one Gemm NoTrans/Trans, no Transpose copy), or the first layout
//	              S = [⟨u_i, v_i⟩ | U·V[R:]ᵀ], each row's own ⟨u_i, v_own(i,k)⟩ last (the
//	              sampler's candidates.Geometry)
//	                                          ∂: matMulOp or scoresGradOp
//	rowsOp        V = Y[idx] (the item rows from the distinct items' tower rows)
//	                                          ∂: scatterRowsOp

var (
	tvA    = hm.TypeVariable('a')
	matrix = gorgonia.TensorType{Dims: 2, Of: tvA}
	vector = gorgonia.TensorType{Dims: 1, Of: tvA}
)

// outBuf is the output tensor an op owns (ops.Out: valid until the next run of its machine).
type outBuf[T float] struct{ out ops.Out }

// get returns the op's output tensor with the given shape and its elements.
func (o *outBuf[T]) get(shape ...int) (*tensor.Dense, []T) {
	t := o.out.Get(dtypeOf[T](), shape...)
	return t, t.Data().([]T)
}

// dtypeOf is the tensor dtype of T.
func dtypeOf[T float]() tensor.Dtype {
	var z T
	if _, ok := any(z).(float32); ok {
		return tensor.Float32
	}
	return tensor.Float64
}

// The ops' constructors: each names its op after its function and every parameter its output
// depends on (ops.Base).

func newDense[T float](name string, relu, needDX bool, rep *repeats) *denseOp[T] {
	return &denseOp[T]{Base: ops.Base{Name: fmt.Sprintf("Dense{%s,relu=%t}", name, relu)}, name: name, relu: relu, needDX: needDX, rep: rep}
}

func newReLUGrad[T float](name string) *reluGradOp[T] {
	return &reluGradOp[T]{Base: ops.Base{Name: fmt.Sprintf("ReLUGrad{%s}", name)}}
}

func newMatMul[T float](name string, tA, tB bool, zeroTail int) *matMulOp[T] {
	return &matMulOp[T]{Base: ops.Base{Name: fmt.Sprintf("MatMul{%s,tA=%t,tB=%t,zeroTail=%d}", name, tA, tB, zeroTail)},
		tA: tA, tB: tB, zeroTail: zeroTail}
}

func newColSum[T float](name string) *colSumOp[T] {
	return &colSumOp[T]{Base: ops.Base{Name: fmt.Sprintf("ColSum{%s}", name)}}
}

func newL2Norm[T float](name string, eps float64) *l2NormOp[T] {
	return &l2NormOp[T]{Base: ops.Base{Name: fmt.Sprintf("L2Norm{%s,eps=%g}", name, eps)}, name: name, eps: eps}
}

func newL2NormGrad[T float](name string, eps float64) *l2NormGradOp[T] {
	return &l2NormGradOp[T]{Base: ops.Base{Name: fmt.Sprintf("L2NormGrad{%s,eps=%g}", name, eps)}, eps: eps}
}

// newScores is the score op of the candidates of geometry g in a step of r rows. With idx not
// nil, the op's V holds distinct rows and item row k is V[(*idx)[k]], idx rewritten by the
// trainer at every step (with the same length).
func newScores[T float](g candidates.Geometry, r int, idx *[]int32) *scoresOp[T] {
	first, perRow, constant := g.Layout == candidates.First, g.PerRow, g.Constant(r)
	return &scoresOp[T]{Base: ops.Base{Name: fmt.Sprintf("Scores{first=%t,perRow=%d,constant=%d,indexed=%t}", first, perRow, constant, idx != nil)},
		first: first, perRow: perRow, constant: constant, idx: idx}
}

func newScoresGrad[T float](wrtV bool, scores *scoresOp[T]) *scoresGradOp[T] {
	return &scoresGradOp[T]{Base: ops.Base{Name: fmt.Sprintf("ScoresGrad{wrtV=%t,%v}", wrtV, scores)}, wrtV: wrtV, scores: scores}
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
	ops.Base
	outBuf[T]
	name   string
	relu   bool
	needDX bool // whether the gradient w.r.t. X is wanted (embedding inputs, hidden layers)
	// rep, when not nil, lists the step's rows of X that repeat an earlier row (the trainer's,
	// filled before every run): their rows of Y are copied rather than computed, the same bits.
	rep     *repeats
	compact [2][]T // the distinct entities' rows of X (where gemmRows gathers them) and of X·W
}

func (op *denseOp[T]) Arity() int    { return 3 }
func (op *denseOp[T]) Type() hm.Type { return hm.NewFnType(matrix, matrix, vector, matrix) }

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
	x, w, b := data[T](in[0]), data[T](in[1]), data[T](in[2])
	if !op.rep.active() || len(op.rep.of) != n {
		denseForward(x, w, b, y, n, k, out, op.relu)
		return t, nil
	}
	op.compact[1] = reuse.Grow(op.compact[1], len(op.rep.first)*out)
	gemmRows(op.rep.first, out, k, x, k, w, op.compact[1], &op.compact[0])
	biasAct(y[:n*out], op.compact[1], op.rep.of, b, out, op.relu)
	return t, nil
}

func (op *denseOp[T]) DiffWRT(int) []bool { return []bool{op.needDX, true, true} }

func (op *denseOp[T]) SymDiff(in gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	dz := grad
	var err error
	if op.relu {
		if dz, err = gorgonia.ApplyOp(newReLUGrad[T](op.name), output, grad); err != nil {
			return nil, err
		}
	}
	var dx *gorgonia.Node
	if op.needDX {
		if dx, err = gorgonia.ApplyOp(newMatMul[T](op.name+".dX", false, true, 0), dz, in[1]); err != nil {
			return nil, err
		}
	}
	dw, err := gorgonia.ApplyOp(newMatMul[T](op.name+".dW", true, false, 0), in[0], dz)
	if err != nil {
		return nil, err
	}
	db, err := gorgonia.ApplyOp(newColSum[T](op.name+".db"), dz)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dx, dw, db}, nil
}

// denseForward sets y = act(x·w + b) for x n×in, w in×out (act = ReLU when relu, else identity).
func denseForward[T float](x, w, b, y []T, n, in, out int, relu bool) {
	gemm(false, false, n, out, in, 1, x, in, w, out, 0, y, out)
	biasAct(y[:n*out], y, nil, b, out, relu)
}

// ---- reluGradOp ----

// reluGradOp computes G ⊙ [Y > 0] from (Y, G).
type reluGradOp[T float] struct {
	ops.Base
	outBuf[T]
}

func (op *reluGradOp[T]) Arity() int    { return 2 }
func (op *reluGradOp[T]) Type() hm.Type { return hm.NewFnType(matrix, matrix, matrix) }

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
	ops.Base
	outBuf[T]
	tA, tB   bool
	zeroTail int // rows of the result at the end set to zero (constant inputs' gradients)
}

func (op *matMulOp[T]) Arity() int    { return 2 }
func (op *matMulOp[T]) Type() hm.Type { return hm.NewFnType(matrix, matrix, matrix) }

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
	ops.Base
	outBuf[T]
}

func (op *colSumOp[T]) Arity() int    { return 1 }
func (op *colSumOp[T]) Type() hm.Type { return hm.NewFnType(matrix, vector) }

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
	ops.Base
	outBuf[T]
	name string
	eps  float64
}

func (op *l2NormOp[T]) Arity() int    { return 1 }
func (op *l2NormOp[T]) Type() hm.Type { return hm.NewFnType(matrix, matrix) }

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
	dz, err := gorgonia.ApplyOp(newL2NormGrad[T](op.name, op.eps), in[0], output, grad)
	return gorgonia.Nodes{dz}, err
}

// l2NormGradOp computes the gradient of l2NormOp from (Z, Y, G).
type l2NormGradOp[T float] struct {
	ops.Base
	outBuf[T]
	eps float64
}

func (op *l2NormGradOp[T]) Arity() int    { return 3 }
func (op *l2NormGradOp[T]) Type() hm.Type { return hm.NewFnType(matrix, matrix, matrix, matrix) }

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

// scoresOp computes the raw score matrix of a step's candidates (candidates.Geometry) from U
// (R×d, a row per score row) and V (item rows×d). In the diagonal and corpus layouts
// S = U·Vᵀ (R×rows). In the first layout V holds the R positives followed by m shared negatives
// and S (R×(1+m)) has S[i,0] = ⟨u_i, v_i⟩ and S[i,1+j] = ⟨u_i, v_{R+j}⟩. A sampler drawing perRow
// items for each row alone (Geometry.PerRow) puts them last in V, R blocks of perRow, and row i
// scores its own block in its last perRow columns: S[i, C−perRow+k] = ⟨u_i, v_{shared+i·perRow+k}⟩,
// shared = rows − R·perRow.
//
// With idx (indexed), V holds the step's distinct items and item row k is V[idx[k]]: the shared
// item rows are gathered (a few more than R), and each row's own are read where they are, never
// gathered into a matrix of R·perRow rows; the gradient w.r.t. V adds each item row's into its
// distinct row.
type scoresOp[T float] struct {
	ops.Base
	outBuf[T]
	first    bool
	perRow   int
	constant int        // the trailing rows of V held constant: their gradient is zero (Diagonal only)
	idx      *[]int32   // the item rows' rows of V; nil: V holds the item rows
	vs       rowsBuf[T] // the shared item rows gathered from V (indexed)
}

// rowsBuf is a buffer of gathered rows that an op reuses from step to step.
type rowsBuf[T float] struct{ buf []T }

// gather returns the rows idx of v (d columns), gathered into the buffer.
func (r *rowsBuf[T]) gather(v []T, idx []int32, d int) []T {
	r.buf = reuse.Grow(r.buf, len(idx)*d)
	parallelRows(len(idx), d, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			copy(r.buf[k*d:(k+1)*d], v[int(idx[k])*d:int(idx[k]+1)*d])
		}
	})
	return r.buf
}

// itemRows returns the number of item rows of V's n rows.
func (op *scoresOp[T]) itemRows(n int) int {
	if op.idx != nil {
		return len(*op.idx)
	}
	return n
}

// shared returns the shared item rows (shared×d) of V, and where each row's own items are: the
// rows of w that follow the shared rows in V (own nil), or, indexed, the rows own of w = V.
func (op *scoresOp[T]) shared(v []T, shared, d int, buf *rowsBuf[T]) (vs, w []T, own []int32) {
	if op.idx == nil {
		return v[:shared*d], v[shared*d:], nil
	}
	idx := *op.idx
	return buf.gather(v, idx[:shared], d), v, idx[shared:]
}

func (op *scoresOp[T]) Arity() int    { return 2 }
func (op *scoresOp[T]) Type() hm.Type { return hm.NewFnType(matrix, matrix, matrix) }

// cols returns the number of score columns for b rows of U and rows of V, and the number of
// item rows every row scores (shared).
func (op *scoresOp[T]) cols(b, rows int) (c, shared int, err error) {
	shared = rows - b*op.perRow
	lead := 0 // the item rows before the shared columns: the First layout's positives
	if op.first {
		lead = b
	}
	if shared < lead {
		return 0, 0, fmt.Errorf("%v: V has %d rows, fewer than the %d positives and %d own rows of %d rows of U", op, rows, lead, b*op.perRow, b)
	}
	c = shared + op.perRow
	if op.first {
		c = 1 + shared - b + op.perRow
	}
	return c, shared, nil
}

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
	c, _, err := op.cols(b, op.itemRows(rows))
	if err != nil {
		return nil, err
	}
	return tensor.Shape{b, c}, nil
}

func (op *scoresOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	b, d := valShape2(in[0])
	rows, _ := valShape2(in[1])
	u, v := data[T](in[0]), data[T](in[1])
	c, shared, err := op.cols(b, op.itemRows(rows))
	if err != nil {
		return nil, err
	}
	if err := op.checkIdx(rows); err != nil {
		return nil, err
	}
	t, s := op.get(b, c)
	vs, w, own := op.shared(v, shared, d, &op.vs)
	if op.first {
		rowDot(s, c, u, vs[:b*d], d)
		gemm(false, true, b, shared-b, d, 1, u, d, vs[b*d:], d, 0, s[1:], c)
	} else {
		gemm(false, true, b, shared, d, 1, u, d, vs, d, 0, s, c)
	}
	if op.perRow > 0 {
		ownScores(s[c-op.perRow:], c, u, w, own, d, op.perRow)
	}
	return t, nil
}

// checkIdx checks that every index is a row of V's rows (indexed).
func (op *scoresOp[T]) checkIdx(rows int) error {
	if op.idx == nil {
		return nil
	}
	for k, i := range *op.idx {
		if i < 0 || int(i) >= rows {
			return fmt.Errorf("%v: item row %d is row %d of %d", op, k, i, rows)
		}
	}
	return nil
}

func (op *scoresOp[T]) DiffWRT(int) []bool { return []bool{true, true} }

func (op *scoresOp[T]) SymDiff(in gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	var du, dv *gorgonia.Node
	var err error
	if op.first || op.perRow > 0 || op.idx != nil {
		du, err = gorgonia.ApplyOp(newScoresGrad(false, op), grad, in[0], in[1])
		if err == nil {
			dv, err = gorgonia.ApplyOp(newScoresGrad(true, op), grad, in[0], in[1])
		}
	} else {
		du, err = gorgonia.ApplyOp(newMatMul[T]("scores.dU", false, false, 0), grad, in[1])
		if err == nil {
			dv, err = gorgonia.ApplyOp(newMatMul[T]("scores.dV", true, false, op.constant), grad, in[0])
		}
	}
	return gorgonia.Nodes{du, dv}, err
}

// scoresGradOp computes, from (G, U, V), the gradient of scoresOp's scores w.r.t. U or V where
// they are not one product (the First layout, and rows with their own columns): with shared
// columns G_s (the First layout's after column 0) over the shared item rows V_s,
// dU = G_s·V_s (+ G[:,0]⊙V[:B] under First) + Σ_k G[i, own k]·v_{own(i,k)}, and dV_s = G_sᵀ·U
// (dV[:B] = G[:,0]⊙U under First), dv_{own(i,k)} = G[i, own k]·u_i.
type scoresGradOp[T float] struct {
	ops.Base
	outBuf[T]
	wrtV   bool
	scores *scoresOp[T]
	vs     rowsBuf[T] // the shared item rows (indexed: gathered; wrtV: their gradient)
}

func (op *scoresGradOp[T]) Arity() int    { return 3 }
func (op *scoresGradOp[T]) Type() hm.Type { return hm.NewFnType(matrix, matrix, matrix, matrix) }

func (op *scoresGradOp[T]) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	if op.wrtV {
		return in[2].(tensor.Shape).Clone(), nil
	}
	return in[1].(tensor.Shape).Clone(), nil
}

func (op *scoresGradOp[T]) Do(in ...gorgonia.Value) (gorgonia.Value, error) {
	b, c := valShape2(in[0])
	_, d := valShape2(in[1])
	rows, _ := valShape2(in[2])
	g, u, v := data[T](in[0]), data[T](in[1]), data[T](in[2])
	first, perRow, idx := op.scores.first, op.scores.perRow, op.scores.idx
	shared := op.scores.itemRows(rows) - b*perRow
	gs, ns, lead := g, shared, 0 // the shared columns of G, their number, the positives before them
	if first {
		gs, ns, lead = g[1:], shared-b, b
	}
	gOwn := g[c-perRow:]
	if op.wrtV {
		t, dv := op.get(rows, d)
		var dvs []T // the shared rows' gradient: dV's own rows, or (indexed) a buffer
		if idx == nil {
			dvs = dv[:shared*d]
		} else {
			op.vs.buf = reuse.Grow(op.vs.buf, shared*d)
			dvs = op.vs.buf
		}
		if first {
			scaleRows(dvs[:b*d], g, c, u, d)
		}
		gemm(true, false, ns, d, b, 1, gs, c, u, d, 0, dvs[lead*d:], d)
		if idx == nil {
			if perRow > 0 {
				ownGradV(dv[shared*d:], gOwn, c, u, d, perRow)
			}
			return t, nil
		}
		clear(dv)
		addRowsAt(dv, (*idx)[:shared], dvs, d)
		if perRow > 0 {
			ownGradVAt(dv, gOwn, c, u, (*idx)[shared:], d, perRow)
		}
		return t, nil
	}
	t, du := op.get(b, d)
	vs, w, own := op.scores.shared(v, shared, d, &op.vs)
	gemm(false, false, b, d, ns, 1, gs, c, vs[lead*d:], d, 0, du, d)
	if first {
		addScaledRows(du, g, c, vs[:b*d], d)
	}
	if perRow > 0 {
		ownGradU(du, gOwn, c, w, own, d, perRow)
	}
	return t, nil
}
