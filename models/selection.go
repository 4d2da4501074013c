package models

import (
	"context"
	"errors"
	"fmt"

	"github.com/samplingbias/workbench/datasets"
)

// Selection is model selection on the validation set during training (TrainSettings.ValidateEvery,
// TrainResumable): the caller sets Eval, training records the validations and the one selected.
type Selection struct {
	// Eval is how the validation set is evaluated: by its selection metric
	// (metrics.Settings.SelectMetric, SelectK, SelectSlice) at τ_LA = 0, with its filter, slices
	// and eval.max_pairs (Evaluate's scoring, without intervals or the other families).
	Eval EvalSettings
	// Points are the validations, in order; the model's parameters are those of Points[Best],
	// the first of the best score. Stopped says that early stopping (TrainSettings.Patience)
	// ended training before its last step.
	Points  []ValidationPoint
	Best    int
	Stopped bool

	// score is the validation score of m after step (nil: Eval's selection metric on
	// ds.Valid); tests script it.
	score func(ctx context.Context, m *Model, ds *datasets.Dataset, step int) (float64, error)
}

// ValidationPoint is one evaluation of the validation set during training.
type ValidationPoint struct {
	Step  int     `json:"step"`  // the global step after which it was evaluated
	Epoch int     `json:"epoch"` // that step's epoch (1-based)
	Value float64 `json:"value"` // the selection metric
}

// check requires sel for training with ts.ValidateEvery, and ds's validation pairs to evaluate;
// it resolves sel's evaluation settings.
func (sel *Selection) check(ts TrainSettings, ds *datasets.Dataset) error {
	if ts.ValidateEvery == 0 {
		return nil
	}
	if sel == nil {
		return errors.New("validate_every: training selects on the validation set, and no evaluation of it was given (a nil Selection)")
	}
	if len(ds.Valid) == 0 {
		return fmt.Errorf("validate_every: dataset %q has no validation pairs (a split with validation sets them apart)", ds.Name)
	}
	return sel.Eval.resolve(true)
}

// identity describes the validation a training selects by, for its checkpoints' identity ("":
// none).
func (sel *Selection) identity(ts TrainSettings) string {
	if ts.ValidateEvery == 0 || sel == nil {
		return ""
	}
	s := sel.Eval
	e := s.Eval
	return fmt.Sprintf("%s filter %q max_pairs %d gamma %v slices %+v temperature %v data seed %d seed %d",
		e.SelectName(), e.Filter, e.MaxPairs, e.Gamma, s.Slices, s.Temperature, s.DataSeed, s.Seed)
}

// selectionState is the state of model selection a checkpoint saves: the validations so far, the
// index of the best, the validations since it and whether early stopping ended training.
type selectionState struct {
	Points  []ValidationPoint
	Best    int
	Since   int
	Stopped bool
}

// selecting is the model selection of a training loop; without TrainSettings.ValidateEvery it
// does nothing.
type selecting struct {
	selectionState
	every, patience int // patience 0: no early stopping
	name            string
	score           func(ctx context.Context, m *Model, ds *datasets.Dataset, step int) (float64, error)
	best            []any // the best validation's parameters (nil before the first validation)
}

// newSelecting returns the selection of a training of m with ts by sel (checked).
func newSelecting(m *Model, ts TrainSettings, sel *Selection) *selecting {
	s := &selecting{every: ts.ValidateEvery}
	if s.every == 0 {
		return s
	}
	s.name, s.score = sel.Eval.Eval.SelectName(), sel.score
	if s.score == nil {
		s.score = func(ctx context.Context, m *Model, ds *datasets.Dataset, _ int) (float64, error) {
			return validationScore(ctx, m, ds, sel.Eval)
		}
	}
	if ts.Patience != nil {
		s.patience = *ts.Patience
	}
	return s
}

// due says whether the model is validated after step: at the end of every every-th epoch and
// after the last step.
func (s *selecting) due(step, perEpoch, total int) bool {
	return s.every > 0 && (step%perEpoch == 0 && (step/perEpoch)%s.every == 0 || step == total)
}

// idlePatience says why early stopping cannot end a training of total steps, perEpoch a epoch,
// before its last step, "" when it can (or there is none): the earliest stop is at validation
// patience + 1, and the training validates fewer times than patience + 2 (every every-th epoch
// and after the last step, due's steps).
func (s *selecting) idlePatience(perEpoch, total int) string {
	if s.every == 0 || s.patience == 0 {
		return ""
	}
	span := s.every * perEpoch
	n := total / span
	if total%span != 0 {
		n++
	}
	if s.patience+1 < n {
		return ""
	}
	every := "every epoch"
	if s.every > 1 {
		every = fmt.Sprintf("every %d epochs", s.every)
	}
	return fmt.Sprintf("train.patience = %d cannot end this training before its last step: it validates %d times (%s of %d steps, and after step %d), and stopping early needs %d",
		s.patience, n, every, perEpoch, total, s.patience+2)
}

// validate evaluates m on the validation set after step (of epoch), keeps its parameters when
// the score is better than the best, and stops training after patience validations without.
func (s *selecting) validate(ctx context.Context, m *Model, ds *datasets.Dataset, step, epoch int, rep *reporter) error {
	v, err := s.score(ctx, m, ds, step)
	if err != nil {
		return fmt.Errorf("models: validation after step %d (epoch %d): %w", step, epoch, err)
	}
	s.Points = append(s.Points, ValidationPoint{Step: step, Epoch: epoch, Value: v})
	if n := len(s.Points); n == 1 || v > s.Points[s.Best].Value {
		s.Best, s.Since = n-1, 0
		s.keep(m)
	} else {
		s.Since++
	}
	s.Stopped = s.patience > 0 && s.Since >= s.patience
	b := s.Points[s.Best]
	text := fmt.Sprintf("validation epoch %d: %s %.5g (best %.5g at epoch %d)", epoch, s.name, v, b.Value, b.Epoch)
	if s.Stopped {
		text += fmt.Sprintf("; early stopping after %d validations without a better one", s.Since)
	}
	rep.validation(step, text)
	return nil
}

// keep copies m's parameters into the best ones.
func (s *selecting) keep(m *Model) {
	ps := m.params()
	if s.best == nil {
		s.best = s.arrays(m)
	}
	for i, p := range ps {
		copyParam(s.best[i], p.data)
	}
}

// arrays returns new arrays of the shapes of m's parameters, for the best ones.
func (s *selecting) arrays(m *Model) []any {
	ps := m.params()
	out := make([]any, len(ps))
	for i, p := range ps {
		switch d := p.data.(type) {
		case []float32:
			out[i] = make([]float32, len(d))
		case []float64:
			out[i] = make([]float64, len(d))
		}
	}
	return out
}

// copyParam copies the values of src into dst, both []float32 or both []float64.
func copyParam(dst, src any) {
	switch d := dst.(type) {
	case []float32:
		copy(d, src.([]float32))
	case []float64:
		copy(d, src.([]float64))
	}
}

// saved are the arrays a checkpoint stores of the selection: the best parameters, once there are
// any.
func (s *selecting) saved() []any {
	if len(s.Points) == 0 {
		return nil
	}
	return s.best
}

// restore takes the state a checkpoint saved and returns the arrays its best parameters are read
// into (none before the first validation).
func (s *selecting) restore(m *Model, st selectionState) ([]any, error) {
	if s.every == 0 && len(st.Points) > 0 || len(st.Points) > 0 && (st.Best < 0 || st.Best >= len(st.Points)) {
		return nil, errors.New("corrupt checkpoint: its model selection does not fit the run")
	}
	s.selectionState = st
	if len(st.Points) == 0 {
		return nil, nil
	}
	s.best = s.arrays(m)
	return s.best, nil
}

// finish gives m the best validation's parameters and records the selection in sel.
func (s *selecting) finish(m *Model, sel *Selection) {
	if s.every == 0 {
		return
	}
	for i, p := range m.params() {
		copyParam(p.data, s.best[i])
	}
	sel.Points, sel.Best, sel.Stopped = s.Points, s.Best, s.Stopped
}
