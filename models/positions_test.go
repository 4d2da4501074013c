package models

import (
	"context"
	"math"
	"slices"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/samplers"
)

// loadSequences loads synthetic data with its sequence index.
func loadSequences(t testing.TB, s datasets.SyntheticSettings, seed int64) *datasets.Dataset {
	t.Helper()
	ds, err := datasets.LoadWith(datasets.Settings{Source: "synthetic", Synthetic: s}, seed, datasets.Options{Sequences: true})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// sasrecSettings is a small SASRec model of width 8.
func sasrecSettings(maxLen int, dropout float64, windowing datasets.Windowing) Settings {
	return Settings{EmbeddingDim: 8, Sequence: SequenceSettings{Encoder: EncoderSASRec, MaxLength: maxLen, Blocks: 1,
		Dropout: &dropout, Windowing: windowing}}
}

// TestSASRecTrains trains SASRec at every position of its windows with Khrylchenko et al.'s
// sampler (in_batch_unique shared by every position plus uniform_per_row) and corrected logQ, and
// with the full softmax: the loss falls, and Recall@10 of the test pairs, each queried by its
// history, ends above the popularity baseline.
func TestSASRecTrains(t *testing.T) {
	ds := loadSequences(t, datasets.SyntheticSettings{Items: 100, Queries: 150, Interactions: 6000, Clusters: 5, Zipf: 0.5}, 1)
	for _, c := range []testRun{
		{losses.Settings{Variant: losses.VariantLogQCorrected, Temperature: 1},
			samplers.Settings{Kind: samplers.KindMixture, Of: []samplers.Settings{{Kind: samplers.KindInBatchUnique, Negatives: 16}, uniformPerRowSampler(16)}}},
		{losses.Settings{Variant: losses.VariantFull, Temperature: 1}, samplers.Settings{Kind: samplers.KindFull}},
	} {
		t.Run(c.name(), func(t *testing.T) {
			m, err := New(sasrecSettings(20, 0.1, datasets.WindowingAll), ds, tensor.Float32, 1)
			if err != nil {
				t.Fatal(err)
			}
			ts := TrainSettings{BatchSize: 16, Epochs: 6, LearningRate: 0.01, LogEvery: 5}
			curve, err := Train(context.Background(), m, ds, newCountEstimator(ds, 16*20), c.ls, c.ss, ts, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			if first, last := curve[0].Loss, curve[len(curve)-1].Loss; !(last < 0.9*first) {
				t.Errorf("loss went from %v to %v", first, last)
			}
			r, pop := historyRecallAt10(t, m, ds), popularityRecallAt10(ds)
			t.Logf("loss %.4f → %.4f, Recall@10 %.3f, popularity %.3f, %d steps", curve[0].Loss, curve[len(curve)-1].Loss, r, pop, curve[len(curve)-1].Step)
			if !(r > pop) {
				t.Errorf("Recall@10 %.3f, popularity %.3f", r, pop)
			}
		})
	}
}

// historyRecallAt10 is Recall@10 of the test pairs, each queried by its history (embedPairs).
func historyRecallAt10(t *testing.T, m *Model, ds *datasets.Dataset) float64 {
	t.Helper()
	idx := make([]int, len(ds.Test))
	for i := range idx {
		idx[i] = i
	}
	u, err := m.embedPairs(ds, datasets.PartTest, idx)
	if err != nil {
		t.Fatal(err)
	}
	return recallOf(t, m, ds, u)
}

// TestPositionsEqualRows: training SASRec at every position of its windows is training those
// positions one row each. A step of every window of a small dataset (B windows of L positions,
// the positions before a short window's first target padding) is compared with a step of a model
// whose queries are the same positions as rows of their own (an id table holding SASRec's hidden
// states, one row per non-padded position, with no padding) and whose items are the same output
// table, over the same positives, rewards and estimator: for each loss and sampler (in-batch
// over the positions, distinct in-batch, shared and per-row uniform, their mixtures, memory,
// the full softmax; nce and importance, whose correction counts a row's negatives; distinct
// in-batch with more negatives than the step has distinct items, some columns empty), the loss
// and the output table's gradient are the same to 1e-9 (float64).
func TestPositionsEqualRows(t *testing.T) {
	ds := loadSequences(t, datasets.SyntheticSettings{Items: 12, Queries: 5, Interactions: 60, Clusters: 2}, 3)
	s := sasrecSettings(4, 0, datasets.WindowingAll)
	s.Sequence.SeparateOutput = true
	unique := func(k int) samplers.Settings {
		return samplers.Settings{Kind: samplers.KindInBatchUnique, Negatives: k}
	}
	for _, c := range []testRun{
		{losses.Settings{Variant: losses.VariantLogQ, Temperature: 0.5}, samplers.Settings{}},
		{losses.Settings{Variant: losses.VariantNCE, Temperature: 0.5}, samplers.Settings{}},
		{losses.Settings{Variant: losses.VariantImportance, Temperature: 0.5}, samplers.Settings{}},
		{losses.Settings{Variant: losses.VariantLogQ, Temperature: 0.5, Impl: losses.ImplExpression}, mixedSampler(3)},
		{losses.Settings{Variant: losses.VariantPlain, Temperature: 0.5}, uniformSampler(3)},
		{losses.Settings{Variant: losses.VariantSampledLogistic, Temperature: 0.5}, uniformPerRowSampler(3)},
		{losses.Settings{Variant: losses.VariantLogQ, Temperature: 0.5}, mixedPerRowSampler(2)},
		{losses.Settings{Variant: losses.VariantLogQCorrected, Temperature: 0.5},
			samplers.Settings{Kind: samplers.KindMixture, Of: []samplers.Settings{unique(3), uniformPerRowSampler(2)}}},
		{losses.Settings{Variant: losses.VariantLogQCorrected, Temperature: 0.5},
			samplers.Settings{Kind: samplers.KindMixture, Of: []samplers.Settings{unique(20), uniformPerRowSampler(2)}}},
		{losses.Settings{Variant: losses.VariantLogQ, Temperature: 0.5}, samplers.Settings{Kind: samplers.KindMemory, MemoryBatches: 2}},
		{losses.Settings{Variant: losses.VariantFull, Temperature: 0.5}, samplers.Settings{Kind: samplers.KindFull}},
	} {
		t.Run(c.name()+"-"+string(c.ls.Impl), func(t *testing.T) {
			m, err := New(s, ds, tensor.Float64, 5)
			if err != nil {
				t.Fatal(err)
			}
			// Every position a row: all the windows in one step.
			trA, batch, rows, est := everyWindow(t, m, ds, c.ls, c.ss)
			// The same positions one row each.
			var train []datasets.Interaction
			var valid []int
			for i, x := range batch {
				if x.Item != candidates.NoItem {
					train = append(train, datasets.Interaction{Query: int32(len(train)), Item: x.Item, Reward: x.Reward})
					valid = append(valid, i)
				}
			}
			if len(valid) == len(batch) || len(valid) == 0 {
				t.Fatalf("%d of %d positions have a target: the test needs padding and targets", len(valid), len(batch))
			}
			n, d := len(train), m.Dim()
			dsB := &datasets.Dataset{Name: "positions", Queries: n, Items: ds.Items, Train: train,
				QueryFeatures: &datasets.Features{Fields: []datasets.Field{datasets.IDField("position", n)}}, ItemFeatures: ds.ItemFeatures}
			hidden := must(must(newSASRecInference[float64](m.enc, rows.units, 4, towerFused)).run(&trA.seqIn))
			mB := &Model{s: Settings{EmbeddingDim: d, Hidden: []int{d}}, dt: tensor.Float64,
				tables: []*param{newParamOf(tensor.Float64, "query.position", n, d), newParamOf(tensor.Float64, "item.out", ds.Items, d)}}
			for k, i := range valid {
				for j := range d {
					values[float64](mB.tables[0])[k*d+j] = hidden[i*d+j]
				}
			}
			copy(values[float64](mB.tables[1]), values[float64](m.enc.out))
			mB.towers[sideQuery] = &tower{side: sideQuery, n: n, feats: dsB.QueryFeatures, in: d, denseOff: d,
				fields: []fieldInput{{field: &dsB.QueryFeatures.Fields[0], table: 0}}}
			mB.towers[sideItem] = &tower{side: sideItem, n: ds.Items, feats: ds.ItemFeatures, in: d, denseOff: d,
				fields: []fieldInput{{field: &ds.ItemFeatures.Fields[0], table: 1}}}
			if !slices.Equal(rows.counts, dsB.ItemCounts()) {
				t.Fatalf("the positions' targets %v are not the rows' %v", rows.counts, dsB.ItemCounts())
			}
			smpB, g := mustBuild(c.ss)
			tsB := TrainSettings{BatchSize: n}
			if err := tsB.Resolve(); err != nil {
				t.Fatal(err)
			}
			trB := must(newTrainer[float64](mB, dsB, est, must(losses.New(c.ls, g, tensor.Float64)), smpB, tsB, 1, towerFused))

			lossA := must(trA.forwardBackward(1, batch))
			trA.gradients()
			lossB := must(trB.forwardBackward(1, train))
			trB.gradients()
			if math.Abs(lossA-lossB) > 1e-9*math.Abs(lossB) {
				t.Errorf("loss %.15g at every position, %.15g one row each", lossA, lossB)
			}
			ga, gb := rowsOf(trA.grads[1]), rowsOf(trB.grads[1])
			if len(ga) != len(gb) {
				t.Fatalf("the output table's gradient reaches %d rows at every position, %d one row each", len(ga), len(gb))
			}
			for r, a := range ga {
				for j, v := range a {
					if w := gb[r][j]; math.Abs(v-w) > 1e-9*(1+math.Abs(w)) {
						t.Fatalf("output row %d [%d]: gradient %.15g at every position, %.15g one row each", r, j, v, w)
					}
				}
			}
		})
	}
}

// TestInBatchUniqueEmptyColumns: a step of SASRec at every position with Khrylchenko et al.'s
// sampler whose in_batch_unique asks for more negatives than the step has distinct items (12
// items at most) leaves the rest of its columns empty, and they change nothing: with k = 20 and
// k = 40 (8 and 28 empty columns or more, the same draws) the loss, the dense weights' gradients
// and the rows the tables' gradients reach, with their values, are the same to 1e-12 (float64).
func TestInBatchUniqueEmptyColumns(t *testing.T) {
	ds := loadSequences(t, datasets.SyntheticSettings{Items: 12, Queries: 5, Interactions: 60, Clusters: 2}, 3)
	s := sasrecSettings(4, 0, datasets.WindowingAll)
	ls := losses.Settings{Variant: losses.VariantLogQCorrected, Temperature: 0.5}
	type result struct {
		loss  float64
		dense [][]float64
		rows  []map[int32][]float64
	}
	run := func(k int) result {
		m, err := New(s, ds, tensor.Float64, 5)
		if err != nil {
			t.Fatal(err)
		}
		tr, batch, _, _ := everyWindow(t, m, ds, ls, samplers.Settings{Kind: samplers.KindMixture, Of: []samplers.Settings{
			{Kind: samplers.KindInBatchUnique, Negatives: k}, uniformPerRowSampler(2)}})
		if !tr.g.Unfilled {
			t.Fatalf("geometry %v is not Unfilled", tr.g)
		}
		var r result
		r.loss = must(tr.forwardBackward(1, batch))
		tr.gradients()
		for _, g := range tr.denseGrad {
			r.dense = append(r.dense, slices.Clone(data[float64](g.Value())))
		}
		for _, rg := range tr.grads {
			r.rows = append(r.rows, rowsOf(rg))
		}
		return r
	}
	a, b := run(20), run(40)
	if math.Abs(a.loss-b.loss) > 1e-12*math.Abs(b.loss) {
		t.Errorf("loss %.17g with k = 20, %.17g with k = 40", a.loss, b.loss)
	}
	for i := range a.dense {
		for j, v := range a.dense[i] {
			if w := b.dense[i][j]; math.Abs(v-w) > 1e-12*(1+math.Abs(w)) {
				t.Fatalf("dense gradient %d [%d]: %.17g with k = 20, %.17g with k = 40", i, j, v, w)
			}
		}
	}
	for ti := range a.rows {
		if len(a.rows[ti]) != len(b.rows[ti]) {
			t.Fatalf("table %d: the gradient reaches %d rows with k = 20, %d with k = 40", ti, len(a.rows[ti]), len(b.rows[ti]))
		}
		for r, x := range a.rows[ti] {
			y, ok := b.rows[ti][r]
			if !ok {
				t.Fatalf("table %d: row %d has a gradient with k = 20 only", ti, r)
			}
			for j, v := range x {
				if math.Abs(v-y[j]) > 1e-12*(1+math.Abs(y[j])) {
					t.Fatalf("table %d row %d [%d]: %.17g with k = 20, %.17g with k = 40", ti, r, j, v, y[j])
				}
			}
		}
	}
}

// everyWindow returns a float64 trainer of m (a SASRec model) with loss ls and sampler ss and a
// fixed count estimator of the positions' targets, whose step holds every window of ds: the
// trainer, that step's batch (every position a row), the windows' rows and the estimator.
func everyWindow(t *testing.T, m *Model, ds *datasets.Dataset, ls losses.Settings, ss samplers.Settings) (*trainer[float64], []datasets.Interaction, *stepRows, *countEstimator) {
	t.Helper()
	rows := must(newStepRows(m.s, ds))
	windows := make([]int32, rows.units)
	for k := range windows {
		windows[k] = int32(k)
	}
	smp, g := mustBuild(ss)
	gA := must(rows.geometry(g))
	gA.Sampler = g.Sampler
	ts := TrainSettings{BatchSize: len(windows)}
	if err := ts.Resolve(); err != nil {
		t.Fatal(err)
	}
	est := countEstimatorOf(rows.counts, 40)
	tr := must(newTrainer[float64](m, ds, est, must(losses.New(ls, gA, tensor.Float64)), smp, ts, 1, towerFused))
	return tr, tr.compose(ds, windows), rows, est
}

// rowsOf returns a row gradient by row.
func rowsOf[T float](rg *rowGrad[T]) map[int32][]float64 {
	out := map[int32][]float64{}
	for k, r := range rg.rows {
		for _, v := range rg.grad[k*rg.dim : (k+1)*rg.dim] {
			out[r] = append(out[r], float64(v))
		}
	}
	return out
}

// TestMeanTowerTrainsSharedTable: in a training step of the mean encoder with share_embeddings,
// one row per training pair with its history as the query, the gradient of the item id table
// is the loss's derivative by central finite differences at the rows read by the histories only,
// by the item tower only and by both (so it reaches the shared rows from both towers), and the
// history reads the item tower's table.
func TestMeanTowerTrainsSharedTable(t *testing.T) {
	ds := loadSequences(t, datasets.SyntheticSettings{Items: 30, Queries: 8, Interactions: 200, Clusters: 3}, 2)
	s := Settings{EmbeddingDim: 3, Hidden: []int{5, 3}, ShareEmbeddings: true, InitStd: 0.5,
		Sequence: SequenceSettings{Encoder: EncoderMean, MaxLength: 4}}
	m := must(New(s, ds, tensor.Float64, 3))
	table := m.towers[sideItem].fields[0].table
	if m.towers[sideQuery].history.table != table {
		t.Fatal("the history does not read the item tower's id table")
	}
	ls := losses.Settings{Variant: losses.VariantLogQ, Temperature: 0.5}
	smp, g := mustBuild(samplers.Settings{})
	ts := TrainSettings{BatchSize: 6}
	if err := ts.Resolve(); err != nil {
		t.Fatal(err)
	}
	tr := must(newTrainer[float64](m, ds, newCountEstimator(ds, 6), must(losses.New(ls, g, tensor.Float64)), smp, ts, 1, towerFused))
	idx := []int32{150, 151, 152, 153, 154, 155} // pairs late in time: their histories are full
	batch := tr.compose(ds, idx)
	must(tr.forwardBackward(1, batch))
	tr.gradients()
	grad := rowsOf(tr.grads[table])
	inHistory, inItems := map[int32]bool{}, map[int32]bool{}
	for _, i := range idx {
		for _, it := range ds.History(datasets.PartTrain, int(i), 4) {
			inHistory[it] = true
		}
		inItems[ds.Train[i].Item] = true
	}
	kinds := map[string]int32{}
	for it := range int32(ds.Items) {
		switch {
		case inHistory[it] && inItems[it]:
			kinds["both"] = it
		case inHistory[it]:
			kinds["histories"] = it
		case inItems[it]:
			kinds["items"] = it
		}
	}
	if len(kinds) != 3 {
		t.Fatalf("the batch's rows read by histories, items or both: %v", kinds)
	}
	x := values[float64](m.tables[table])
	for kind, it := range kinds {
		for j := range 3 {
			fd := centralDifference(x, int(it)*3+j, func() float64 { return must(tr.forwardBackward(1, tr.compose(ds, idx))) })
			if a := grad[it][j]; !agrees(a, fd) {
				t.Errorf("item %d (read by %s) [%d]: gradient %.10g, finite difference %.10g", it, kind, j, a, fd)
			}
		}
	}
}

// TestEmbedPairHistories: a held-out pair's query is its history: for the mean encoder the tower
// of its padded History, for SASRec the encoder's hidden state at the last position of it
// (EmbedQueries, which has no history, is an error);
// PairQueries gives the pairs of a user with the same history one row; a user whose every pair
// is held out (split kind query) has an empty history, and SASRec's query for it is zero.
func TestEmbedPairHistories(t *testing.T) {
	for _, kind := range []datasets.SplitKind{datasets.SplitRandom, datasets.SplitQuery} {
		ds, err := datasets.LoadWith(datasets.Settings{Source: "synthetic", Synthetic: datasets.SyntheticSettings{Items: 40, Queries: 30, Interactions: 600, Clusters: 3},
			Split: datasets.SplitSettings{Kind: kind, TestFraction: 0.2}}, 1, datasets.Options{Sequences: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []Settings{
			{EmbeddingDim: 4, Hidden: []int{4}, Sequence: SequenceSettings{Encoder: EncoderMean, MaxLength: 5}},
			sasrecSettings(5, 0.2, datasets.WindowingLast),
		} {
			m := must(New(s, ds, tensor.Float32, 1))
			if _, err := m.EmbedQueries([]int32{0}); err == nil {
				t.Errorf("%s: EmbedQueries of a model that reads histories", s.Sequence.Encoder)
			}
			row, first := m.PairQueries(ds, datasets.PartTest)
			u := must(m.embedPairs(ds, datasets.PartTest, first))
			d, L := m.Dim(), 5
			empty := 0
			for r, i := range first {
				h := ds.History(datasets.PartTest, i, L)
				w := &Window{Rows: 1, Len: L, Items: make([]int32, L)}
				datasets.PadLeft(w.Items, h)
				var want []float32
				if m.enc != nil {
					want = must(m.enc.encode(w))[(L-1)*d:]
				} else {
					want = must(m.embedHistories([]int32{ds.Test[i].Query}, w))
				}
				for j, v := range want {
					if math.Abs(float64(u[r*d+j]-v)) > 1e-5 {
						t.Fatalf("%s, %s: test pair %d [%d]: %v, its history's %v", kind, s.Sequence.Encoder, i, j, u[r*d+j], v)
					}
				}
				if len(h) == 0 {
					empty++
					if m.enc != nil && slices.ContainsFunc(u[r*d:(r+1)*d], func(v float32) bool { return v != 0 }) {
						t.Errorf("%s: SASRec's query of an empty history is %v, not zero", kind, u[r*d:(r+1)*d])
					}
				}
			}
			if (kind == datasets.SplitQuery) != (empty == len(first)) || kind == datasets.SplitRandom && empty == len(first) {
				t.Errorf("%s: %d of %d test rows have an empty history", kind, empty, len(first))
			}
			for i, x := range ds.Test {
				r := first[row[i]]
				if ds.Test[r].Query != x.Query || ds.Sequences.Before[datasets.PartTest][r] != ds.Sequences.Before[datasets.PartTest][i] {
					t.Fatalf("%s: test pair %d shares the row of pair %d, another query or history", kind, i, r)
				}
			}
		}
	}
}
