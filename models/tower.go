package models

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/internal/setting"
	"github.com/samplingbias/workbench/internal/tape"
)

// Activation is the nonlinearity that follows every layer of a tower but the last.
type Activation string

// Activations of the hidden layers. The table activations defines each one.
const (
	ActivationReLU     Activation = "relu"
	ActivationIdentity Activation = "identity"
	ActivationTanh     Activation = "tanh"
	// ActivationGELU is the tanh approximation of Hendrycks and Gimpel (2016), "Gaussian Error
	// Linear Units", section 2: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
	ActivationGELU Activation = "gelu"
	// ActivationSwish is x·σ(x) (Ramachandran et al. 2017, "Searching for Activation Functions").
	ActivationSwish Activation = "swish"
	// ActivationSigmoid is the logistic σ(x) = 1/(1 + e^(−x)).
	ActivationSigmoid Activation = "sigmoid"
)

// kernelAct is the activation computed inside the fused dense kernel (denseOp), if any.
type kernelAct int

const (
	kernelNone     kernelAct = iota // no fused kernel: the affine map is fused, the activation is the expression
	kernelIdentity                  // the fused kernel computes x·W + b
	kernelReLU                      // the fused kernel computes max(x·W + b, 0)
)

// activationDef defines one activation: its expression in stock Gorgonia ops (the specification,
// differentiated by autodiff) and the fused kernel that computes the same, if one exists.
type activationDef struct {
	name   Activation
	expr   func(x *gorgonia.Node) (*gorgonia.Node, error)
	kernel kernelAct
}

// activations is the one place where an activation is defined: adding a value here is all it
// takes (Settings.Resolve and Activation.UnmarshalText accept the names listed here).
var activations = []activationDef{
	{ActivationReLU, relu, kernelReLU},
	{ActivationIdentity, func(x *gorgonia.Node) (*gorgonia.Node, error) { return x, nil }, kernelIdentity},
	{ActivationTanh, gorgonia.Tanh, kernelNone},
	{ActivationGELU, gelu, kernelNone},
	{ActivationSwish, func(x *gorgonia.Node) (*gorgonia.Node, error) {
		s, err := gorgonia.Sigmoid(x)
		if err != nil {
			return nil, err
		}
		return gorgonia.HadamardProd(x, s)
	}, kernelNone},
	{ActivationSigmoid, gorgonia.Sigmoid, kernelNone},
}

// activationNames lists the allowed values of Settings.Activation.
func activationNames() []Activation {
	return setting.Column(activations, func(a activationDef) Activation { return a.name })
}

// definition returns the definition of a (nil when a is not an activation).
func (a Activation) definition() *activationDef {
	for i := range activations {
		if activations[i].name == a {
			return &activations[i]
		}
	}
	return nil
}

// relu is x ⊙ [x > 0] in stock ops, with a zero node of its own (gorgonia.Rectify, whose zero is
// one package-level node shared by every graph, gave a wrong bias gradient in a residual tower).
func relu(x *gorgonia.Node) (*gorgonia.Node, error) {
	mask, err := gorgonia.Gt(x, constant(x.Dtype(), 0), true)
	if err != nil {
		return nil, err
	}
	return gorgonia.HadamardProd(x, mask)
}

// gelu is 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) in stock ops.
func gelu(x *gorgonia.Node) (*gorgonia.Node, error) {
	c := func(v float64) *gorgonia.Node { return constant(x.Dtype(), v) }
	x3, err := gorgonia.Cube(x)
	if err != nil {
		return nil, err
	}
	inner, err := gorgonia.Mul(x3, c(0.044715))
	if err == nil {
		inner, err = gorgonia.Add(x, inner)
	}
	if err == nil {
		inner, err = gorgonia.Mul(inner, c(math.Sqrt(2/math.Pi)))
	}
	if err == nil {
		inner, err = gorgonia.Tanh(inner)
	}
	if err == nil {
		inner, err = gorgonia.Add(inner, c(1))
	}
	if err == nil {
		inner, err = gorgonia.HadamardProd(x, inner)
	}
	if err != nil {
		return nil, err
	}
	return gorgonia.Mul(inner, c(0.5))
}

// constant is a new scalar constant node of dtype dt.
func constant(dt tensor.Dtype, v float64) *gorgonia.Node {
	if dt == tensor.Float32 {
		return gorgonia.NewConstant(float32(v), gorgonia.WithName(fmt.Sprint(float32(v))))
	}
	return gorgonia.NewConstant(v, gorgonia.WithName(fmt.Sprint(v)))
}

// towerImpl selects how a tower's graph is built.
type towerImpl int

const (
	// towerFused (production) computes each layer with the fused dense op (denseOp: x·W + b and,
	// for ReLU and identity, the activation, in one op with a hand-written gradient) and the L2
	// normalisation with l2NormOp; other activations and the residual sum are stock ops.
	towerFused towerImpl = iota
	// towerExpression builds the whole tower from stock Gorgonia ops (Mul, BroadcastAdd, the
	// activation's expression, Add, and the normalisation written out), differentiated by
	// autodiff: the specification the fused ops are tested against.
	towerExpression
)

// towerNodes are the nodes of one tower in a graph.
type towerNodes struct {
	out    *gorgonia.Node // L2-normalised output, rows × Dim
	params gorgonia.Nodes // w0, b0, w1, b1, … bound to the Model's parameters
	of     []*param       // the parameter of each node of params
	x      *gorgonia.Node // input, rows × in
	xData  any            // []T backing x
}

// paramNode returns a node of g bound to the memory of p (a matrix or a vector).
func paramNode[T float](g *gorgonia.ExprGraph, dt tensor.Dtype, p *param) *gorgonia.Node {
	v := tensor.New(tensor.WithShape(p.shape...), tensor.WithBacking(values[T](p)))
	if len(p.shape) == 2 {
		return gorgonia.NewMatrix(g, dt, gorgonia.WithShape(p.shape...), gorgonia.WithName(p.name), gorgonia.WithValue(v))
	}
	return gorgonia.NewVector(g, dt, gorgonia.WithShape(p.shape...), gorgonia.WithName(p.name), gorgonia.WithValue(v))
}

// fwd is the forward definition of the tower t, the one used by training and by inference:
// for rows entities, the input x (rows × in: pooled embeddings, then dense features; filled by
// gather), then every layer h ← act(h·W + b) (no activation after the last layer; with
// Settings.Residual, h ← h + act(h·W + b) for every layer after the first), then the L2
// normalisation h/sqrt(‖h‖² + ε²) of every row. needDX says whether the gradient w.r.t. x is
// wanted (the trainer scatters it into the embedding rows); rep (nil: none) lists the rows that
// repeat an earlier row's entity, whose forward values the layers copy. SASRec's item tower,
// which has no layers, is its input: the output table's rows, unnormalised (Kang & McAuley
// section III-D).
func fwd[T float](m *Model, t *tower, g *gorgonia.ExprGraph, rows int, impl towerImpl, needDX bool, rep *repeats) (*towerNodes, error) {
	xData := make([]T, rows*t.in)
	tn := &towerNodes{xData: xData}
	tn.x = gorgonia.NewMatrix(g, m.dt, gorgonia.WithShape(rows, t.in), gorgonia.WithName(sideNames[t.side]+".x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(rows, t.in), tensor.WithBacking(xData))))
	if len(t.layers) == 0 {
		tn.out = tn.x
		return tn, nil
	}
	act := m.s.Activation.definition()
	h := tn.x
	for i, l := range t.layers {
		w, b := paramNode[T](g, m.dt, l.w), paramNode[T](g, m.dt, l.b)
		tn.params = append(tn.params, w, b)
		tn.of = append(tn.of, l.w, l.b)
		last := i == len(t.layers)-1
		name := fmt.Sprintf("%s.%d", sideNames[t.side], i)
		y, err := denseLayer[T](h, w, b, name, act, last, impl, needDX || i > 0, rep)
		if err != nil {
			return nil, fmt.Errorf("models: %s layer %d: %w", sideNames[t.side], i, err)
		}
		if m.s.Residual && i > 0 {
			if y, err = gorgonia.Add(y, h); err != nil {
				return nil, fmt.Errorf("models: %s layer %d residual: %w", sideNames[t.side], i, err)
			}
		}
		h = y
	}
	var err error
	if impl == towerExpression {
		tn.out, err = l2NormExpr(h, m.s.NormEpsilon)
	} else {
		tn.out, err = gorgonia.ApplyOp(newL2Norm[T](sideNames[t.side], m.s.NormEpsilon), h)
	}
	if err != nil {
		return nil, fmt.Errorf("models: %s normalisation: %w", sideNames[t.side], err)
	}
	return tn, nil
}

// denseLayer is one layer act(h·W + b) (no activation when last); the fused op copies the rows
// rep lists (the expression computes every row).
func denseLayer[T float](h, w, b *gorgonia.Node, name string, act *activationDef, last bool, impl towerImpl, needDX bool, rep *repeats) (*gorgonia.Node, error) {
	if impl == towerFused {
		fusedAct := !last && act.kernel == kernelReLU
		y, err := gorgonia.ApplyOp(newDense[T](name, fusedAct, needDX, rep), h, w, b)
		if err != nil || last || act.kernel != kernelNone {
			return y, err
		}
		return act.expr(y)
	}
	z, err := gorgonia.Mul(h, w)
	if err != nil {
		return nil, err
	}
	b1, err := gorgonia.Reshape(b, tensor.Shape{1, b.Shape()[0]})
	if err != nil {
		return nil, err
	}
	if z, err = gorgonia.BroadcastAdd(z, b1, nil, []byte{0}); err != nil || last {
		return z, err
	}
	return act.expr(z)
}

// l2NormExpr is the L2 normalisation h/sqrt(‖h‖² + ε²) of every row of h in stock ops.
func l2NormExpr(h *gorgonia.Node, eps float64) (*gorgonia.Node, error) {
	sq, err := gorgonia.Square(h)
	if err != nil {
		return nil, err
	}
	ss, err := gorgonia.Sum(sq, 1)
	if err == nil {
		ss, err = gorgonia.Add(ss, constant(h.Dtype(), eps*eps))
	}
	if err == nil {
		ss, err = gorgonia.Sqrt(ss)
	}
	if err == nil {
		ss, err = gorgonia.Reshape(ss, tensor.Shape{h.Shape()[0], 1})
	}
	if err != nil {
		return nil, err
	}
	return gorgonia.BroadcastHadamardDiv(h, ss, nil, []byte{1})
}

// inference is a compiled forward graph of one tower for a fixed number of rows, without
// gradients: EmbedQueries, EmbedItems and the estimator keys of the trainer run it.
type inference[T float] struct {
	m    *Model
	t    *tower
	rows int
	x    []T
	out  *gorgonia.Node
	vm   gorgonia.VM
}

func newInference[T float](m *Model, t *tower, rows int, impl towerImpl) (*inference[T], error) {
	g := gorgonia.NewGraph()
	tn, err := fwd[T](m, t, g, rows, impl, false, nil)
	if err != nil {
		return nil, err
	}
	vm, err := tape.Machine(g, tn.out)
	if err != nil {
		return nil, fmt.Errorf("models: the %s tower: %w", sideNames[t.side], err)
	}
	return &inference[T]{m: m, t: t, rows: rows, x: tn.xData.([]T), out: tn.out, vm: vm}, nil
}

// run returns the normalised outputs of ids (at most rows of them; len(ids) × Dim, valid until
// the next run). Rows beyond len(ids) keep the inputs of an earlier run and are ignored: every
// output row depends on its own input row only.
func (f *inference[T]) run(ids []int32) ([]T, error) { return f.runWindow(ids, nil) }

// runWindow is run for a tower whose input includes the mean of a history: row r's history is
// row r of w (w nil for a tower without one).
func (f *inference[T]) runWindow(ids []int32, w *Window) ([]T, error) {
	if len(ids) > f.rows {
		return nil, fmt.Errorf("models: %d ids for a graph of %d rows", len(ids), f.rows)
	}
	x := f.x[:len(ids)*f.t.in]
	gather(f.m, f.t, ids, x, nil)
	if w != nil {
		gatherHistory(f.m, f.t, w, x)
	}
	defer f.vm.Reset()
	if err := f.vm.RunAll(); err != nil {
		return nil, fmt.Errorf("models: %s tower: %w", sideNames[f.t.side], err)
	}
	return data[T](f.out.Value())[:len(ids)*f.m.Dim()], nil
}
