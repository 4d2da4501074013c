// Package tape compiles the part of a Gorgonia graph that its outputs need into a tape machine.
//
// gorgonia.Grad differentiates every input of an op on the path from the cost to the nodes
// differentiated against, also the inputs that nothing differentiates against (a constant
// temperature, a loss's side information, a correction computed from the sampler's q): their
// gradient nodes join the graph, and gorgonia.Compile, which compiles the whole graph, runs them
// at every step although nothing reads them. Compiling only the subgraph of the values read
// after a run removes that work; in a loss written as an expression over a B×C score matrix it
// is several B×C passes per step.
//
// The machine computes with Engine, Gorgonia's standard engine with a faster float32 sum: the
// gradients a node receives from several ops are added by the engine of their tensors, which
// the machine sets, and the standard engine's loop on one core took a tenth to a third of such a
// loss's step.
package tape // import "github.com/samplingbias/workbench/internal/tape"

import (
	"fmt"
	"runtime"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/simd"
)

// Machine returns a tape machine that computes the values of outputs, and of every node they
// depend on, when it runs: the nodes of g that no output depends on are not compiled. Read only
// those values after a run.
//
// The machine has no finalizer. gorgonia.NewTapeMachine sets one (it releases CUDA contexts,
// and does nothing without the cuda build tag), and the garbage collector never frees an object
// with a finalizer that it can reach from itself (runtime.SetFinalizer): a machine whose graph
// holds an op that refers back to it, such as a loss op holding a pointer into the trainer that
// owns the machine, would keep the trainer, its graph and every buffer of its ops for the life of
// the process.
func Machine(g *gorgonia.ExprGraph, outputs ...*gorgonia.Node) (gorgonia.VM, error) {
	sub := g.ExactSubgraphRoots(outputs...)
	prog, locMap, err := gorgonia.CompileFunction(g, sub.Inputs(), outputs)
	if err != nil {
		return nil, fmt.Errorf("compiling the graph: %w", err)
	}
	m := gorgonia.NewTapeMachine(g, gorgonia.WithPrecompiled(prog, locMap), gorgonia.WithEngine(Engine{}))
	runtime.SetFinalizer(m, nil)
	return m, nil
}

// Engine is gorgonia.StandardEngine but for the sum of two contiguous float32 tensors of one
// shape without an increment, which it forms by simd.Add over the cores: the same sums.
type Engine struct {
	gorgonia.StandardEngine
}

// addMin is the number of values from which Add splits a sum among goroutines.
const addMin = 1 << 15

// Add is a + b (see tensor.Add for opts).
func (e Engine) Add(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	x, okA := a.(*tensor.Dense)
	y, okB := b.(*tensor.Dense)
	fo := tensor.ParseFuncOpts(opts...)
	reused, incr := fo.IncrReuse()
	if !okA || !okB || incr || !plain32(x) || !plain32(y) || !x.Shape().Eq(y.Shape()) {
		return e.StandardEngine.Add(a, b, opts...)
	}
	var out *tensor.Dense
	switch {
	case reused != nil:
		r, ok := reused.(*tensor.Dense)
		if !ok || !plain32(r) || !r.Shape().Eq(x.Shape()) {
			return e.StandardEngine.Add(a, b, opts...)
		}
		out = r
	case !fo.Safe():
		out = x
	default:
		out = tensor.New(tensor.WithShape(x.Shape().Clone()...), tensor.Of(tensor.Float32), tensor.WithEngine(e))
	}
	o, xs, ys := out.Data().([]float32), x.Data().([]float32), y.Data().([]float32)
	parallel.Split(len(o), parallel.Parts(len(o), addMin, runtime.GOMAXPROCS(0)), func(_, lo, hi int) {
		simd.Add(o[lo:hi], xs[lo:hi], ys[lo:hi])
	})
	return out, nil
}

// plain32 reports whether t is a contiguous float32 tensor of at least one value.
func plain32(t *tensor.Dense) bool {
	return t.Dtype() == tensor.Float32 && !t.RequiresIterator() && t.Size() > 0
}
