package losses

import (
	"errors"
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Loss is a resolved loss configuration that adds loss nodes to Gorgonia graphs.
type Loss struct {
	s  Settings
	dt tensor.Dtype
}

// New resolves and checks the settings; dt is tensor.Float32 or tensor.Float64.
func New(s Settings, dt tensor.Dtype) (*Loss, error) {
	if err := s.Resolve(); err != nil {
		return nil, err
	}
	if dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("losses: dtype must be float32 or float64, got %v", dt)
	}
	return &Loss{s: s, dt: dt}, nil
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

// Node adds the loss to the graph of in.Scores and returns a scalar node whose
// gradient flows into Scores. step is read each time the node executes; the
// returned node must not be executed by two machines at once.
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
	op := &lossOp{s: l.s, layout: l.Layout(), step: step, b: b, c: c, workers: defaultWorkers(), st: &opState{}}
	return gorgonia.ApplyOp(op, in.Scores)
}
