package losses

import (
	"fmt"
	"math"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/ops"
	"github.com/samplingbias/workbench/internal/reuse"
)

// lossOp is the fused Gorgonia op of a loss: R×C scores → scalar. It reads its step when it
// executes, and its name carries its node's place in the graph (id), so that two losses on the
// same scores stay two nodes. The forward pass also leaves a representation of ∂L/∂scores in the
// gradient op's output buffer, which lossGradOp finishes in place, so the exponentials are taken
// once per step and no R×C buffer is allocated per step.
type lossOp struct {
	ops.Base
	s       Settings
	g       candidates.Geometry
	step    *candidates.Step
	b, c    int
	workers int
	st      *opState
}

func newLossOp(s Settings, g candidates.Geometry, step *candidates.Step, r, c, id int) *lossOp {
	return &lossOp{Base: ops.Base{Name: fmt.Sprintf("losses.%s#%d", s.Variant, id)}, s: s, g: g, step: step, b: r, c: c,
		workers: defaultWorkers(), st: &opState{}}
}

// opState holds the buffers an op reuses from one execution to the next.
type opState struct {
	plan    plan
	rowLoss []float64
	scratch [][]float64
	// grad is the R×C output of lossGradOp, owned by the op (valid until the next run of its
	// machine).
	grad    ops.Out
	gradBuf *tensor.Dense // the forward pass's grad.Get
	// gradSrc is the address of the first score the pending gradient
	// representation in grad was computed from (*float32 or *float64); nil
	// when there is none.
	gradSrc any
}

var (
	_ gorgonia.SDOp = (*lossOp)(nil)
	_ gorgonia.ADOp = (*lossOp)(nil)
)

func (op *lossOp) Arity() int { return 1 }

func (op *lossOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(gorgonia.TensorType{Dims: 2, Of: a}, a)
}

func (op *lossOp) InferShape(...gorgonia.DimSizer) (tensor.Shape, error) {
	return tensor.ScalarShape(), nil
}

func (op *lossOp) Do(inputs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("losses: %v takes 1 input, got %d", op, len(inputs))
	}
	t, err := op.scores(inputs[0])
	if err != nil {
		return nil, err
	}
	v, err := op.forward(t)
	if err != nil {
		return nil, err
	}
	if t.Dtype() == tensor.Float32 {
		return gorgonia.NewF32(float32(v)), nil
	}
	return gorgonia.NewF64(v), nil
}

func (op *lossOp) DiffWRT(inputs int) []bool { return []bool{true} }

func (op *lossOp) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("losses: %v takes 1 input, got %d", op, len(inputs))
	}
	n, err := gorgonia.ApplyOp(newLossGradOp(op), inputs[0], output, grad)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{n}, nil
}

// DoDiff is the automatic differentiation of the lisp machine: it adds
// ∂L/∂scores times the output's gradient to the scores' gradient.
func (op *lossOp) DoDiff(_ gorgonia.ExecutionContext, inputs gorgonia.Nodes, output *gorgonia.Node) error {
	if len(inputs) != 1 {
		return fmt.Errorf("losses: %v takes 1 input, got %d", op, len(inputs))
	}
	gout, err := output.Grad()
	if err != nil {
		return err
	}
	g, err := newLossGradOp(op).Do(inputs[0].Value(), output.Value(), gout)
	if err != nil {
		return err
	}
	return addGrad(inputs[0], g)
}

// addGrad adds g, of n's shape and dtype, to n's gradient (lisp machine).
func addGrad(n *gorgonia.Node, g gorgonia.Value) error {
	ng, err := n.Grad()
	if err != nil {
		return err
	}
	d, ok := ng.(*tensor.Dense)
	src, ok2 := g.(*tensor.Dense)
	if !ok || !ok2 || d.Dtype() != n.Dtype() || src.Dtype() != n.Dtype() || d.Size() != src.Size() || d.RequiresIterator() {
		return fmt.Errorf("losses: unusable gradient %T of %v", ng, n)
	}
	switch dst := d.Data().(type) {
	case []float32:
		addInto(dst, src.Data().([]float32))
	case []float64:
		addInto(dst, src.Data().([]float64))
	}
	return nil
}

func addInto[T floats](dst, src []T) {
	for k, v := range src {
		dst[k] += v
	}
}

// scores checks the score value and returns it as a contiguous dense matrix.
func (op *lossOp) scores(v gorgonia.Value) (*tensor.Dense, error) {
	t, ok := v.(*tensor.Dense)
	if !ok {
		return nil, fmt.Errorf("losses: scores must be a *tensor.Dense, got %T", v)
	}
	if s := t.Shape(); len(s) != 2 || s[0] != op.b || s[1] != op.c {
		return nil, fmt.Errorf("losses: scores have shape %v, the loss was built for (%d, %d)", s, op.b, op.c)
	}
	if t.RequiresIterator() {
		t = t.Materialize().(*tensor.Dense)
	}
	return t, nil
}

// forward computes the loss of t and caches ∂L/∂t for the gradient op.
func (op *lossOp) forward(t *tensor.Dense) (float64, error) {
	st := op.st
	st.gradSrc = nil
	if err := st.plan.build(&op.s, op.g, op.step, op.b, op.c); err != nil {
		return 0, err
	}
	st.rowLoss = reuse.Grow(st.rowLoss, op.b)
	st.scratch = reuse.GrowRows(st.scratch, op.workers, op.c)
	st.gradBuf = st.grad.Get(t.Dtype(), op.b, op.c)
	var total float64
	switch data := t.Data().(type) {
	case []float32:
		total = forwardData(op, data)
	case []float64:
		total = forwardData(op, data)
	default:
		return 0, fmt.Errorf("losses: scores must be float32 or float64, got %v", t.Dtype())
	}
	if math.IsNaN(total) || math.IsInf(total, 0) {
		st.gradSrc = nil
		return 0, &NonFiniteError{Variant: op.s.Variant, Value: total}
	}
	return total, nil
}

// forwardData runs the kernels on the score data, filling the gradient buffer.
func forwardData[T floats](op *lossOp, data []T) float64 {
	st := op.st
	total := execute(&st.plan, data, st.gradBuf.Data().([]T), st.rowLoss, st.scratch, op.workers)
	st.gradSrc = &data[0]
	return total
}

// lossGradOp computes g·∂L/∂scores from (scores, loss, g). It finishes the
// representation the forward pass left for these scores (or recomputes it if
// there is none) in place, and returns the op-owned buffer: the value is valid
// until the next run of its machine (ops.Out).
type lossGradOp struct {
	ops.Base
	fwd *lossOp
}

func newLossGradOp(fwd *lossOp) *lossGradOp {
	return &lossGradOp{ops.Base{Name: "losses.grad." + string(fwd.s.Variant)}, fwd}
}

func (op *lossGradOp) Arity() int { return 3 }

func (op *lossGradOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	m := gorgonia.TensorType{Dims: 2, Of: a}
	return hm.NewFnType(m, a, a, m)
}

func (op *lossGradOp) InferShape(inputs ...gorgonia.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.fwd.b, op.fwd.c}, nil
}

func (op *lossGradOp) Do(inputs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(inputs) != 3 {
		return nil, fmt.Errorf("losses: %v takes 3 inputs, got %d", op, len(inputs))
	}
	t, err := op.fwd.scores(inputs[0])
	if err != nil {
		return nil, err
	}
	gin, ok := Scalar(inputs[2])
	if !ok {
		return nil, fmt.Errorf("losses: the incoming gradient must be a float scalar, got %T", inputs[2])
	}
	st := op.fwd.st
	var first any
	switch data := t.Data().(type) {
	case []float32:
		first = &data[0]
	case []float64:
		first = &data[0]
	}
	if st.gradSrc == nil || st.gradSrc != first {
		if _, err := op.fwd.forward(t); err != nil {
			return nil, err
		}
	}
	st.gradSrc = nil
	switch g := st.gradBuf.Data().(type) {
	case []float32:
		gradInPlace(&st.plan, g, gin, op.fwd.workers)
	case []float64:
		gradInPlace(&st.plan, g, gin, op.fwd.workers)
	}
	return st.gradBuf, nil
}

// Scalar reads v, a float32 or float64 scalar (a loss node's value, or the gradient flowing
// into one), as float64; false if v is not one.
func Scalar(v gorgonia.Value) (float64, bool) {
	if v == nil {
		return 0, false
	}
	switch x := v.Data().(type) {
	case float32:
		return float64(x), true
	case float64:
		return x, true
	case []float32:
		if len(x) == 1 {
			return float64(x[0]), true
		}
	case []float64:
		if len(x) == 1 {
			return x[0], true
		}
	}
	return 0, false
}
