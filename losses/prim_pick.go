package losses

import (
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/simd"
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
	s, err := op.atPositives(in)
	if err != nil {
		return nil, err
	}
	return vecShape(s, axisRows), nil
}

// atPositives returns the shape of the matrix of an op that reads it at its rows' positive
// columns, its two inputs being the matrix and the positives' one-hot Pos, or an error where they
// differ.
func (p primOp) atPositives(in []G.DimSizer) (tensor.Shape, error) {
	s, err := p.shapes(in, 2)
	if err != nil {
		return nil, err
	}
	if !s[0].Eq(s[1]) {
		return nil, fmt.Errorf("losses: %s of a matrix of shape %v at positives of shape %v", p.Name, s[0], s[1])
	}
	return s[0].Clone(), nil
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
	gradOp
	fwd *pickOp
}

func newPickBack(fwd *pickOp) *pickBackOp { return &pickBackOp{newGrad("pickGrad", 3), fwd} }

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

// SubPos is x_ij − x_ip (B×C): every entry of a row less the row's entry at its positive
// column, the differences of a pairwise loss (psl's d_ij = s_ij − s_ip). It is
// SubRows(x, AtPos(x)) in one pass, and so is its gradient, ∂/∂x_ij = g_ij for j ≠ p and
// ∂/∂x_ip = −Σ_{j≠p} g_ij (subPosBackOp), where the composition's scatters the row sums into a
// matrix of zeros and adds it to g.
func (e *Expr) SubPos(x *G.Node) *G.Node {
	return G.Must(G.ApplyOp(&subPosOp{newPrim("subPos"), &e.bd.plan}, x, e.Pos()))
}

// subPosOp is SubPos for the positive columns cols.pos(i). Its second input, Pos, is not read:
// it orders the op after the binding that builds cols (as pickOp's).
type subPosOp struct {
	primOp
	cols *plan
}

func (op *subPosOp) Arity() int    { return 2 }
func (op *subPosOp) Type() hm.Type { return hm.NewFnType(mat2, mat2, mat2) }

func (op *subPosOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) { return op.atPositives(in) }

func (op *subPosOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *subPosOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, err := op.dense(in, 2)
	if err != nil {
		return nil, err
	}
	s := t[0].Shape()
	out := op.output(prealloc, s, t[0].Dtype())
	switch x := t[0].Data().(type) {
	case []float32:
		subPos(out.Data().([]float32), x, op.cols, s[1])
	case []float64:
		subPos(out.Data().([]float64), x, op.cols, s[1])
	}
	return out, nil
}

// subPos sets out_ij = x_ij + (−x_ip), rows split among the cores.
func subPos[T floats](out, x []T, cols *plan, c int) {
	parallel.Split(len(x)/c, parallel.Parts(len(x), primMin, defaultWorkers()), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			v := [1]T{-x[i*c+cols.pos(i)]}
			bcastRow(out[i*c:(i+1)*c], x[i*c:(i+1)*c], v[:], false)
		}
	})
}

func (op *subPosOp) DiffWRT(int) []bool { return []bool{true, false} }

func (op *subPosOp) SymDiff(in G.Nodes, _, g *G.Node) (G.Nodes, error) {
	dx, err := G.ApplyOp(op.back(), g, in[1])
	return G.Nodes{dx, nil}, err
}

// back is the op of the gradient.
func (op *subPosOp) back() *subPosBackOp {
	return &subPosBackOp{newGrad(op.Name+"Grad", 2), op.cols}
}

// DoDiff is the lisp machine's differentiation.
func (op *subPosOp) DoDiff(_ G.ExecutionContext, in G.Nodes, out *G.Node) error {
	return doDiff(in, out, func(v []G.Value, g G.Value) ([]G.Value, error) {
		dx, err := op.back().Do(g, v[1])
		return []G.Value{dx, nil}, err
	})
}

// subPosBackOp is subPosOp's gradient from the output's gradient g (its first input; the second,
// the forward op's Pos, is not read): g with −Σ_{j≠p} g_ij at each row's positive, the row's
// sum formed in float64 (simd.Sum).
type subPosBackOp struct {
	gradOp
	cols *plan
}

func (op *subPosBackOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *subPosBackOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, err := op.dense(in, 2)
	if err != nil {
		return nil, err
	}
	s := t[0].Shape()
	out := op.output(prealloc, s, t[0].Dtype())
	switch g := t[0].Data().(type) {
	case []float32:
		subPosGrad(out.Data().([]float32), g, op.cols, s[1])
	case []float64:
		subPosGrad(out.Data().([]float64), g, op.cols, s[1])
	}
	return out, nil
}

// subPosGrad writes subPosBackOp's gradient into out, rows split among the cores.
func subPosGrad[T floats](out, g []T, cols *plan, c int) {
	parallel.Split(len(g)/c, parallel.Parts(len(g), primMin, defaultWorkers()), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			gi, p := g[i*c:(i+1)*c], cols.pos(i)
			copy(out[i*c:(i+1)*c], gi)
			out[i*c+p] = T(-(simd.Sum(gi[:p]) + simd.Sum(gi[p+1:])))
		}
	})
}

var (
	_ G.SDOp            = (*subPosOp)(nil)
	_ G.ADOp            = (*subPosOp)(nil)
	_ G.UsePreallocDoer = (*subPosOp)(nil)
	_ G.UsePreallocDoer = (*subPosBackOp)(nil)
)
