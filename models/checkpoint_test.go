package models

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/estimators"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/samplers"
)

// stopAfter is a context whose Err reports cancellation from its (n+1)-th call on: Train asks
// once before every step, so training without validation stops after n steps, as a run killed
// there would (a validation's evaluation asks it too, from its workers).
type stopAfter struct {
	context.Context
	n     int
	calls atomic.Int64
}

func (c *stopAfter) Err() error {
	if c.calls.Add(1) > int64(c.n) {
		return context.Canceled
	}
	return nil
}

// TestCheckpointResume stops training after a step and resumes it from its last checkpoint
// (checkResume): it ends bit-identical to a run never interrupted. The cases cover every
// optimiser, both batch orders, the three layouts' samplers (uniform negatives from a saved
// random-number state), checkpoints per epoch and every N steps, both dtypes and the LSH
// estimator, whose keys come from the item tower.
func TestCheckpointResume(t *testing.T) {
	ds := idDataset(200, 100, 1000, 7) // batch 50: 20 steps per epoch
	streaming := &estimators.Settings{Kind: estimators.KindStreaming, Buckets: 256}
	cases := []resumeCase{
		{"adam-epochs", tensor.Float32, losses.Settings{Variant: losses.VariantLogQ}, TrainSettings{Epochs: 3}, streaming, 33, 20, nil},
		{"adagrad-every-7-mixed", tensor.Float32, losses.Settings{Variant: losses.VariantLogQ},
			TrainSettings{Optimizer: OptimizerAdagrad, Steps: 50, CheckpointEvery: 7}, streaming, 30, 28, ptr(mixedSampler(5))},
		{"momentum-uniform-learned-tau", tensor.Float32, losses.Settings{Variant: losses.VariantTail, LearnTemperature: true},
			TrainSettings{Optimizer: OptimizerMomentum, Epochs: 2, CheckpointEvery: 5, Clip: 0.5}, nil, 17, 15, ptr(uniformSampler(8))},
		{"sgd-sequential-lsh", tensor.Float32, losses.Settings{Variant: losses.VariantLogQ}, TrainSettings{Optimizer: OptimizerSGD, Order: OrderSequential, Epochs: 2},
			&estimators.Settings{Kind: estimators.KindLSH, Buckets: 256}, 25, 20, nil},
		{"adam-float64-exact", tensor.Float64, losses.Settings{Variant: losses.VariantLogQ}, TrainSettings{Epochs: 2, CheckpointEvery: 3},
			&estimators.Settings{Kind: estimators.KindExact, Mode: estimators.ModeOnline}, 10, 9, nil},
		{"adam-memory", tensor.Float32, losses.Settings{Variant: losses.VariantLogQ}, TrainSettings{Steps: 30, CheckpointEvery: 7}, streaming, 19, 14,
			&samplers.Settings{Kind: samplers.KindMemory, MemoryBatches: 2}},
		{"adam-mixture-in-batch-unique-popularity", tensor.Float32, losses.Settings{Variant: losses.VariantLogQ}, TrainSettings{Steps: 30, CheckpointEvery: 7}, streaming, 19, 14,
			&samplers.Settings{Kind: samplers.KindMixture, Of: []samplers.Settings{{Kind: samplers.KindInBatchUnique, Negatives: 8}, {Kind: samplers.KindPopularity, Negatives: 8}}}},
	}
	s := Settings{EmbeddingDim: 8, Hidden: []int{16, 8}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkResume(t, ds, s, 50, c) })
	}
}

// TestCheckpointResumeSequences is TestCheckpointResume for the towers that read histories:
// SASRec trained at every position of its windows, with dropout (whose masks come from the
// run's saved random state) and Khrylchenko et al.'s sampler (distinct in-batch items and
// uniform items per position), and the mean encoder sharing the item table; each ends
// bit-identical to its uninterrupted run.
func TestCheckpointResumeSequences(t *testing.T) {
	ds := loadSequences(t, datasets.SyntheticSettings{Items: 60, Queries: 80, Interactions: 2000, Clusters: 4}, 1)
	khrylchenko := &samplers.Settings{Kind: samplers.KindMixture, Of: []samplers.Settings{{Kind: samplers.KindInBatchUnique, Negatives: 8}, uniformPerRowSampler(8)}}
	exact := &estimators.Settings{Kind: estimators.KindExact, Mode: estimators.ModeOnline}
	for _, c := range []struct {
		s     Settings
		batch int
		rc    resumeCase
	}{
		{sasrecSettings(12, 0.3, datasets.WindowingAll), 10,
			resumeCase{"sasrec", tensor.Float32, losses.Settings{Variant: losses.VariantLogQCorrected, Temperature: 1}, TrainSettings{Epochs: 3, CheckpointEvery: 4}, exact, 11, 8, khrylchenko}},
		{Settings{EmbeddingDim: 8, Hidden: []int{16, 8}, ShareEmbeddings: true, Sequence: SequenceSettings{Encoder: EncoderMean, MaxLength: 5}}, 50,
			resumeCase{"mean", tensor.Float32, losses.Settings{Variant: losses.VariantLogQ}, TrainSettings{Steps: 30, CheckpointEvery: 7}, exact, 19, 14, nil}},
	} {
		t.Run(c.rc.name, func(t *testing.T) { checkResume(t, ds, c.s, c.batch, c.rc) })
	}
}

// resumeCase is a training run that is killed and resumed.
type resumeCase struct {
	name  string
	dt    tensor.Dtype
	ls    losses.Settings
	ts    TrainSettings
	est   *estimators.Settings
	stop  int                // steps done when the run is killed
	saved int                // the step of the last checkpoint before it
	ss    *samplers.Settings // the sampler, when not samplerOf(ls)
}

// checkResume trains the model of s on ds as c says in batches of batch three times: without
// interruption, killed after c.stop steps, and resumed from its checkpoint in a freshly built
// model (of another initialisation seed) with a fresh estimator; the resumed run must end
// bit-identical to the uninterrupted one: every parameter (the learned temperature included),
// the estimator's p̂ of every item and the losses of the curve.
func checkResume(t *testing.T, ds *datasets.Dataset, s Settings, batch int, c resumeCase) {
	c.ts.BatchSize, c.ts.LogEvery = batch, 4
	ss := samplerOf(c.ls)
	if c.ss != nil {
		ss = *c.ss
	}
	newEst := func(m *Model) estimators.Estimator {
		if c.est == nil {
			return nil
		}
		e, err := estimators.New(*c.est, estimators.Env{BatchSize: batch, CorpusSize: ds.Items, EmbeddingDim: m.Dim()}, 1)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	m1 := must(New(s, ds, c.dt, 1))
	est1 := newEst(m1)
	plain := c.ts // the uninterrupted run writes no checkpoints
	plain.CheckpointEvery = 0
	want, err := Train(context.Background(), m1, ds, est1, c.ls, ss, plain, 5, nil)
	if err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(t.TempDir(), "checkpoint")
	m2 := must(New(s, ds, c.dt, 1))
	ctx := &stopAfter{Context: context.Background(), n: c.stop}
	if _, err := TrainResumable(ctx, m2, ds, newEst(m2), c.ls, ss, c.ts, 5, path, nil, nil, nil); err != context.Canceled {
		t.Fatalf("stopped run: error %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no checkpoint after %d steps: %v", c.stop, err)
	}

	m3 := must(New(s, ds, c.dt, 2))
	est3 := newEst(m3)
	ctx = &stopAfter{Context: context.Background(), n: 1 << 30}
	got, err := TrainResumable(ctx, m3, ds, est3, c.ls, ss, c.ts, 5, path, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	total := want[len(want)-1].Step
	if n := int(ctx.calls.Load()); n != total-c.saved {
		t.Errorf("the resumed run ran %d steps, want %d (from the checkpoint of step %d)", n, total-c.saved, c.saved)
	}
	if len(got) != len(want) {
		t.Fatalf("curve of %d points, uninterrupted %d", len(got), len(want))
	}
	for i, p := range want {
		q := got[i]
		if p.Step != q.Step || p.Epoch != q.Epoch || p.Loss != q.Loss || p.Temperature != q.Temperature {
			t.Errorf("curve point %d: resumed %+v, uninterrupted %+v", i, q, p)
		}
	}
	ps1, ps3 := m1.params(), m3.params()
	if len(ps1) != len(ps3) {
		t.Fatalf("%d and %d parameters", len(ps1), len(ps3))
	}
	for i, p := range ps1 {
		if !equalBits(p.data, ps3[i].data) {
			t.Errorf("parameter %s differs from the uninterrupted run's", p.name)
		}
	}
	if _, ok := m1.Temperature(); ok != (c.ls.LearnTemperature) {
		t.Errorf("learned temperature %v", ok)
	}
	if est1 != nil {
		for y := range uint64(ds.Items) {
			if a, b := est1.Prob(y), est3.Prob(y); a != b {
				t.Fatalf("estimator p̂(%d): resumed %v, uninterrupted %v", y, b, a)
			}
		}
	}
}

// equalBits compares two parameter arrays bit for bit.
func equalBits(a, b any) bool {
	switch a := a.(type) {
	case []float32:
		return slices.Equal(a, b.([]float32))
	case []float64:
		return slices.Equal(a, b.([]float64))
	}
	return false
}

// TestCheckpointRefused checks that a checkpoint is resumed only by its own run: other
// settings, another seed or other data are errors naming the file and what differs; so are a
// corrupt checkpoint, an estimator that cannot save its state and checkpoint_every without a
// checkpoint file.
func TestCheckpointRefused(t *testing.T) {
	ds := idDataset(50, 40, 200, 7)
	s := Settings{EmbeddingDim: 4, Hidden: []int{4}}
	ls := losses.Settings{Variant: losses.VariantLogQ}
	ts := TrainSettings{BatchSize: 20, Epochs: 1}
	dir := t.TempDir()
	path := filepath.Join(dir, "checkpoint")
	if _, err := TrainResumable(context.Background(), must(New(s, ds, tensor.Float32, 1)), ds, newCountEstimator(ds, 20), ls, samplerOf(ls), ts, 1, path, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	other := idDataset(50, 40, 200, 8)
	moreLR := ts
	moreLR.LearningRate = 0.01
	everyStep := ts
	everyStep.CheckpointEvery, everyStep.LogSeconds = 1, 3 // neither changes the result: accepted
	for _, c := range []struct {
		name string
		ts   TrainSettings
		ls   losses.Settings
		seed int64
		data bool
		want string
	}{
		{"learning rate", moreLR, ls, 1, false, "train settings"},
		{"loss", ts, losses.Settings{Variant: losses.VariantPlain}, 1, false, "loss settings"},
		{"seed", ts, ls, 2, false, "seed 1, this run 2"},
		{"data", ts, ls, 1, true, "data"},
		{"checkpoint frequency", everyStep, ls, 1, false, ""},
	} {
		d := ds
		if c.data {
			d = other
		}
		_, err := TrainResumable(context.Background(), must(New(s, d, tensor.Float32, 1)), d, newCountEstimator(d, 20), c.ls, samplerOf(c.ls), c.ts, c.seed, path, nil, nil, nil)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), path+": a checkpoint of another run ("+c.want) {
			t.Errorf("%s: error %v", c.name, err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 4
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = TrainResumable(context.Background(), must(New(s, ds, tensor.Float32, 1)), ds, newCountEstimator(ds, 20), ls, samplerOf(ls), ts, 1, path, nil, nil, nil)
	if err == nil || !strings.HasPrefix(err.Error(), path+": corrupt checkpoint file") {
		t.Errorf("flipped bit: %v", err)
	}
	_, err = Train(context.Background(), must(New(s, ds, tensor.Float32, 1)), ds, newCountEstimator(ds, 20), ls, samplerOf(ls), everyStep, 1, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "checkpoint_every: 1, but this training writes no checkpoints") {
		t.Errorf("checkpoint_every without a checkpoint file: %v", err)
	}
	_, err = TrainResumable(context.Background(), must(New(s, ds, tensor.Float32, 1)), ds, opaqueEstimator{newCountEstimator(ds, 20)}, ls, samplerOf(ls), ts, 1, filepath.Join(dir, "new"), nil, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "cannot save its state") {
		t.Errorf("estimator without state: %v", err)
	}
}

// opaqueEstimator hides the state methods of its estimator.
type opaqueEstimator struct{ e *countEstimator }

func (o opaqueEstimator) Observe(t int64, items []uint64) { o.e.Observe(t, items) }
func (o opaqueEstimator) Prob(y uint64) float64           { return o.e.Prob(y) }

// ExampleTrainResumable trains with a checkpoint at the end of every epoch. Called again with
// the same checkpoint file, as a run restarted after being killed would be, training resumes
// from the checkpoint: here the last one, so no step is run again and the curve is the same.
func ExampleTrainResumable() {
	ds := idDataset(200, 100, 1000, 7)
	dir, err := os.MkdirTemp("", "checkpoint")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "train.checkpoint")
	ls := losses.Settings{Variant: losses.VariantLogQ, LearnTemperature: true}
	ts := TrainSettings{BatchSize: 50, Epochs: 2}
	var curves [2]Curve
	for i := range curves {
		m, err := New(Settings{EmbeddingDim: 8, Hidden: []int{8}}, ds, tensor.Float32, 1)
		if err != nil {
			fmt.Println(err)
			return
		}
		if curves[i], err = TrainResumable(context.Background(), m, ds, newCountEstimator(ds, 50), ls, samplerOf(ls), ts, 1, path, nil, nil, nil); err != nil {
			fmt.Println(err)
			return
		}
	}
	last := [2]Point{curves[0][len(curves[0])-1], curves[1][len(curves[1])-1]}
	fmt.Println("steps:", last[0].Step)
	fmt.Println("same loss and temperature:", last[0].Loss == last[1].Loss && last[0].Temperature == last[1].Temperature)
	// Output:
	// steps: 40
	// same loss and temperature: true
}

// TestCheckpointSparseState: a checkpoint written after a few steps on large tables stores the
// optimiser state of the touched rows alone (at most 3 steps × 50 rows of each of the 5,000), so
// that it is smaller than the parameters and Adam's two dense moments (3 × the parameters'
// bytes, what it was) by far: at most the parameters plus a quarter; and resuming from it ends
// bit-identical to a run never interrupted.
func TestCheckpointSparseState(t *testing.T) {
	ds := idDataset(5000, 5000, 2000, 3)
	s := Settings{EmbeddingDim: 8, Hidden: []int{8}}
	ls, ss := losses.Settings{Variant: losses.VariantPlain}, uniformSampler(4)
	ts := TrainSettings{BatchSize: 50, Steps: 6, LogEvery: 1, CheckpointEvery: 3}
	m1 := must(New(s, ds, tensor.Float32, 1))
	plain := ts
	plain.CheckpointEvery = 0
	if _, err := Train(context.Background(), m1, ds, nil, ls, ss, plain, 5, nil); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "checkpoint")
	m2 := must(New(s, ds, tensor.Float32, 1))
	if _, err := TrainResumable(&stopAfter{Context: context.Background(), n: 4}, m2, ds, nil, ls, ss, ts, 5, path, nil, nil, nil); err != context.Canceled {
		t.Fatalf("stopped run: error %v", err)
	}
	var params int64
	for _, p := range m2.params() {
		params += 4 * int64(p.size())
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > params+params/4 {
		t.Errorf("checkpoint of %d bytes for %d bytes of parameters: the optimiser state is not sparse", st.Size(), params)
	}
	m3 := must(New(s, ds, tensor.Float32, 2))
	if _, err := TrainResumable(context.Background(), m3, ds, nil, ls, ss, ts, 5, path, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	for i, p := range m1.params() {
		if !equalBits(p.data, m3.params()[i].data) {
			t.Errorf("parameter %s differs from the uninterrupted run's", p.name)
		}
	}
}
