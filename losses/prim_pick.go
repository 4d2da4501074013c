package losses

import (
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// pickOp is x_{i,col(i)} as a B×1 matrix, for a B×C x and the column col(i) = cols.pos(i) of
// each row: the positive's gather of Expr.AtPos, which equals RowDot(x, Pos) for the one-hot
// Pos of the same columns (where x is finite) in one read per row instead of a pass over the
// B×C entries. Its second input, that Pos, is not read; it orders the op after the binding that
// builds cols for the step, and, an input node of that binding's own, keeps the picks of two
// bindings apart. ∂/∂x_ij = g_i at j = col(i) and 0 elsewhere (pickBackOp).
type pickOp struct {
	primOp
	cols *plan
}

func newPick(cols *plan) *pickOp { return &pickOp{newPrim("pick"), cols} }

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
	dx, err := G.ApplyOp(newPickBack(op), in[0], g, in[1])
	return G.Nodes{dx, nil}, err
}

// DoDiff is the lisp machine's differentiation.
func (op *pickOp) DoDiff(_ G.ExecutionContext, in G.Nodes, out *G.Node) error {
	return doDiff(in, out, func(v []G.Value, g G.Value) ([]G.Value, error) {
		dx, err := newPickBack(op).Do(v[0], g, v[1])
		return []G.Value{dx, nil}, err
	})
}

// pickBackOp is pickOp's gradient: a B×C matrix (the shape of its first input) holding g_i at
// (i, col(i)) and 0 elsewhere, for the B×1 output gradient g (its second input). Its third
// input, the forward pick's Pos, is not read: it keeps the gradients of two bindings' picks
// apart.
type pickBackOp struct {
	primOp
	fwd *pickOp
}

func newPickBack(fwd *pickOp) *pickBackOp { return &pickBackOp{newPrim("pickGrad"), fwd} }

func (op *pickBackOp) Arity() int    { return 3 }
func (op *pickBackOp) Type() hm.Type { return hm.NewFnType(mat2, mat2, mat2, mat2) }

func (op *pickBackOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := op.shapes(in, 3)
	if err != nil {
		return nil, err
	}
	return s[0].Clone(), nil
}

func (op *pickBackOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *pickBackOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, err := op.dense(in, 3)
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
