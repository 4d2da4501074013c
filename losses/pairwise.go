package losses

import (
	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/reuse"
	"github.com/samplingbias/workbench/internal/simd"
)

// PairwiseSurrogate is σ(s_ij − s_ip) (R×C): the surrogate activation σ of every score's
// difference from its row's positive's score (Yang et al.'s d_ij), the composition of SubPos of
// the scores and σ in one pass over the scores, its gradient in one, with the values and
// gradients of the composition bit for bit (TestPairwiseSurrogate).
func (e *Expr) PairwiseSurrogate(s Surrogate) *G.Node {
	fn := s.fn()
	return G.Must(G.ApplyOp(&pairSurrogateOp{primOp: newPrim("pairwise" + elemNames[fn]), fn: fn, cols: &e.bd.plan},
		e.Scores, e.Pos()))
}

// pairSurrogateOp is PairwiseSurrogate for the positive columns cols.pos(i). Its second input,
// Pos, is not read: it orders the op after the binding that builds cols (as pickOp's). The
// forward pass keeps σ'(d) for the gradient.
type pairSurrogateOp struct {
	primOp
	fn   elemFn
	cols *plan
	keep kept
	rows any // the [][]T rows of differences, one per goroutine
}

func (op *pairSurrogateOp) Arity() int    { return 2 }
func (op *pairSurrogateOp) Type() hm.Type { return hm.NewFnType(mat2, mat2, mat2) }

func (op *pairSurrogateOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return op.atPositives(in)
}

func (op *pairSurrogateOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *pairSurrogateOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, err := op.dense(in, 2)
	if err != nil {
		return nil, err
	}
	s := t[0].Shape()
	out := op.output(prealloc, s, t[0].Dtype())
	keep := op.keep.get(s, t[0].Dtype())
	switch x := t[0].Data().(type) {
	case []float32:
		pairSurrogates(out.Data().([]float32), keep.Data().([]float32), x, op, s[1])
	case []float64:
		pairSurrogates(out.Data().([]float64), keep.Data().([]float64), x, op, s[1])
	}
	return out, nil
}

// pairSurrogates writes σ(x_ij − x_ip) into out and σ' there into keep, each row's differences
// formed as SubPos forms them (x_ij + (−x_ip)) in a row buffer, rows split among the cores.
func pairSurrogates[T floats](out, keep, x []T, op *pairSurrogateOp, c int) {
	parts := parallel.Parts(len(x), primMin, defaultWorkers())
	prev, _ := op.rows.([][]T)
	rows := reuse.GrowRows(prev, parts, c)
	op.rows = rows
	parallel.Split(len(x)/c, parts, func(part, lo, hi int) {
		d := rows[part]
		for i := lo; i < hi; i++ {
			v := [1]T{-x[i*c+op.cols.pos(i)]}
			bcastRow(d, x[i*c:(i+1)*c], v[:], false)
			simd.Surrogates(surrogateFns[op.fn], out[i*c:(i+1)*c], keep[i*c:(i+1)*c], d, 1)
		}
	})
}

func (op *pairSurrogateOp) DiffWRT(int) []bool { return []bool{true, false} }

// back is the op of the gradient.
func (op *pairSurrogateOp) back() *pairSurrogateBackOp {
	return &pairSurrogateBackOp{newGrad(op.Name+"Grad", 2), op}
}

func (op *pairSurrogateOp) SymDiff(in G.Nodes, out, g *G.Node) (G.Nodes, error) {
	dx, err := G.ApplyOp(op.back(), g, out)
	return G.Nodes{dx, nil}, err
}

// DoDiff is the lisp machine's differentiation.
func (op *pairSurrogateOp) DoDiff(_ G.ExecutionContext, in G.Nodes, out *G.Node) error {
	return doDiff(in, out, func(_ []G.Value, g G.Value) ([]G.Value, error) {
		dx, err := op.back().Do(g, out.Value())
		return []G.Value{dx, nil}, err
	})
}

// pairSurrogateBackOp is pairSurrogateOp's gradient from the output's gradient g (its first input;
// the second, the forward op's output, is not read: it orders the op after the forward pass whose
// σ' it reads): d_ij = g_ij·σ'_ij, the product rounded, then d_ip = −Σ_{j≠p} d_ij, the sum in
// float64 (simd.Sum), as the gradients of σ and of SubPos give them one after the other.
type pairSurrogateBackOp struct {
	gradOp
	fwd *pairSurrogateOp
}

func (op *pairSurrogateBackOp) Do(in ...G.Value) (G.Value, error) {
	return op.UsePreallocDo(nil, in...)
}

func (op *pairSurrogateBackOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, err := op.dense(in, 2)
	if err != nil {
		return nil, err
	}
	k, err := op.fwd.keep.of(op.Name, t[0])
	if err != nil {
		return nil, err
	}
	s := t[0].Shape()
	out := op.output(prealloc, s, t[0].Dtype())
	switch g := t[0].Data().(type) {
	case []float32:
		pairSurrogateGrad(out.Data().([]float32), g, k.Data().([]float32), op.fwd.cols, s[1])
	case []float64:
		pairSurrogateGrad(out.Data().([]float64), g, k.Data().([]float64), op.fwd.cols, s[1])
	}
	return out, nil
}

// pairSurrogateGrad writes pairSurrogateBackOp's gradient into out, rows split among the cores.
func pairSurrogateGrad[T floats](out, g, k []T, cols *plan, c int) {
	parallel.Split(len(g)/c, parallel.Parts(len(g), primMin, defaultWorkers()), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			o, p := out[i*c:(i+1)*c], cols.pos(i)
			bcastRow(o, g[i*c:(i+1)*c], k[i*c:(i+1)*c], true)
			o[p] = T(-(simd.Sum(o[:p]) + simd.Sum(o[p+1:])))
		}
	})
}

var (
	_ G.SDOp            = (*pairSurrogateOp)(nil)
	_ G.ADOp            = (*pairSurrogateOp)(nil)
	_ G.UsePreallocDoer = (*pairSurrogateOp)(nil)
	_ G.UsePreallocDoer = (*pairSurrogateBackOp)(nil)
)
