package models

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/samplers"
)

// TestTrainWithNewSamplers: the trainer asks a sampler it does not know the kind of: popularity
// (no estimator needed) and a mixture of in_batch and popularity (an estimator needed) train the
// logq-corrected model on planted clusters and the loss falls by a fifth.
func TestTrainWithNewSamplers(t *testing.T) {
	ds := loadSynthetic(t, datasets.SyntheticSettings{Items: 200, Queries: 400, Interactions: 8000, Clusters: 10, Zipf: 0.5}, 1)
	for _, ss := range []samplers.Settings{
		{Kind: samplers.KindPopularity, Negatives: 32},
		{Kind: samplers.KindMixture, Of: []samplers.Settings{{Kind: samplers.KindInBatch}, {Kind: samplers.KindPopularity, Negatives: 16}}},
	} {
		t.Run(string(ss.Kind), func(t *testing.T) {
			m, err := New(Settings{EmbeddingDim: 16, Hidden: []int{32, 16}}, ds, tensor.Float32, 1)
			if err != nil {
				t.Fatal(err)
			}
			ts := TrainSettings{BatchSize: 64, Epochs: 2, LearningRate: 0.01, LogEvery: 20}
			curve, err := Train(context.Background(), m, ds, newCountEstimator(ds, 64), losses.Settings{Variant: losses.VariantLogQ, Temperature: 0.1}, ss, ts, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			if first, last := curve[0].Loss, curve[len(curve)-1].Loss; !(last < 0.8*first) {
				t.Errorf("loss went from %v to %v", first, last)
			}
		})
	}
}

// TestLossFitsSampler: the loss is resolved for the sampler's geometry: a variant that scores the
// whole corpus needs sampler full, which serves no other variant, and q_source is for a sampler
// whose columns are the batch's positives; each mismatch is an error naming the key and the
// sampler, before training starts.
func TestLossFitsSampler(t *testing.T) {
	ds := tinyDataset()
	for _, tt := range []struct {
		ls   losses.Settings
		ss   samplers.Settings
		want string
	}{
		{losses.Settings{Variant: losses.VariantFull}, uniformSampler(2), "variant: full scores the whole corpus, which needs sampler full, not uniform"},
		{losses.Settings{Variant: losses.VariantLogQ}, samplers.Settings{Kind: samplers.KindFull}, "variant: sampler full scores the whole corpus"},
		{losses.Settings{Variant: losses.VariantImportance, QSource: losses.QSourceCounts}, samplers.Settings{Kind: samplers.KindPopularity, Negatives: 2},
			"q_source: variant importance reads sampler popularity's own q"},
	} {
		m := must(New(testSettings, ds, tensor.Float64, 1))
		_, err := Train(context.Background(), m, ds, newCountEstimator(ds, 4), tt.ls, tt.ss, TrainSettings{BatchSize: 4, Steps: 1}, 1, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s with %s: got %v, want an error containing %q", tt.ls.Variant, tt.ss.Kind, err, tt.want)
		}
	}
}

// TestMemoryPassesNoGradient: with memory (K = 1), the second step's extra columns are the first
// batch's items. The loss depends on their embeddings (a central finite difference of the loss
// with respect to each such row is far from 0), yet the step leaves those rows unchanged, while it
// updates the rows of the batch's own items: no gradient reaches the memory.
func TestMemoryPassesNoGradient(t *testing.T) {
	ids := func(n int) [][]int32 {
		bags := make([][]int32, n)
		for i := range bags {
			bags[i] = []int32{int32(i)}
		}
		return bags
	}
	ds := &datasets.Dataset{Name: "memory", Queries: 4, Items: 8,
		QueryFeatures: &datasets.Features{Fields: []datasets.Field{bagField("query", 4, ids(4), nil)}},
		ItemFeatures:  &datasets.Features{Fields: []datasets.Field{bagField("item", 8, ids(8), nil)}}}
	for i := range 8 {
		ds.Train = append(ds.Train, datasets.Interaction{Query: int32(i % 4), Item: int32(i), Reward: 1})
	}
	m := must(New(Settings{EmbeddingDim: 4, Hidden: []int{4}, InitStd: 0.5}, ds, tensor.Float64, 1))
	ls := losses.Settings{Variant: losses.VariantLogQ, Temperature: 0.5}
	smp, g := mustBuild(samplers.Settings{Kind: samplers.KindMemory})
	ts := TrainSettings{BatchSize: 4, Steps: 2}
	if err := ts.Resolve(); err != nil {
		t.Fatal(err)
	}
	tr := must(newTrainer[float64](m, ds, newCountEstimator(ds, 4), must(losses.New(ls, g, tensor.Float64)), smp, ts, 1, towerFused))
	if _, err := tr.step(1, ds.Train[:4]); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.forwardBackward(2, ds.Train[4:]); err != nil {
		t.Fatal(err)
	}
	if got := tr.ids[sideItem][4:]; got[0] != 0 || got[3] != 3 {
		t.Fatalf("memory rows %v, want the first batch's items 0..3", got)
	}
	fi := m.towers[sideItem].fields[0]
	tab := values[float64](m.tables[fi.table])
	dim := m.s.EmbeddingDim
	row := func(item int) []float64 {
		bag, _ := fi.field.Bag(item)
		return tab[int(bag[0])*dim : int(bag[0]+1)*dim]
	}
	const h = 1e-5
	for item := range 4 {
		r := row(item)
		r[0] += h
		lp, err := tr.run()
		r[0] -= 2 * h
		lm, err2 := tr.run()
		r[0] += h
		if err != nil || err2 != nil {
			t.Fatal(err, err2)
		}
		if fd := (lp - lm) / (2 * h); math.Abs(fd) < 1e-6 {
			t.Errorf("item %d: the loss does not depend on the memory row (finite difference %v)", item, fd)
		}
	}
	if _, err := tr.run(); err != nil { // the step's gradients at the unperturbed parameters
		t.Fatal(err)
	}
	before := make([][]float64, 8)
	for item := range 8 {
		before[item] = slices.Clone(row(item))
	}
	if err := tr.apply(); err != nil {
		t.Fatal(err)
	}
	for item := range 8 {
		changed := !slices.Equal(before[item], row(item))
		if memoryOnly := item < 4; changed == memoryOnly {
			t.Errorf("item %d (memory only: %t): row changed %t", item, memoryOnly, changed)
		}
	}
}

// fixedPerRow is a test sampler with 3 items of each row's own, the same whatever the corpus
// size: row i draws items i, i+1 and i+2 modulo 5, declared with q = 1/5.
type fixedPerRow struct{}

func (fixedPerRow) Shape() samplers.Shape {
	return samplers.Shape{Geometry: candidates.Geometry{Sampler: "fixed_per_row", Layout: candidates.First, PerRow: 3}}
}
func (fixedPerRow) Draw(_ *rand.Rand, _ *samplers.Data, pos, rows []int32) {
	copy(rows, pos)
	for i := range pos {
		for k := range 3 {
			rows[len(pos)+3*i+k] = int32((i + k) % 5)
		}
	}
}
func (fixedPerRow) Declare(_ *samplers.Data, pos, rows []int32, _ samplers.Law, c *candidates.Step) error {
	lq := math.Log(0.2)
	logQ, logP := c.Col(candidates.LogQ), c.Col(candidates.LogP)
	for k := range c.ColItem {
		c.ColItem[k], logQ[k], logP[k] = candidates.NoItem, lq, lq
		if i, j := k/4, k%4; j > 0 {
			c.ColItem[k] = int64(rows[len(pos)+3*i+j-1])
		}
	}
	posQ, posP := c.Row(candidates.LogQ), c.Row(candidates.LogP)
	for i := range pos {
		posQ[i], posP[i] = lq, lq
	}
	return nil
}

// TestDistinctItemRows: a step that draws more item rows (4 positives + 4·3 own) than the corpus
// has items (5) runs the item tower once per distinct item; the same step on a corpus of 30 items
// (the extra ones never drawn) runs it once per item row. The two give the same loss and the same
// parameters after the step, to float64 rounding.
func TestDistinctItemRows(t *testing.T) {
	small := tinyDataset()
	large := tinyDataset()
	for e := 5; e < 30; e++ { // items that no step draws, with features of their own
		f := &large.ItemFeatures.Fields[0]
		f.IDs = append(f.IDs, int32(e%7))
		f.Offsets = append(f.Offsets, int32(len(f.IDs)))
		c := &large.ItemFeatures.Fields[1]
		c.Offsets = append(c.Offsets, int32(len(c.IDs)))
		large.ItemFeatures.Dense = append(large.ItemFeatures.Dense, 0)
	}
	large.Items = 30
	ls := losses.Settings{Variant: losses.VariantPlain}
	g := fixedPerRow{}.Shape().Geometry
	ts := TrainSettings{BatchSize: 4, Steps: 1}
	if err := ts.Resolve(); err != nil {
		t.Fatal(err)
	}
	var lossOf [2]float64
	var params [2][]float64
	for k, ds := range []*datasets.Dataset{small, large} {
		m := must(New(testSettings, ds, tensor.Float64, 1))
		tr := must(newTrainer[float64](m, ds, newCountEstimator(ds, 4), must(losses.New(ls, g, tensor.Float64)), fixedPerRow{}, ts, 1, towerFused))
		if tr.distinct != (k == 0) {
			t.Fatalf("corpus of %d items: distinct item rows %t", ds.Items, tr.distinct)
		}
		l, err := tr.step(1, ds.Train[:4])
		if err != nil {
			t.Fatal(err)
		}
		lossOf[k] = l
		for _, p := range m.params() {
			params[k] = append(params[k], values[float64](p)...)
		}
	}
	if math.Abs(lossOf[0]-lossOf[1]) > 1e-12*math.Abs(lossOf[1]) {
		t.Errorf("loss %v with distinct item rows, %v without", lossOf[0], lossOf[1])
	}
	if len(params[0]) != len(params[1]) {
		t.Fatalf("%d and %d parameters", len(params[0]), len(params[1]))
	}
	for k := range params[0] {
		if math.Abs(params[0][k]-params[1][k]) > 1e-12 {
			t.Fatalf("parameter %d after the step: %v with distinct item rows, %v without", k, params[0][k], params[1][k])
		}
	}
}

// strayItems is fixedPerRow drawing (draw) or declaring as a column (declare) an item past the
// corpus at one entry, as a registered sampler's mistake would.
type strayItems struct {
	fixedPerRow
	draw bool
}

func (s strayItems) Draw(rng *rand.Rand, d *samplers.Data, pos, rows []int32) {
	s.fixedPerRow.Draw(rng, d, pos, rows)
	if s.draw {
		rows[len(pos)+1] = 105
	}
}

func (s strayItems) Declare(d *samplers.Data, pos, rows []int32, law samplers.Law, c *candidates.Step) error {
	if err := s.fixedPerRow.Declare(d, pos, rows, law, c); err != nil {
		return err
	}
	if !s.draw {
		c.ColItem[2] = 7
	}
	return nil
}

// TestStrayItemsRefused: a sampler that draws, or declares as a column, an item outside the
// corpus fails the step with an error naming the sampler, the item and the corpus, not with an
// index out of range in the trainer.
func TestStrayItemsRefused(t *testing.T) {
	ds := tinyDataset()
	ls := losses.Settings{Variant: losses.VariantPlain}
	g := fixedPerRow{}.Shape().Geometry
	ts := TrainSettings{BatchSize: 4, Steps: 1}
	if err := ts.Resolve(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		draw bool
		want string
	}{
		{true, "sampler fixed_per_row drew item 105 (entry 5 of the step), outside the corpus [0, 5)"},
		{false, "sampler fixed_per_row declared as a column item 7 (entry 2 of the step), outside the corpus [0, 5)"},
	} {
		m := must(New(testSettings, ds, tensor.Float64, 1))
		tr := must(newTrainer[float64](m, ds, newCountEstimator(ds, 4), must(losses.New(ls, g, tensor.Float64)), strayItems{draw: tc.draw}, ts, 1, towerFused))
		if _, err := tr.step(1, ds.Train[:4]); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want an error containing %q", err, tc.want)
		}
	}
}
