package losses

import (
	"errors"
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
)

// Loss is a resolved loss configuration for the candidates of one sampler's geometry; it adds
// loss nodes to Gorgonia graphs.
type Loss struct {
	s    Settings
	g    candidates.Geometry
	dt   tensor.Dtype
	opts any // the decoded options of a registered variant
}

// New resolves and checks the settings for the candidates of a sampler of geometry g
// (Settings.ResolveFor); dt is tensor.Float32 or tensor.Float64.
func New(s Settings, g candidates.Geometry, dt tensor.Dtype) (*Loss, error) {
	if err := s.ResolveFor(g); err != nil {
		return nil, err
	}
	if dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("losses: dtype must be float32 or float64, got %v", dt)
	}
	opts, err := s.decodeOptions()
	if err != nil {
		return nil, err
	}
	return &Loss{s: s, g: g, dt: dt, opts: opts}, nil
}

// Settings returns the resolved settings.
func (l *Loss) Settings() Settings { return l.s }

// Dtype returns the element type of the scores the loss takes.
func (l *Loss) Dtype() tensor.Dtype { return l.dt }

// Geometry returns the geometry of the candidates the loss scores.
func (l *Loss) Geometry() candidates.Geometry { return l.g }

// Fused reports whether Node builds the fused kernel (impl fused, or auto for
// a variant and options whose kernel auto takes) rather than the expression.
func (l *Loss) Fused() bool {
	return l.s.Impl == ImplFused || (l.s.Impl == ImplAuto && l.s.autoFused())
}

// Node adds the loss to the graph of in.Scores and returns a scalar node whose
// gradient flows into Scores (and into in.LogTemperature with
// learn_temperature). step is read each time the node executes: by the fused
// op, or by the binding that copies it into the expression's input nodes
// before the expression runs. The returned node must not be executed by two
// machines at once.
//
// The score matrix must be R×C with C the geometry's columns for R rows
// (candidates.Geometry.Cols; any C ≥ 1 under layout corpus), and step must be of the loss's
// geometry and hold the side inputs the variant reads: a missing one is an error naming the
// variant and the sampler.
func (l *Loss) Node(in Inputs, step *candidates.Step) (*gorgonia.Node, error) {
	if in.Scores == nil {
		return nil, errors.New("losses: Inputs.Scores is nil")
	}
	if step == nil {
		return nil, errors.New("losses: step is nil")
	}
	if step.Geometry != l.g {
		return nil, fmt.Errorf("losses: the step is of %v, the loss was made for %v", step.Geometry, l.g)
	}
	if dt := in.Scores.Dtype(); dt != l.dt {
		return nil, fmt.Errorf("losses: scores are %v, the loss was made for %v", dt, l.dt)
	}
	sh := in.Scores.Shape()
	if len(sh) != 2 || sh[0] < 1 || sh[1] < 1 {
		return nil, fmt.Errorf("losses: scores must be a non-empty R×C matrix, got shape %v", sh)
	}
	r, c := sh[0], sh[1]
	if want := l.g.Cols(r, step.Items); l.g.Layout != candidates.Corpus && c != want {
		return nil, fmt.Errorf("losses: %v gives %d score columns for %d rows, the scores have %d", l.g, want, r, c)
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
	// The node's place in its graph: two losses on the same scores are two nodes, each with its
	// own step (a Gorgonia graph merges the nodes of equal ops on equal inputs).
	id := len(in.Scores.Graph().AllNodes())
	if l.Fused() {
		op := newLossOp(l.s, l.g, step, r, c, id)
		// The step's side inputs are checked now, as the expression's are when it is built.
		if err := op.st.plan.build(&l.s, l.g, step, r, c); err != nil {
			return nil, err
		}
		return gorgonia.ApplyOp(op, in.Scores)
	}
	return l.expression(in, step, r, c, id)
}

// expression builds the variant's expression on input nodes bound to step.
func (l *Loss) expression(in Inputs, step *candidates.Step, r, c, id int) (node *gorgonia.Node, err error) {
	build := builtinExpr
	if v, ok := registered(l.s.Variant); ok {
		build = v.Expr
	}
	bd := &binding{s: l.s, geo: l.g, step: step, b: r, c: c, g: in.Scores.Graph(), dt: l.dt, id: id}
	e := &Expr{Settings: l.s, Options: l.opts, B: r, C: c, bd: bd}
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
	e.Scores = gorgonia.Must(gorgonia.ApplyOp(newBindOp(bd), in.Scores))
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
	switch {
	case node == nil:
		return nil, fmt.Errorf("losses: variant %s gave no node (nil) and no error", l.s.Variant)
	case !node.IsScalar():
		return nil, fmt.Errorf("losses: variant %s gave a node of shape %v, not a scalar", l.s.Variant, node.Shape())
	}
	return node, nil
}
