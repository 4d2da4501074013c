package losses

import (
	"fmt"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/simd"
)

// elemFn is a function that an elemOp applies to every entry of a matrix, computed together with
// its derivative. Where a function is −Inf (its argument is outside the domain where the term it
// stands for is positive, so that the term e^{f(x)} is 0), or a surrogate activation is 0 below
// its kink, its derivative is taken as 0: the term is 0 on a neighbourhood of the argument, and a
// 0 rather than 0·∞ keeps the gradient finite.
type elemFn int

const (
	elemTanh1    elemFn = iota // tanh x + 1
	elemAtan1                  // max(arctan x + 1, 0)
	elemReLU1                  // max(x + 1, 0)
	elemLog1mExp               // log(1 − e^x)
)

// elemNames name the ops by their function.
var elemNames = [...]string{elemTanh1: "tanh1", elemAtan1: "atan1", elemReLU1: "relu1", elemLog1mExp: "log1mExp"}

// surrogateFns are the simd functions of the surrogate activations, which compute them with their
// derivatives in the operands' precision (simd.Surrogates: tanh from one e^{−2|x|}; float64 as
// math to 1 or 2 ulp, float32 to 2–5 ulp, eight entries at a time in vector registers where the
// processor has them).
var surrogateFns = [...]simd.Surrogate{elemTanh1: simd.Tanh1, elemAtan1: simd.Atan1, elemReLU1: simd.ReLU1}

// log1mExp returns log(1 − e^x) and its derivative −e^x/(1 − e^x) = −1/expm1(−x), as Mächler
// (2012), "Accurately computing log(1 − exp(−|a|))": log(−expm1(x)) above −ln 2, log1p(−e^x)
// below; −Inf with derivative 0 for x ≥ 0.
func log1mExp(x float64) (y, dy float64) {
	switch {
	case x >= 0 || math.IsNaN(x):
		return math.Inf(-1), 0
	case x > -math.Ln2:
		return math.Log(-math.Expm1(x)), -1 / math.Expm1(-x)
	}
	return math.Log1p(-math.Exp(x)), -1 / math.Expm1(-x)
}

// elemOp is y_ij = a·f(x_ij) for a matrix x and a scalar a > 0 (its second input), f an elemFn.
// The forward pass keeps f'(x) for the gradient ops: ∂/∂x = g ⊙ a·f'(x) (keptGradOp) and
// ∂/∂a = Σ g ⊙ f(x) over the entries where f is finite (elemScaleGradOp, from y/a).
type elemOp struct {
	primOp
	fn   elemFn
	keep kept // f'(x) of the last forward pass
}

func newElem(fn elemFn) *elemOp { return &elemOp{primOp: newPrim(elemNames[fn]), fn: fn} }

func (op *elemOp) Arity() int    { return 2 }
func (op *elemOp) Type() hm.Type { return hm.NewFnType(mat2, scalarOf, mat2) }

func (op *elemOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := op.shapesWithScalar(in, 2)
	if err != nil {
		return nil, err
	}
	return s[0].Clone(), nil
}

func (op *elemOp) Do(in ...G.Value) (G.Value, error) { return op.UsePreallocDo(nil, in...) }

func (op *elemOp) UsePreallocDo(prealloc G.Value, in ...G.Value) (G.Value, error) {
	t, a, err := op.denseWithScalar(in, 2)
	if err != nil {
		return nil, err
	}
	x := t[0]
	out := op.output(prealloc, x.Shape(), x.Dtype())
	keep := op.keep.get(x.Shape(), x.Dtype())
	c := x.Shape()[1]
	switch d := x.Data().(type) {
	case []float32:
		elemEntries(out.Data().([]float32), keep.Data().([]float32), d, a, c, op.fn)
	case []float64:
		elemEntries(out.Data().([]float64), keep.Data().([]float64), d, a, c, op.fn)
	}
	return out, nil
}

// elemEntries writes a·f(x) into out and f'(x) into keep, rows split among the cores.
func elemEntries[T floats](out, keep, x []T, a float64, c int, fn elemFn) {
	parallel.Split(len(x)/c, parallel.Parts(len(x), primMin, defaultWorkers()), func(_, lo, hi int) {
		o, k, v := out[lo*c:hi*c], keep[lo*c:hi*c], x[lo*c:hi*c]
		if fn != elemLog1mExp {
			simd.Surrogates(surrogateFns[fn], o, k, v, a)
			return
		}
		for j, xv := range v {
			y, dy := log1mExp(float64(xv))
			o[j], k[j] = T(a*y), T(dy)
		}
	})
}

func (op *elemOp) DiffWRT(int) []bool { return []bool{true, true} }

// back and scaleGrad are the ops of the two gradients.
func (op *elemOp) back() *keptGradOp { return newKeptGrad(op.Name+"Back", &op.keep, axisEach, true) }
func (op *elemOp) scaleGrad() *elemScaleGradOp {
	return &elemScaleGradOp{newPrim(op.Name + "ScaleGrad")}
}

func (op *elemOp) SymDiff(in G.Nodes, out, g *G.Node) (G.Nodes, error) {
	dx, err := G.ApplyOp(op.back(), g, in[0], out, in[1])
	if err != nil {
		return nil, err
	}
	da, err := G.ApplyOp(op.scaleGrad(), g, out, in[1])
	return G.Nodes{dx, da}, err
}

// DoDiff is the lisp machine's differentiation.
func (op *elemOp) DoDiff(_ G.ExecutionContext, in G.Nodes, out *G.Node) error {
	return doDiff(in, out, func(v []G.Value, g G.Value) ([]G.Value, error) {
		dx, err := op.back().Do(g, v[0], out.Value(), v[1])
		if err != nil {
			return nil, err
		}
		da, err := op.scaleGrad().Do(g, out.Value(), v[1])
		return []G.Value{dx, da}, err
	})
}

// The forward ops of elementwise.go and rowprims.go differentiate both ways.
var (
	_, _, _ G.SDOp = (*elemOp)(nil), (*rowSoftplusOp)(nil), (*logSumPowOp)(nil)
	_, _, _ G.ADOp = (*elemOp)(nil), (*rowSoftplusOp)(nil), (*logSumPowOp)(nil)
)

// elemScaleGradOp is the scalar Σ_ij g_ij·y_ij/a over the finite y: the gradient of y = a·f(x)
// with respect to the scale a, from the gradient g, the forward output y and a (its three
// inputs). The entries where y = −Inf are terms that are 0 whatever a, and add nothing.
type elemScaleGradOp struct{ primOp }

func (op *elemScaleGradOp) Arity() int    { return 3 }
func (op *elemScaleGradOp) Type() hm.Type { return hm.NewFnType(mat2, mat2, scalarOf, scalarOf) }

func (op *elemScaleGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if _, err := op.shapesWithScalar(in, 3); err != nil {
		return nil, err
	}
	return tensor.ScalarShape(), nil
}

func (op *elemScaleGradOp) Do(in ...G.Value) (G.Value, error) {
	t, a, err := op.denseWithScalar(in, 3)
	if err != nil {
		return nil, err
	}
	switch g := t[0].Data().(type) {
	case []float32:
		return G.NewF32(float32(finiteDot(g, t[1].Data().([]float32)) / a)), nil
	default:
		return G.NewF64(finiteDot(g.([]float64), t[1].Data().([]float64)) / a), nil
	}
}

// finiteDot is Σ g_k·y_k over the finite y_k, in float64.
func finiteDot[T floats](g, y []T) float64 {
	s := 0.0
	for k, v := range y {
		if !math.IsInf(float64(v), 0) {
			s += float64(g[k]) * float64(v)
		}
	}
	return s
}

func (op *elemScaleGradOp) DiffWRT(int) []bool { return []bool{false, false, false} }
func (op *elemScaleGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("losses: %s has no gradient", op.Name)
}

// Log1mExp is log(1 − e^x) of every entry of a matrix, computed as Mächler (2012) does so that it
// is exact to rounding near 0 and far below it; it is −Inf for x ≥ 0, where 1 − e^x ≤ 0, with
// gradient 0 there (a max or a mask then drops it; see debiasedContrastiveExpr).
func Log1mExp(x *G.Node) *G.Node {
	return G.Must(G.ApplyOp(newElem(elemLog1mExp), x, constLike(x, 1)))
}
