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

// DoDiff adds nothing: no gradient flows through.
func (stopOp) DoDiff(G.ExecutionContext, G.Nodes, *G.Node) error { return nil }

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

// side names an input node of the side information.
type side int

const (
	sidePos side = iota
	sideNeg
	sideNegLog
	sideGram
	sideLogQ
	sideLogP
	sideLogPrior
	sidePosLogQ
	sidePosLogP
	sidePosLogPrior
	sideRewards
	sideItems
	nSides
)

// sideInfo describes an input: its node name, shape (per entry, per column
// or per row) and, for the copied ones, the Step field.
var sideInfo = [nSides]struct {
	name  string
	shape byte // 'm' B×C, 'c' 1×C, 'r' B×1
	field func(*Step) []float64
}{
	sidePos:         {"loss.pos", 'm', nil},
	sideNeg:         {"loss.neg", 'm', nil},
	sideNegLog:      {"loss.negLog", 'm', nil},
	sideGram:        {"loss.gram", 'c', nil},
	sideLogQ:        {"LogQ", 'c', func(st *Step) []float64 { return st.LogQ }},
	sideLogP:        {"LogP", 'c', func(st *Step) []float64 { return st.LogP }},
	sideLogPrior:    {"LogPrior", 'c', func(st *Step) []float64 { return st.LogPrior }},
	sidePosLogQ:     {"PosLogQ", 'r', func(st *Step) []float64 { return st.PosLogQ }},
	sidePosLogP:     {"PosLogP", 'r', func(st *Step) []float64 { return st.PosLogP }},
	sidePosLogPrior: {"PosLogPrior", 'r', func(st *Step) []float64 { return st.PosLogPrior }},
	sideRewards:     {"Rewards", 'r', func(st *Step) []float64 { return st.Rewards }},
	sideItems:       {"loss.items", 'r', nil},
}

// binding holds the side-information input nodes of an expression, created
// when the expression first asks for them, and fills their tensors from the
// Step: the Step's log-probabilities and rewards are copied (converted to the
// dtype), and the positive column, the negative mask (accidental hits and
// logq_probability = dedupe's further copies of an item) and the Gramian
// columns and weights come from the plan, the derivation the fused kernel
// uses too.
type binding struct {
	s      Settings
	layout Layout
	step   *Step
	b, c   int
	g      *G.ExprGraph
	dt     tensor.Dtype
	plan   plan
	masks  maskState
	nodes  [nSides]*G.Node
	vals   [nSides]*tensor.Dense
}

// input returns the input node k, adding it to the graph on first use.
func (bd *binding) input(k side) *G.Node {
	if n := bd.nodes[k]; n != nil {
		return n
	}
	rows, cols := bd.b, bd.c
	switch sideInfo[k].shape {
	case 'c':
		if !bd.s.PerRow { // per-row columns are B×C
			rows = 1
		}
	case 'r':
		cols = 1
	}
	bd.vals[k] = tensor.New(tensor.Of(bd.dt), tensor.WithShape(rows, cols))
	name := sideInfo[k].name
	if sideInfo[k].field != nil {
		name = "loss." + name
	}
	bd.nodes[k] = G.NewMatrix(bd.g, bd.dt, G.WithShape(rows, cols), G.WithName(name), G.WithValue(bd.vals[k]))
	return bd.nodes[k]
}

// bind validates the Step and fills the tensors of the inputs in use.
func (bd *binding) bind() error {
	st := bd.step
	if err := bd.plan.build(&bd.s, st, bd.layout, bd.b, bd.c); err != nil {
		return err
	}
	for k, info := range sideInfo {
		t := bd.vals[k]
		if t == nil || info.field == nil {
			continue
		}
		x := info.field(st)
		if x != nil {
			n, dim := bd.plan.entries()
			if info.shape == 'r' {
				n, dim = bd.b, "B"
			}
			if err := checkLen(info.name, x, n, dim); err != nil {
				return err
			}
		}
		switch d := t.Data().(type) {
		case []float32:
			fill(d, x, side(k) == sideRewards)
		case []float64:
			fill(d, x, side(k) == sideRewards)
		}
	}
	if err := fillItems(bd.vals[sideItems], st.Items); err != nil {
		return err
	}
	switch bd.dt {
	case tensor.Float32:
		fillMasks[float32](&bd.plan, bd.vals, &bd.masks)
	case tensor.Float64:
		fillMasks[float64](&bd.plan, bd.vals, &bd.masks)
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

// maskState is what fillMasks keeps between steps: whether the mask tensors hold their
// defaults (every entry a negative) apart from the entries listed, and the flat indices i·C + j
// of the entries the last step made positives (pos) and masked columns (masked).
type maskState struct {
	filled      bool
	pos, masked []int
}

// fillMasks writes, into those of the tensors vals in use, the positive indicator, the negative
// mask and its log from the plan p (accidental hits and dedupe's further copies masked), and
// the Gramian column weights w_j/C_g (w = the plan's gramW, 1 where it has none). Every entry
// is a negative but the B positives and the masked entries, so after the first step only the
// entries the last step changed are restored and the new ones set: O(B + masked) per step,
// not O(B·C).
func fillMasks[T floats](p *plan, vals [nSides]*tensor.Dense, ms *maskState) {
	pos, neg, negLog := dataOf[T](vals[sidePos]), dataOf[T](vals[sideNeg]), dataOf[T](vals[sideNegLog])
	if pos != nil || neg != nil || negLog != nil {
		set := func(k int, isPos, isNeg bool) {
			if pos != nil {
				pos[k] = 0
				if isPos {
					pos[k] = 1
				}
			}
			if neg != nil {
				neg[k] = 0
				if isNeg {
					neg[k] = 1
				}
			}
			if negLog != nil {
				negLog[k] = T(math.Inf(-1))
				if isNeg {
					negLog[k] = 0
				}
			}
		}
		if !ms.filled {
			for k := range p.b * p.c {
				set(k, false, true)
			}
			ms.filled = true
		}
		for _, k := range ms.pos {
			set(k, false, true)
		}
		for _, k := range ms.masked {
			set(k, false, true)
		}
		ms.pos = ms.pos[:0]
		for i := range p.b {
			ms.pos = append(ms.pos, i*p.c+p.pos(i))
		}
		ms.masked = p.appendMasked(ms.masked[:0])
		for _, k := range ms.masked {
			set(k, false, false)
		}
		for _, k := range ms.pos {
			set(k, true, false)
		}
	}
	if gram := dataOf[T](vals[sideGram]); gram != nil { // 1×C, or B×C per row
		c := p.c
		for k := range gram {
			gram[k] = 0
			if k%c >= p.gramFrom {
				w := 1.0
				if p.gramW != nil {
					w = p.gramW[k]
				}
				gram[k] = T(w / float64(c-p.gramFrom))
			}
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

// DoDiff is the automatic differentiation of the lisp machine: the identity's
// gradient passes through.
func (*bindOp) DoDiff(_ G.ExecutionContext, inputs G.Nodes, output *G.Node) error {
	gout, err := output.Grad()
	if err != nil {
		return err
	}
	return addGrad(inputs[0], gout)
}
