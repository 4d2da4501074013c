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

// mapOp applies a function to every entry of a matrix, computed in float64 as the fused kernels
// do (softplusSigmoid, sigmoidFrom: stable for any x) and split over rows like the other
// primitives:
//
//	softplus  log(1 + e^x)   ∂: σ(x), kept from the forward pass (keptGradOp)
//	sigmoid   σ(x)           ∂: σ(x)(1 − σ(x))   (mapSigmoidSlope, whose own gradient is not defined)
//
// The softplus op keeps the σ(x) it computes with log(1 + e^x) (both come from one e^{−|x|}) for
// its gradient, which the tape machine runs after it in the same step: the backward pass then
// costs one multiplication per entry instead of an exponential.
type mapOp struct {
	primOp
	fn   mapFn
	keep kept // σ(x) of the forward pass (softplus)
}

// mapFn is the function of a mapOp.
type mapFn int

const (
	mapSoftplus mapFn = iota
	mapSigmoid
	mapSigmoidSlope
)

func newMap(fn mapFn) *mapOp {
	return &mapOp{primOp: newPrim([...]string{"softplus", "sigmoid", "sigmoidSlope"}[fn]), fn: fn}
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
		keep = op.keep.get(t[0].Shape(), t[0].Dtype())
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
	return nil, fmt.Errorf("losses: %s has no gradient", op.Name)
}

func (op *mapOp) SymDiff(in G.Nodes, out, g *G.Node) (G.Nodes, error) {
	if op.fn == mapSoftplus {
		dx, err := G.ApplyOp(newKeptGrad("softplusBack", &op.keep, axisEach, false), g, in[0], out)
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
