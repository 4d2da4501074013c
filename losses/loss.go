package losses

import (
	"errors"
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Loss is a resolved loss configuration that adds loss nodes to Gorgonia graphs.
type Loss struct {
	s    Settings
	dt   tensor.Dtype
	opts any // the decoded options of a registered variant
}

// New resolves and checks the settings; dt is tensor.Float32 or tensor.Float64.
func New(s Settings, dt tensor.Dtype) (*Loss, error) {
	if err := s.Resolve(); err != nil {
		return nil, err
	}
	if dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("losses: dtype must be float32 or float64, got %v", dt)
	}
	opts, err := s.decodeOptions()
	if err != nil {
		return nil, err
	}
	return &Loss{s: s, dt: dt, opts: opts}, nil
}

// Settings returns the resolved settings.
func (l *Loss) Settings() Settings { return l.s }

// Layout returns the layout the variant and sampler need: Indexed for full
// and logit_adjusted, First for the uniform sampler, Diagonal for in_batch and
// mixed.
func (l *Loss) Layout() Layout {
	switch {
	case isCorpus(l.s.Variant):
		return Indexed
	case l.s.Sampler == SamplerUniform:
		return First
	}
	return Diagonal
}

// Fused reports whether Node builds the fused kernel (impl fused, or auto for
// a variant and options that have one) rather than the expression.
func (l *Loss) Fused() bool {
	return l.s.Impl == ImplFused || (l.s.Impl == ImplAuto && l.s.hasFused())
}

// Node adds the loss to the graph of in.Scores and returns a scalar node whose
// gradient flows into Scores (and into in.LogTemperature with
// learn_temperature). step is read each time the node executes: by the fused
// op, or by the binding that copies it into the expression's input nodes
// before the expression runs. The returned node must not be executed by two
// machines at once.
//
// The score matrix must be B×C with C = B (in_batch), B+Negatives (mixed),
// 1+Negatives (uniform) or any C ≥ 1 (full, logit_adjusted, Layout Indexed).
func (l *Loss) Node(in Inputs, step *Step) (*gorgonia.Node, error) {
	if in.Scores == nil {
		return nil, errors.New("losses: Inputs.Scores is nil")
	}
	if step == nil {
		return nil, errors.New("losses: step is nil")
	}
	if dt := in.Scores.Dtype(); dt != l.dt {
		return nil, fmt.Errorf("losses: scores are %v, the loss was made for %v", dt, l.dt)
	}
	sh := in.Scores.Shape()
	if len(sh) != 2 || sh[0] < 1 || sh[1] < 1 {
		return nil, fmt.Errorf("losses: scores must be a non-empty B×C matrix, got shape %v", sh)
	}
	b, c := sh[0], sh[1]
	want := -1
	switch {
	case isCorpus(l.s.Variant):
	case l.s.Sampler == SamplerInBatch:
		want = b
	case l.s.Sampler == SamplerMixed:
		want = b + l.s.Negatives
	case l.s.Sampler == SamplerUniform:
		want = 1 + l.s.Negatives
	}
	if want >= 0 && c != want {
		return nil, fmt.Errorf("losses: sampler %s with negatives = %d needs %d score columns for B = %d, got %d",
			l.s.Sampler, l.s.Negatives, want, b, c)
	}
	if isRawat(l.s.Variant) && NegativeCount(c) < 1 {
		return nil, fmt.Errorf("losses: variant %s needs at least one negative column, got C = %d", l.s.Variant, c)
	}
	if l.s.LearnTemperature != (in.LogTemperature != nil) {
		return nil, errors.New("losses: Inputs.LogTemperature must be set with learn_temperature, and only with it")
	}
	if lt := in.LogTemperature; lt != nil && (!lt.IsScalar() || lt.Dtype() != l.dt) {
		return nil, fmt.Errorf("losses: LogTemperature must be a %v scalar, got %v of shape %v", l.dt, lt.Dtype(), lt.Shape())
	}
	if l.Fused() {
		op := &lossOp{s: l.s, layout: l.Layout(), step: step, b: b, c: c, workers: defaultWorkers(), st: &opState{}}
		return gorgonia.ApplyOp(op, in.Scores)
	}
	return l.expression(in, step, b, c)
}

// expression builds the variant's expression on input nodes bound to step.
func (l *Loss) expression(in Inputs, step *Step, b, c int) (node *gorgonia.Node, err error) {
	build := builtinExpr
	if v, ok := registered(l.s.Variant); ok {
		build = v.Expr
	}
	bd := &binding{s: l.s, layout: l.Layout(), step: step, b: b, c: c, g: in.Scores.Graph(), dt: l.dt}
	e := &Expr{Settings: l.s, Options: l.opts, B: b, C: c, bd: bd}
	// gorgonia.Must panics with the error of an op that cannot be built
	// (shapes, dtypes); a variant's expression may panic too. Either is
	// returned as an error naming the variant.
	defer func() {
		if r := recover(); r != nil {
			perr, ok := r.(error)
			if !ok {
				perr = fmt.Errorf("%v", r)
			}
			node, err = nil, fmt.Errorf("losses: building variant %s: %w", l.s.Variant, perr)
		}
	}()
	e.Scores = gorgonia.Must(gorgonia.ApplyOp(&bindOp{bd: bd}, in.Scores))
	if in.LogTemperature != nil {
		e.Tau = gorgonia.Must(gorgonia.Exp(in.LogTemperature))
	} else {
		e.Tau = e.Const(l.s.Temperature)
	}
	if l.s.Variant == VariantMSEGramian {
		e.Tau = nil // raw scores: no temperature
	}
	if node, err = build(e); err != nil {
		return nil, fmt.Errorf("losses: building variant %s: %w", l.s.Variant, err)
	}
	if !node.IsScalar() {
		return nil, fmt.Errorf("losses: variant %s gave a node of shape %v, not a scalar", l.s.Variant, node.Shape())
	}
	return node, nil
}
