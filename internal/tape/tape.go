// Package tape compiles the part of a Gorgonia graph that its outputs need into a tape machine.
//
// gorgonia.Grad differentiates every input of an op on the path from the cost to the nodes
// differentiated against, also the inputs that nothing differentiates against (a constant
// temperature, a loss's side information, a correction computed from the sampler's q): their
// gradient nodes join the graph, and gorgonia.Compile, which compiles the whole graph, runs them
// at every step although nothing reads them. Compiling only the subgraph of the values read
// after a run removes that work; in a loss written as an expression over a B×C score matrix it
// is several B×C passes per step.
package tape // import "github.com/samplingbias/workbench/internal/tape"

import (
	"fmt"
	"runtime"

	"gorgonia.org/gorgonia"
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
	m := gorgonia.NewTapeMachine(g, gorgonia.WithPrecompiled(prog, locMap))
	runtime.SetFinalizer(m, nil)
	return m, nil
}
