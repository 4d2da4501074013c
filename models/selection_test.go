package models

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/metrics"
)

// selectionDataset is idDataset(200, 100, 1000, 7) (20 steps per epoch of 50) with 60 validation
// pairs and 60 test pairs.
func selectionDataset() *datasets.Dataset {
	ds := idDataset(200, 100, 1000, 7)
	for i := range 60 {
		ds.Valid = append(ds.Valid, datasets.Interaction{Query: int32(i * 3 % 200), Item: int32(i * 7 % 100), Reward: 1})
		ds.Test = append(ds.Test, datasets.Interaction{Query: int32(i * 3 % 200), Item: int32((i*7 + 1) % 100), Reward: 1})
	}
	return ds
}

// scripted is a validation score read from a table by epoch (20 steps each): a planted best.
func scripted(byEpoch []float64) func(context.Context, *Model, *datasets.Dataset, int) (float64, error) {
	return func(_ context.Context, _ *Model, _ *datasets.Dataset, step int) (float64, error) {
		return byEpoch[(step-1)/20], nil
	}
}

// modelBytes is the model.bin m saves.
func modelBytes(t *testing.T, m *Model) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model.bin")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSelectionPicksBestEpoch plants the best validation score at a known epoch (a scripted
// validation metric) and checks that training validates where it should, stops after patience
// validations without a better score, and ends with the parameters of the planted epoch: the
// model it saves has the bytes of a model trained for that many steps without validation (the
// first of equal scores wins; after the last step of a training by steps, the partial epoch is
// validated too).
func TestSelectionPicksBestEpoch(t *testing.T) {
	ds := selectionDataset()
	s := Settings{EmbeddingDim: 8, Hidden: []int{16, 8}}
	ls := losses.Settings{Variant: losses.VariantLogQ}
	for _, c := range []struct {
		name      string
		ts        TrainSettings
		script    []float64
		wantSteps []int // the steps validated
		wantBest  int   // the step whose parameters are the model
		stopped   bool
	}{
		{"patience", TrainSettings{Epochs: 6, ValidateEvery: 1, Patience: ptr(2)}, []float64{0.1, 0.3, 0.2, 0.25, 0.9, 0.9},
			[]int{20, 40, 60, 80}, 40, true},
		{"no-patience", TrainSettings{Epochs: 6, ValidateEvery: 1}, []float64{0.1, 0.3, 0.2, 0.25, 0.1, 0.05},
			[]int{20, 40, 60, 80, 100, 120}, 40, false},
		{"every-2-tie", TrainSettings{Epochs: 5, ValidateEvery: 2}, []float64{0, 0.4, 0, 0.4, 0.1},
			[]int{40, 80, 100}, 40, false},
		{"steps-last", TrainSettings{Steps: 50, ValidateEvery: 1, Patience: ptr(3)}, []float64{0.2, 0.1, 0.5},
			[]int{20, 40, 50}, 50, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.ts.BatchSize, c.ts.LogEvery = 50, 7
			m := must(New(s, ds, tensor.Float32, 1))
			sel := &Selection{score: scripted(c.script)}
			curve, err := TrainResumable(context.Background(), m, ds, newCountEstimator(ds, 50), ls, samplerOf(ls), c.ts, 3, "", nil, sel, nil)
			if err != nil {
				t.Fatal(err)
			}
			var steps []int
			for _, p := range sel.Points {
				steps = append(steps, p.Step)
				if want := c.script[(p.Step-1)/20]; p.Value != want || p.Epoch != (p.Step-1)/20+1 {
					t.Errorf("validation %+v, want the value %v of epoch %d", p, want, (p.Step-1)/20+1)
				}
			}
			if !slices.Equal(steps, c.wantSteps) {
				t.Errorf("validated after steps %v, want %v", steps, c.wantSteps)
			}
			if got := sel.Points[sel.Best].Step; got != c.wantBest || sel.Stopped != c.stopped {
				t.Errorf("selected step %d (stopped %v), want %d (%v)", got, sel.Stopped, c.wantBest, c.stopped)
			}
			if last := curve[len(curve)-1].Step; last != c.wantSteps[len(c.wantSteps)-1] {
				t.Errorf("the curve ends at step %d, training at %d", last, c.wantSteps[len(c.wantSteps)-1])
			}

			ref := must(New(s, ds, tensor.Float32, 1))
			plain := TrainSettings{Steps: c.wantBest, BatchSize: 50, LogEvery: 7}
			if _, err := Train(context.Background(), ref, ds, newCountEstimator(ds, 50), ls, samplerOf(ls), plain, 3, nil); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(modelBytes(t, m), modelBytes(t, ref)) {
				t.Errorf("the selected model is not the model of step %d", c.wantBest)
			}
		})
	}
}

// TestIdlePatience: a training that validates fewer times than early stopping needs to end it
// before its last step (patience + 2) says so before its first step; one that validates enough
// says nothing. The counts are due's steps: every validate_every epochs of 20 steps and after
// the last step.
func TestIdlePatience(t *testing.T) {
	ds := selectionDataset()
	for _, c := range []struct {
		name string
		ts   TrainSettings
		want string
	}{
		{"epochs", TrainSettings{Epochs: 3, ValidateEvery: 1, Patience: ptr(2)},
			"warning: train.patience = 2 cannot end this training before its last step: it validates 3 times (every epoch of 20 steps, and after step 60), and stopping early needs 4\n"},
		{"steps", TrainSettings{Steps: 50, ValidateEvery: 1, Patience: ptr(3)},
			"warning: train.patience = 3 cannot end this training before its last step: it validates 3 times (every epoch of 20 steps, and after step 50), and stopping early needs 5\n"},
		{"every-2", TrainSettings{Epochs: 5, ValidateEvery: 2, Patience: ptr(2)},
			"warning: train.patience = 2 cannot end this training before its last step: it validates 3 times (every 2 epochs of 20 steps, and after step 100), and stopping early needs 4\n"},
		{"every-2-enough", TrainSettings{Epochs: 5, ValidateEvery: 2, Patience: ptr(1)}, ""},
		{"enough", TrainSettings{Epochs: 4, ValidateEvery: 1, Patience: ptr(2)}, ""},
		{"none", TrainSettings{Epochs: 2, ValidateEvery: 1}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.ts.BatchSize, c.ts.LogEvery, c.ts.LogSeconds = 50, 1000, 1000
			ls := losses.Settings{Variant: losses.VariantLogQ}
			m := must(New(Settings{EmbeddingDim: 8, Hidden: []int{8}}, ds, tensor.Float32, 1))
			var out strings.Builder
			sel := &Selection{score: scripted([]float64{1, 1, 1, 1, 1})}
			if _, err := TrainResumable(context.Background(), m, ds, newCountEstimator(ds, 50), ls, samplerOf(ls), c.ts, 3, "", nil, sel, &out); err != nil {
				t.Fatal(err)
			}
			got, _, _ := strings.Cut(out.String(), "\n")
			if got += "\n"; !strings.HasPrefix(got, "warning") {
				got = ""
			}
			if got != c.want {
				t.Errorf("first line %q, want %q", got, c.want)
			}
		})
	}
}

// TestSelectionResumes stops a training that selects on validation (by the real validation
// metric, with early stopping) at several points (after n checks of its context: one per step
// and a validation's) and resumes it from its last checkpoint in a fresh model: the parameters, the validations and the selected one are those of the run never
// interrupted. A checkpoint written when early stopping ended training resumes to the same model
// without a step.
func TestSelectionResumes(t *testing.T) {
	ds := selectionDataset()
	s := Settings{EmbeddingDim: 8, Hidden: []int{16, 8}}
	ls := losses.Settings{Variant: losses.VariantLogQ}
	ts := TrainSettings{Epochs: 8, BatchSize: 50, LogEvery: 7, ValidateEvery: 1, Patience: ptr(2)}
	eval := func() *Selection {
		return &Selection{Eval: EvalSettings{Eval: metrics.Settings{K: []int{5, 20}, Filter: metrics.FilterSeen}, Seed: 1}}
	}
	train := func(ctx context.Context, path string, sel *Selection) *Model {
		m := must(New(s, ds, tensor.Float32, 1))
		if _, err := TrainResumable(ctx, m, ds, newCountEstimator(ds, 50), ls, samplerOf(ls), ts, 3, path, nil, sel, nil); err != nil && ctx.Err() == nil {
			t.Fatal(err)
		}
		return m
	}
	whole := eval()
	wholePath := filepath.Join(t.TempDir(), "checkpoint")
	want := modelBytes(t, train(context.Background(), wholePath, whole))
	if len(whole.Points) < 2 {
		t.Fatalf("%d validations", len(whole.Points))
	}
	last := whole.Points[len(whole.Points)-1].Step
	for _, stop := range []int{13, 20, 47, last - 1} {
		t.Run(fmt.Sprint("stop-", stop), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "checkpoint")
			train(&stopAfter{Context: context.Background(), n: stop}, path, eval())
			got := eval()
			if b := modelBytes(t, train(context.Background(), path, got)); !bytes.Equal(b, want) {
				t.Error("the resumed model differs from the uninterrupted one")
			}
			if !slices.Equal(got.Points, whole.Points) || got.Best != whole.Best || got.Stopped != whole.Stopped {
				t.Errorf("resumed selection %+v, uninterrupted %+v", got, whole)
			}
		})
	}
	if whole.Stopped {
		got := eval()
		ctx := &stopAfter{Context: context.Background(), n: 1 << 30}
		if b := modelBytes(t, train(ctx, wholePath, got)); !bytes.Equal(b, want) || ctx.calls.Load() != 0 {
			t.Errorf("from the checkpoint of the early stop: %d steps, same model %v", ctx.calls.Load(), bytes.Equal(b, want))
		}
	} else {
		t.Errorf("early stopping did not end training (validations %+v): the stopped checkpoint is not tested", whole.Points)
	}
}

// keyRecorder is an estimator that records the items of every batch it observes.
type keyRecorder struct{ keys []uint64 }

func (e *keyRecorder) Observe(_ int64, keys []uint64) { e.keys = append(e.keys, keys...) }
func (e *keyRecorder) Prob(uint64) float64            { return 0.1 }

// TestValidationNeverTrains trains with validation every epoch on data whose validation items
// never occur in training: the estimator, which observes every training batch, sees exactly
// the training pairs (epochs × steps × batch size of them) and never a validation item.
func TestValidationNeverTrains(t *testing.T) {
	ds := selectionDataset()
	held := map[uint64]bool{}
	for _, x := range ds.Train {
		held[uint64(x.Item)] = true
	}
	ds.Valid = ds.Valid[:0]
	for q := range 40 {
		for j := range ds.Items {
			if !held[uint64(j)] {
				ds.Valid = append(ds.Valid, datasets.Interaction{Query: int32(q), Item: int32(j), Reward: 1})
				break
			}
		}
	}
	if len(ds.Valid) == 0 {
		t.Fatal("every item is in training: no item to hold out")
	}
	est := &keyRecorder{}
	ls := losses.Settings{Variant: losses.VariantLogQ}
	ts := TrainSettings{Epochs: 3, BatchSize: 50, ValidateEvery: 1}
	sel := &Selection{Eval: EvalSettings{Eval: metrics.Settings{K: []int{5}}}}
	if _, err := TrainResumable(context.Background(), must(New(Settings{EmbeddingDim: 8, Hidden: []int{8}}, ds, tensor.Float32, 1)), ds, est, ls, samplerOf(ls), ts, 3, "", nil, sel, nil); err != nil {
		t.Fatal(err)
	}
	if want := 3 * (len(ds.Train) / 50) * 50; len(est.keys) != want {
		t.Errorf("training observed %d pairs, want %d", len(est.keys), want)
	}
	for _, k := range est.keys {
		if !held[k] {
			t.Fatalf("training observed item %d, which only the validation set has", k)
		}
	}
	if len(sel.Points) != 3 {
		t.Errorf("%d validations, want 3", len(sel.Points))
	}
}

// TestSelectionErrors: training with validate_every needs a Selection and validation pairs,
// patience needs validate_every and is at least 1.
func TestSelectionErrors(t *testing.T) {
	ds := selectionDataset()
	noValid := selectionDataset()
	noValid.Valid = nil
	ls := losses.Settings{Variant: losses.VariantLogQ}
	sel := &Selection{Eval: EvalSettings{Eval: metrics.Settings{K: []int{5}}}}
	for _, c := range []struct {
		name string
		ds   *datasets.Dataset
		ts   TrainSettings
		sel  *Selection
		want string
	}{
		{"no-selection", ds, TrainSettings{ValidateEvery: 1}, nil, "validate_every: training selects on the validation set, and no evaluation of it was given"},
		{"no-validation", noValid, TrainSettings{ValidateEvery: 1}, sel, `validate_every: dataset "ids" has no validation pairs`},
		{"patience-alone", ds, TrainSettings{Patience: ptr(3)}, sel, "patience: stops training on validation scores, which only validate_every gives"},
		{"patience-0", ds, TrainSettings{ValidateEvery: 1, Patience: ptr(0)}, sel, "patience: must be a number of validations >= 1"},
		{"negative", ds, TrainSettings{ValidateEvery: -1}, sel, "validate_every: must be >= 0"},
		{"select-k", ds, TrainSettings{ValidateEvery: 1}, &Selection{Eval: EvalSettings{Eval: metrics.Settings{K: []int{5}, SelectK: 10}}}, "eval.select_k: 10 is not evaluated"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.ts.BatchSize = 50
			_, err := TrainResumable(context.Background(), must(New(Settings{EmbeddingDim: 8, Hidden: []int{8}}, c.ds, tensor.Float32, 1)), c.ds, nil, ls, samplerOf(ls), c.ts, 1, "", nil, c.sel, nil)
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}
