package losses

import (
	"fmt"
	"hash"
	"hash/fnv"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// StopGradient is x in the forward pass and a constant for differentiation:
// no gradient flows through it into x.
func StopGradient(x *G.Node) *G.Node { return G.Must(G.ApplyOp(stopOp{}, x)) }

// stopOp is the identity with no derivative (DiffWRT false).
type stopOp struct{}

func (stopOp) Arity() int { return 1 }
func (stopOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(a, a)
}
func (stopOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) { return shapeOf(in) }
func (stopOp) Do(in ...G.Value) (G.Value, error)                 { return in[0], nil }
func (stopOp) ReturnsPtr() bool                                  { return true }
func (stopOp) CallsExtern() bool                                 { return false }
func (stopOp) OverwritesInput() int                              { return -1 }
func (stopOp) WriteHash(h hash.Hash)                             { fmt.Fprint(h, "losses.stopGradient") }
func (op stopOp) Hashcode() uint32                               { return hashOf(op) }
func (stopOp) String() string                                    { return "stopGradient" }
func (stopOp) DiffWRT(int) []bool                                { return []bool{false} }
func (stopOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("losses: stopGradient has no derivative")
}

func shapeOf(in []G.DimSizer) (tensor.Shape, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("losses: want 1 input shape, got %d", len(in))
	}
	s, ok := in[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("losses: input shape is %T", in[0])
	}
	return s.Clone(), nil
}

func hashOf(op interface{ WriteHash(hash.Hash) }) uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

// binding holds the side-information tensors of an expression, the values of
// its input nodes, and fills them from the Step: the Step's log-probabilities
// and rewards are copied (converted to the dtype), and the positive column
// and the negative mask come from the plan, the derivation the fused kernel
// uses too.
type binding struct {
	s      Settings
	layout Layout
	step   *Step
	b, c   int
	plan   plan
	// pos, neg, negLog (B×C); logQ, logP, logPrior, gram (1×C); posLogQ,
	// posLogP, posLogPrior, rewards (B×1).
	pos, neg, negLog, logQ, logP, logPrior, gram, posLogQ, posLogP, posLogPrior, rewards *tensor.Dense
}

// newBinding adds the side-information input nodes to g and fills e's fields.
func newBinding(s Settings, layout Layout, st *Step, e *Expr, g *G.ExprGraph, dt tensor.Dtype) *binding {
	bd := &binding{s: s, layout: layout, step: st, b: e.B, c: e.C}
	input := func(name string, rows, cols int, t **tensor.Dense) *G.Node {
		*t = tensor.New(tensor.Of(dt), tensor.WithShape(rows, cols))
		return G.NewMatrix(g, dt, G.WithShape(rows, cols), G.WithName(name), G.WithValue(*t))
	}
	b, c := e.B, e.C
	e.Pos = input("loss.pos", b, c, &bd.pos)
	e.Neg = input("loss.neg", b, c, &bd.neg)
	e.NegLog = input("loss.negLog", b, c, &bd.negLog)
	e.LogQ = input("loss.logQ", 1, c, &bd.logQ)
	e.LogP = input("loss.logP", 1, c, &bd.logP)
	e.LogPrior = input("loss.logPrior", 1, c, &bd.logPrior)
	e.Gram = input("loss.gram", 1, c, &bd.gram)
	e.PosLogQ = input("loss.posLogQ", b, 1, &bd.posLogQ)
	e.PosLogP = input("loss.posLogP", b, 1, &bd.posLogP)
	e.PosLogPrior = input("loss.posLogPrior", b, 1, &bd.posLogPrior)
	e.Rewards = input("loss.rewards", b, 1, &bd.rewards)
	return bd
}

// bind validates the Step and fills the tensors.
func (bd *binding) bind() error {
	st := bd.step
	if err := bd.plan.build(&bd.s, st, bd.layout, bd.b, bd.c); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		x    []float64
		n    int
		dim  string
		t    *tensor.Dense
	}{
		{"LogQ", st.LogQ, bd.c, "C", bd.logQ}, {"LogP", st.LogP, bd.c, "C", bd.logP},
		{"LogPrior", st.LogPrior, bd.c, "C", bd.logPrior}, {"PosLogQ", st.PosLogQ, bd.b, "B", bd.posLogQ},
		{"PosLogP", st.PosLogP, bd.b, "B", bd.posLogP}, {"PosLogPrior", st.PosLogPrior, bd.b, "B", bd.posLogPrior},
		{"Rewards", st.Rewards, bd.b, "B", bd.rewards},
	} {
		if f.x != nil {
			if err := checkLen(f.name, f.x, f.n, f.dim); err != nil {
				return err
			}
		}
		switch d := f.t.Data().(type) {
		case []float32:
			fill(d, f.x, f.name == "Rewards")
		case []float64:
			fill(d, f.x, f.name == "Rewards")
		}
	}
	switch d := bd.pos.Data().(type) {
	case []float32:
		fillMasks(&bd.plan, d, bd.neg.Data().([]float32), bd.negLog.Data().([]float32), bd.gram.Data().([]float32))
	case []float64:
		fillMasks(&bd.plan, d, bd.neg.Data().([]float64), bd.negLog.Data().([]float64), bd.gram.Data().([]float64))
	}
	return nil
}

// fill copies x into d; a nil x gives 1 (rewards) or NaN.
func fill[T floats](d []T, x []float64, ones bool) {
	if x == nil {
		v := T(math.NaN())
		if ones {
			v = 1
		}
		for k := range d {
			d[k] = v
		}
		return
	}
	for k, v := range x {
		d[k] = T(v)
	}
}

// fillMasks writes the positive indicator, the negative mask and its log
// from the plan p, and the Gramian column weights 1/C_g.
func fillMasks[T floats](p *plan, pos, neg, negLog, gram []T) {
	c := p.c
	negInf := T(math.Inf(-1))
	for i := range p.b {
		pc := p.pos(i)
		for j := range c {
			k := i*c + j
			switch {
			case j == pc:
				pos[k], neg[k], negLog[k] = 1, 0, negInf
			case p.masked(i, j, pc):
				pos[k], neg[k], negLog[k] = 0, 0, negInf
			default:
				pos[k], neg[k], negLog[k] = 0, 1, 0
			}
		}
	}
	from := gramianFrom(p.layout)
	for j := range gram {
		gram[j] = 0
		if j >= from {
			gram[j] = T(1 / float64(c-from))
		}
	}
}

// bindOp is the identity on the scores that first binds the Step to the
// side-information inputs: the expression reads the scores through it, so
// the tape runs it before any node that reads those inputs.
type bindOp struct{ bd *binding }

func (*bindOp) Arity() int { return 1 }
func (*bindOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(a, a)
}
func (*bindOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) { return shapeOf(in) }
func (op *bindOp) Do(in ...G.Value) (G.Value, error) {
	if err := op.bd.bind(); err != nil {
		return nil, err
	}
	return in[0], nil
}
func (*bindOp) ReturnsPtr() bool     { return true }
func (*bindOp) CallsExtern() bool    { return false }
func (*bindOp) OverwritesInput() int { return -1 }

// WriteHash includes the binding's address: two losses on the same scores
// with different Steps must never be merged by the graph.
func (op *bindOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "losses.bind{%p}", op.bd) }
func (op *bindOp) Hashcode() uint32      { return hashOf(op) }
func (*bindOp) String() string           { return "losses.bind" }
func (*bindOp) DiffWRT(int) []bool       { return []bool{true} }
func (*bindOp) SymDiff(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	return G.Nodes{grad}, nil
}
