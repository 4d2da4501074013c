package losses

import (
	"fmt"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/ops"
)

// StopGradient is x in the forward pass and a constant for differentiation:
// no gradient flows through it into x.
func StopGradient(x *G.Node) *G.Node {
	return G.Must(G.ApplyOp(stopOp{ops.Base{Name: "stopGradient"}}, x))
}

// stopOp is the identity with no derivative (DiffWRT false).
type stopOp struct{ ops.Base }

func (stopOp) Arity() int { return 1 }
func (stopOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(a, a)
}
func (stopOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) { return shapeOf(in) }
func (stopOp) Do(in ...G.Value) (G.Value, error)                 { return in[0], nil }
func (stopOp) ReturnsPtr() bool                                  { return true }
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

// derived names an input node that the binding derives from the plan rather than copies from a
// side input.
type derived int

const (
	derivedPos      derived = iota // R×C: 1 at each row's positive
	derivedNeg                     // R×C: 1 at each row's negatives
	derivedNegLog                  // R×C: log of derivedNeg
	derivedGram                    // 1×C (R×C per row or padded): the Gramian column weights
	derivedScale                   // 1×1: the reduction's scale of a padded geometry, 1/valid rows
	derivedItems                   // R×1: the corpus size M (the step's Items) in every row
	derivedCand                    // R×C: 1 at each row's positive and negatives
	derivedNegCount                // R×1: each row's number of negatives
	derivedLogM                    // 1×1: log m where columns may be masked (plan.negatives)
	nDerived
)

// derivedNames name the derived inputs' nodes.
var derivedNames = [nDerived]string{"pos", "neg", "negLog", "gram", "scale", "items", "cand", "negCount", "logM"}

// input is an input node of an expression and the tensor the binding fills at every run.
type input struct {
	node *G.Node
	val  *tensor.Dense
}

// sideInput is the input node of a side input: its values per column (1×C, or R×C with columns
// of each row's own), or per row (R×1: a PerRow side input's, or a PerItem one's at each row's
// positive, pos).
type sideInput struct {
	input
	name    string
	pos     bool
	rows    bool  // one value per row (R×1): pos, or a PerRow side input
	ones    bool  // the rewards of a step that has none: 1 for every row (set at every run)
	entries bool  // a value per entry (R×C, a PerEntry side input), 0 where the step lists none
	set     []int // the entries the last run set (entries), to be zeroed at the next
}

// binding holds the input nodes of an expression, created when the expression first asks for
// them, and fills their tensors from the step at every run: the side inputs are copied by name
// (converted to the dtype), and the positive column, the negative mask (accidental hits, dedupe's
// further copies of an item, padding rows' columns), the Gramian columns and weights and a padded
// geometry's scale come from the plan, the derivation the fused kernel uses too. The input nodes
// are named after the loss's place in its graph (id), so that two losses' inputs stay apart.
type binding struct {
	s       Settings
	geo     candidates.Geometry // the loss's
	step    *candidates.Step
	b, c    int
	g       *G.ExprGraph
	dt      tensor.Dtype
	id      int
	plan    plan
	masks   maskState
	derived [nDerived]input
	sides   []sideInput
}

// newMatrix adds an input node of shape rows×cols named after the loss and name.
func (bd *binding) newMatrix(name string, rows, cols int) input {
	v := tensor.New(tensor.Of(bd.dt), tensor.WithShape(rows, cols))
	n := G.NewMatrix(bd.g, bd.dt, G.WithShape(rows, cols), G.WithName(fmt.Sprintf("loss%d.%s", bd.id, name)), G.WithValue(v))
	return input{node: n, val: v}
}

// colRows is the number of rows of a per-column input: 1, or R when each row has columns of its
// own.
func (bd *binding) colRows() int {
	if bd.step.Geometry.PerRow > 0 {
		return bd.b
	}
	return 1
}

// derivedInput returns the derived input k, adding it to the graph on first use.
func (bd *binding) derivedInput(k derived) *G.Node {
	if n := bd.derived[k].node; n != nil {
		return n
	}
	rows, cols := bd.b, bd.c
	switch k {
	case derivedGram:
		if !bd.step.Geometry.Padded {
			rows = bd.colRows()
		}
	case derivedScale, derivedLogM:
		rows, cols = 1, 1
	case derivedItems:
		cols = 1
	case derivedNegCount:
		// fillMasks counts the changes of the negative mask: the mask takes part.
		bd.derivedInput(derivedNeg)
		cols = 1
	}
	bd.derived[k] = bd.newMatrix(derivedNames[k], rows, cols)
	return bd.derived[k].node
}

// side returns the input node of the side input name: its per-column values, or with pos its
// values at each row's positive. A name the step does not have panics with a
// *MissingSideError (Loss.Node returns it), but the rewards, which are 1 where the step has none.
func (bd *binding) side(name string, pos bool) *G.Node {
	for _, in := range bd.sides {
		if in.name == name && in.pos == pos {
			return in.node
		}
	}
	sd, ok := bd.step.Lookup(name)
	ones := !ok && name == candidates.Rewards
	switch {
	case !ok && !ones:
		panic(&MissingSideError{Variant: bd.s.Variant, Side: name, Sampler: bd.step.Geometry.Sampler, Has: bd.step.Describe()})
	case pos && (ones || sd.Kind != candidates.PerItem):
		panic(fmt.Errorf("losses: side input %s has a value %v, not per item: read it with Expr.Side", name, sd.Kind))
	}
	rows, cols, what := bd.b, 1, name
	perRow := pos || ones || sd.Kind == candidates.PerRow
	entries := !ones && sd.Kind == candidates.PerEntry
	switch {
	case pos:
		what = "pos." + name
	case entries:
		cols = bd.c
	case !perRow:
		rows, cols = bd.colRows(), bd.c
	}
	bd.sides = append(bd.sides, sideInput{input: bd.newMatrix(what, rows, cols), name: name, pos: pos, rows: perRow, ones: ones, entries: entries})
	return bd.sides[len(bd.sides)-1].node
}

// bind validates the step and fills the tensors of the inputs in use.
func (bd *binding) bind() error {
	st, p := bd.step, &bd.plan
	if err := p.build(&bd.s, bd.geo, st, bd.b, bd.c); err != nil {
		return err
	}
	for k := range bd.sides {
		in := &bd.sides[k]
		if in.entries {
			if err := bd.fillEntries(in); err != nil {
				return err
			}
			continue
		}
		var x []float64
		n, dim := bd.b, "R"
		// The rewards are 1 where the step has none, at this run.
		in.ones = in.name == candidates.Rewards && st.Row(candidates.Rewards) == nil
		// The sampler's probabilities are checked as the built-in variants' reads are, for an
		// expression of any variant, a registered one's too.
		logProb := in.name == candidates.LogQ || in.name == candidates.LogP
		var err error
		switch {
		case in.ones:
		case in.rows && logProb:
			x, err = p.rowLogs(st, in.name, false)
		case in.rows:
			x = st.Row(in.name)
		case logProb:
			x, err = p.colLogs(st, in.name, false)
			n, dim = p.entries()
		default:
			x = st.Col(in.name)
			n, dim = p.entries()
		}
		if err != nil {
			return err
		}
		if _, ok := st.Lookup(in.name); !ok && !in.ones {
			return p.missing(st, in.name)
		}
		if err := checkLen("side input "+in.name, x, n, dim); !in.ones && err != nil {
			return err
		}
		switch d := in.val.Data().(type) {
		case []float32:
			fillSide(d, x, p, *in)
		case []float64:
			fillSide(d, x, p, *in)
		}
	}
	if err := fillItems(bd.derived[derivedItems].val, st.Items); err != nil {
		return err
	}
	switch bd.dt {
	case tensor.Float32:
		fillMasks[float32](p, &bd.derived, &bd.masks)
	case tensor.Float64:
		fillMasks[float64](p, &bd.derived, &bd.masks)
	}
	return nil
}

// fillEntries writes the step's entries of the PerEntry side input in into its R×C tensor, after
// zeroing those the last run set: O(entries) per run. The indices must ascend within [0, R·C).
func (bd *binding) fillEntries(in *sideInput) error {
	st := bd.step
	if _, ok := st.Lookup(in.name); !ok {
		return bd.plan.missing(st, in.name)
	}
	idx, val := st.Entries(in.name)
	n := bd.b * bd.c
	for k, i := range idx {
		if i < 0 || i >= n || k > 0 && i <= idx[k-1] {
			return fmt.Errorf("losses: side input %s: entry %d has index %d, not ascending in [0, R·C = %d)", in.name, k, i, n)
		}
		if v := val[k]; math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("losses: side input %s: entry %d (row %d, column %d) is %v", in.name, k, i/bd.c, i%bd.c, v)
		}
	}
	switch d := in.val.Data().(type) {
	case []float32:
		setEntries(d, in.set, idx, val)
	case []float64:
		setEntries(d, in.set, idx, val)
	}
	in.set = append(in.set[:0], idx...)
	return nil
}

// setEntries zeroes d at the indices old and sets it to val at idx.
func setEntries[T floats](d []T, old, idx []int, val []float64) {
	for _, i := range old {
		d[i] = 0
	}
	for k, i := range idx {
		d[i] = T(val[k])
	}
}

// fillSide copies the side input's values x into d (1 for every row: ones). A padding row's
// values are those of the first valid row, so that its row of the expression is as finite as a
// valid row's, and its reward is 0: it adds nothing to the loss.
func fillSide[T floats](d []T, x []float64, p *plan, in sideInput) {
	for k := range d {
		v := 1.0
		if !in.ones {
			v = x[k]
		}
		d[k] = T(v)
	}
	if p.valid == nil || !in.rows && !p.perRow {
		return
	}
	first := 0
	for p.padding(first) {
		first++
	}
	rewards := in.name == candidates.Rewards
	for i := range p.b {
		switch {
		case !p.padding(i):
		case rewards:
			d[i] = 0
		case in.rows:
			d[i] = d[first]
		default:
			copy(d[i*p.c:(i+1)*p.c], d[first*p.c:(first+1)*p.c])
		}
	}
}

// maskState is what fillMasks keeps between steps: whether the mask tensors hold their
// defaults (every entry a negative) apart from the entries listed, and the flat indices i·C + j
// of the entries the last step made positives (pos) and masked columns (masked).
type maskState struct {
	filled      bool
	pos, masked []int
}

// fillMasks writes, into those of the derived inputs in use, the positive indicator, the negative
// mask and its log, the candidates' mask (positive or negative) and the rows' numbers of
// negatives from the plan p (accidental hits, dedupe's further copies and padding rows' columns
// masked), the Gramian column weights w_j/C_g (w = the plan's gramW, 1 where it has none; 0 on
// padding rows and their columns) and a padded geometry's scale. Every entry is a negative but
// the positives and the masked entries, so after the first step only the entries the last step
// changed are restored and the new ones set, and a row's count changes with its negative mask:
// O(R + masked) per step, not O(R·C).
func fillMasks[T floats](p *plan, in *[nDerived]input, ms *maskState) {
	pos, neg, negLog := dataOf[T](in[derivedPos].val), dataOf[T](in[derivedNeg].val), dataOf[T](in[derivedNegLog].val)
	cand, count := dataOf[T](in[derivedCand].val), dataOf[T](in[derivedNegCount].val)
	if pos != nil || neg != nil || negLog != nil || cand != nil {
		set := func(k int, isPos, isNeg bool) {
			if pos != nil {
				pos[k] = 0
				if isPos {
					pos[k] = 1
				}
			}
			if neg != nil {
				if count != nil && (neg[k] == 1) != isNeg {
					count[k/p.c] += T(2*b2i(isNeg) - 1)
				}
				neg[k] = T(b2i(isNeg))
			}
			if negLog != nil {
				negLog[k] = T(math.Inf(-1))
				if isNeg {
					negLog[k] = 0
				}
			}
			if cand != nil {
				cand[k] = T(b2i(isPos || isNeg))
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
	if gram := dataOf[T](in[derivedGram].val); gram != nil { // 1×C, or R×C per row or padded
		c := p.c
		for k := range gram {
			gram[k] = 0
			if j := k % c; j >= p.gramFrom && !p.padCol(j) && !(len(gram) > c && p.padding(k/c)) {
				w := 1.0
				if p.gramW != nil {
					w = p.gramW[k%len(p.gramW)]
				}
				gram[k] = T(w / float64(p.gramCols))
			}
		}
	}
	if sc := dataOf[T](in[derivedScale].val); sc != nil {
		sc[0] = T(p.scale)
	}
	if lm := dataOf[T](in[derivedLogM].val); lm != nil {
		lm[0] = T(math.Log(float64(p.negatives())))
	}
}

// b2i is 1 for true and 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// bindOp is the identity on the scores that first binds the step to the
// input nodes: the expression reads the scores through it, so the tape runs
// it before any node that reads those inputs. Its name carries the loss's
// place in its graph, so that the bindings of two losses on the same scores
// stay two nodes.
type bindOp struct {
	ops.Base
	bd *binding
}

func newBindOp(bd *binding) *bindOp {
	return &bindOp{ops.Base{Name: fmt.Sprintf("losses.bind#%d", bd.id)}, bd}
}

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
func (*bindOp) ReturnsPtr() bool   { return true }
func (*bindOp) DiffWRT(int) []bool { return []bool{true} }
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
