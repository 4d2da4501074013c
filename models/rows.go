package models

import (
	"fmt"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/datasets"
)

// stepRows is what the steps of a training run are made of (docs/sequences.md): the units an
// epoch passes over in batches, and the law of the rows' positives.
//
// Without a history each unit is a training pair and is one row (an example, in the sampler's
// geometry); the mean encoder's rows are the same, each with its pair's history as its query.
// SASRec's units are the windows of Dataset.Windows, B per step, and every position of a window
// is a row of the step (training at every position, as Kang & McAuley, gSASRec and Khrylchenko
// et al. train): B·L rows, the positions before a short window's first target padding
// (candidates.Geometry.PerExample = L, Padded).
type stepRows struct {
	units  int               // training pairs, or windows
	win    *datasets.Windows // SASRec's windows; nil: a row per training pair
	length int               // positions of a window or history (MaxLength); 0 without a history
	// counts are each item's count among the rows' positives over an epoch, n their sum: the
	// training counts with a row per training pair; with SASRec the windows' targets, which leave
	// out each user's first item (and, windowing "last", the items before its last window).
	counts []int64
	n      int
}

// newStepRows returns the rows of training a model of the resolved settings s on ds.
func newStepRows(s Settings, ds *datasets.Dataset) (*stepRows, error) {
	r := &stepRows{units: len(ds.Train), counts: ds.ItemCounts(), n: len(ds.Train)}
	seq := s.Sequence
	if !seq.ReadsHistory() {
		return r, nil
	}
	r.length = seq.MaxLength
	if seq.Encoder != EncoderSASRec {
		return r, nil
	}
	w, err := ds.Windows(seq.MaxLength, seq.Windowing)
	if err != nil {
		return nil, fmt.Errorf("sequence.encoder: %w", err)
	}
	r.win, r.units = w, len(w.List)
	r.counts, r.n = make([]int64, ds.Items), 0
	in, tg := make([]int32, r.length), make([]int32, r.length)
	for k := range w.List {
		n := w.Fill(k, in, tg, nil)
		for _, it := range tg[r.length-n:] {
			r.counts[it]++
		}
		r.n += n
	}
	return r, nil
}

// positions reports whether the rows are the positions of windows.
func (r *stepRows) positions() bool { return r.win != nil }

// geometry returns the geometry of the steps of sampler geometry g (StepGeometry).
func (r *stepRows) geometry(g candidates.Geometry) (candidates.Geometry, error) {
	return stepGeometry(r.positions(), r.length, g)
}

// StepGeometry returns the geometry of the training steps of a model of the resolved settings s
// with a sampler of geometry g: g itself, or with SASRec the positions of each window as its
// rows (PerExample = MaxLength, Padded; docs/samplers.md, "the batch" of positions). A sampler
// whose geometry has several rows per example of its own, or padding, cannot train windows.
func StepGeometry(s Settings, g candidates.Geometry) (candidates.Geometry, error) {
	return stepGeometry(s.Sequence.Encoder == EncoderSASRec, s.Sequence.MaxLength, g)
}

func stepGeometry(positions bool, length int, g candidates.Geometry) (candidates.Geometry, error) {
	if !positions {
		return g, nil
	}
	if g.PerExample > 1 || g.Padded {
		return g, fmt.Errorf("kind: %v scores rows of its own for each example, and SASRec's rows are the positions of its windows", g)
	}
	g.PerExample, g.Padded = length, true
	return g, nil
}

// perStep is the mean number of rows with a positive in a step of b units.
func (r *stepRows) perStep(b int) int {
	if !r.positions() {
		return b
	}
	return max(1, int(float64(r.n)*float64(b)/float64(max(r.units, 1))+0.5))
}

// TrainingRows returns what the rows of Train's steps of batchSize examples are drawn from, for
// an estimator of the positives' law (estimators.Env): each item's count among the rows'
// positives over an epoch, and the mean number of rows with a positive in a step. With a row per
// training pair (no history, or the mean encoder) they are ds.ItemCounts() and batchSize; with
// SASRec every position of a window is a row whose positive is its target, so the counts are
// the windows' targets' and a step has batchSize windows' targets on average.
func TrainingRows(s Settings, ds *datasets.Dataset, batchSize int) (counts []int64, rows int, err error) {
	s.Hidden = append([]int(nil), s.Hidden...)
	if err := s.Resolve(); err != nil {
		return nil, 0, err
	}
	r, err := newStepRows(s, ds)
	if err != nil {
		return nil, 0, err
	}
	return r.counts, r.perStep(batchSize), nil
}
