package models

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/estimators"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/samplers"
)

func loadSynthetic(t testing.TB, s datasets.SyntheticSettings, seed int64) *datasets.Dataset {
	t.Helper()
	ds, err := datasets.Load(datasets.Settings{Source: "synthetic", Synthetic: s}, seed)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func streaming(t testing.TB, s estimators.Settings, ds *datasets.Dataset, batch int) estimators.Estimator {
	t.Helper()
	e, err := estimators.New(s, estimators.Env{BatchSize: batch, CorpusSize: ds.Items, Counts: ds.ItemCounts()}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// recallAt10 is Recall@10 of the test pairs with an exact scorer over all items.
func recallAt10(t *testing.T, m *Model, ds *datasets.Dataset) float64 {
	qs := make([]int32, len(ds.Test))
	for i, p := range ds.Test {
		qs[i] = p.Query
	}
	u, err := m.EmbedQueries(qs)
	if err != nil {
		t.Fatal(err)
	}
	return recallOf(t, m, ds, u)
}

// recallOf is Recall@10 of the test pairs, row i of u (len(ds.Test) × Dim) being test pair i's
// query, with an exact scorer over all items.
func recallOf(t *testing.T, m *Model, ds *datasets.Dataset, u []float32) float64 {
	t.Helper()
	items := make([]int32, ds.Items)
	for i := range items {
		items[i] = int32(i)
	}
	v, err := m.EmbedItems(items)
	if err != nil {
		t.Fatal(err)
	}
	d := m.Dim()
	score := func(i, j int) float64 {
		var s float64
		for k := range d {
			s += float64(u[i*d+k]) * float64(v[j*d+k])
		}
		return s
	}
	hits := 0
	for i, p := range ds.Test {
		pos := score(i, int(p.Item))
		above := 0
		for j := range ds.Items {
			if j != int(p.Item) && score(i, j) > pos {
				above++
			}
		}
		if above < 10 {
			hits++
		}
	}
	return float64(hits) / float64(len(ds.Test))
}

// popularityRecallAt10 is Recall@10 of recommending the 10 most frequent training items.
func popularityRecallAt10(ds *datasets.Dataset) float64 {
	counts := ds.ItemCounts()
	order := make([]int, len(counts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return counts[order[a]] > counts[order[b]] })
	top := map[int32]bool{}
	for _, i := range order[:10] {
		top[int32(i)] = true
	}
	hits := 0
	for _, p := range ds.Test {
		if top[p.Item] {
			hits++
		}
	}
	return float64(hits) / float64(len(ds.Test))
}

// TestTrainLearnsClusters trains the logq-corrected model with the streaming estimator on the
// planted-cluster synthetic data: the loss falls and Recall@10 ends far above the popularity
// baseline.
func TestTrainLearnsClusters(t *testing.T) {
	ds := loadSynthetic(t, datasets.SyntheticSettings{Items: 200, Queries: 400, Interactions: 20000, Clusters: 10, Zipf: 0.5}, 1)
	m, err := New(Settings{EmbeddingDim: 16, Hidden: []int{32, 16}}, ds, tensor.Float32, 1)
	if err != nil {
		t.Fatal(err)
	}
	ts := TrainSettings{BatchSize: 128, Epochs: 4, LearningRate: 0.01, LogEvery: 20}
	curve, err := Train(context.Background(), m, ds, streaming(t, estimators.Settings{}, ds, 128),
		losses.Settings{Variant: losses.VariantLogQ, Temperature: 0.1}, samplerOf(losses.Settings{Variant: losses.VariantLogQ, Temperature: 0.1}), ts, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if first, last := curve[0].Loss, curve[len(curve)-1].Loss; !(last < 0.8*first) {
		t.Errorf("loss went from %v to %v", first, last)
	}
	rec, pop := recallAt10(t, m, ds), popularityRecallAt10(ds)
	t.Logf("Recall@10 %.3f, popularity %.3f", rec, pop)
	if !(rec > 2*pop && rec > 0.3) {
		t.Errorf("Recall@10 %.3f, popularity baseline %.3f", rec, pop)
	}
}

// TestSequentialEstimatorTracksDrift: on synthetic data whose popularity ranking rotates every
// day, training in sequential order leaves the streaming estimator's p̂ at the last day's
// popularity (docs/logq.md §6), while shuffled order leaves it at the average over days, under which
// the last day's top items and the first day's are alike.
func TestSequentialEstimatorTracksDrift(t *testing.T) {
	const batch = 100
	ds := loadSynthetic(t, datasets.SyntheticSettings{Items: 100, Queries: 100, Interactions: 40000, Days: 10, Drift: 0.1, Zipf: 1}, 2)
	// With rotation by 10 ranks a day, items 10..19 are the top 10 of day 9 and items 0..9 (the
	// top of day 0) its bottom 10. truth is the ratio of their batch-inclusion probabilities
	// 1-(1-q)^B on day 9, q the item's frequency that day.
	ratio := func(p func(item int) float64) float64 {
		var last, first float64
		for i := range 10 {
			last += p(10 + i)
			first += p(i)
		}
		return last / first
	}
	day9 := map[int]float64{}
	n := 0.0
	for _, a := range ds.Train {
		if a.Day == 9 {
			day9[int(a.Item)]++
			n++
		}
	}
	truth := ratio(func(item int) float64 { return 1 - math.Pow(1-day9[item]/n, batch) })
	estimated := func(order Order) float64 {
		m, err := New(Settings{EmbeddingDim: 4, Hidden: []int{4}}, ds, tensor.Float32, 1)
		if err != nil {
			t.Fatal(err)
		}
		est := streaming(t, estimators.Settings{Alpha: 0.2}, ds, batch)
		ts := TrainSettings{BatchSize: batch, Epochs: 1, Order: order}
		if _, err := Train(context.Background(), m, ds, est, losses.Settings{Variant: losses.VariantLogQ}, samplerOf(losses.Settings{Variant: losses.VariantLogQ}), ts, 1, nil); err != nil {
			t.Fatal(err)
		}
		return ratio(func(item int) float64 { return est.Prob(uint64(item)) })
	}
	if r := estimated(OrderSequential); r < truth/1.5 || r > truth*1.5 {
		t.Errorf("sequential: p̂(last day's top 10) / p̂(first day's top 10) = %.2f, day 9's true ratio %.2f", r, truth)
	}
	if r := estimated(OrderShuffled); r < 0.5 || r > 2 {
		t.Errorf("shuffled: p̂(last day's top 10) / p̂(first day's top 10) = %.2f, want about 1 (true ratio of day 9 %.2f)", r, truth)
	}
}

// spyEstimator records the order of the calls to an inner estimator.
type spyEstimator struct {
	estimators.Estimator
	calls []string
}

func (s *spyEstimator) Observe(t int64, items []uint64) {
	s.calls = append(s.calls, "observe")
	s.Estimator.Observe(t, items)
}

func (s *spyEstimator) Prob(y uint64) float64 {
	s.calls = append(s.calls, "prob")
	return s.Estimator.Prob(y)
}

// TestEstimatorOrder: within a step the estimator first observes the batch's items (all of
// them, duplicates included) at global step t, then p̂ is read for every column (docs/logq.md §5), and
// LogP holds log p̂ after the observation.
func TestEstimatorOrder(t *testing.T) {
	ds := tinyDataset()
	_, tr := newTestTrainer(t, ds, losses.Settings{Variant: losses.VariantLogQ}, 4, 1)
	inner := streaming(t, estimators.Settings{Alpha: 0.5}, ds, 4)
	spy := &spyEstimator{Estimator: inner}
	tr.est = spy
	for step := int64(1); step <= 2; step++ {
		spy.calls = nil
		batch := ds.Train[(step-1)*4 : step*4]
		if _, err := tr.forwardBackward(step, batch); err != nil {
			t.Fatal(err)
		}
		tr.gradients()
		for _, rg := range tr.grads {
			rg.reset()
		}
		if want := append([]string{"observe"}, slices.Repeat([]string{"prob"}, 4)...); !slices.Equal(spy.calls, want) {
			t.Fatalf("step %d: calls %v, want %v", step, spy.calls, want)
		}
		for j, a := range batch {
			if want := math.Log(inner.Prob(uint64(a.Item))); viewOf(tr.st).LogP[j] != want || viewOf(tr.st).PosLogP[j] != want {
				t.Errorf("step %d column %d: LogP %v, PosLogP %v, want %v", step, j, viewOf(tr.st).LogP[j], viewOf(tr.st).PosLogP[j], want)
			}
		}
	}
	// the streaming estimator saw item 2 (in both batches) at steps 1 and 2: gap 1 moves B
	// halfway (α = 0.5) towards 1 from where step 1 left it, so p̂(2) rose.
	if inner.Prob(2) <= inner.Prob(4) {
		t.Errorf("p̂(2) = %v (seen at steps 1 and 2) <= p̂(4) = %v (seen once)", inner.Prob(2), inner.Prob(4))
	}
}

// TestStepSideInformation checks the loss's Step for each layout against the formulas of Train's
// documentation, computed here independently.
func TestStepSideInformation(t *testing.T) {
	ds := tinyDataset()
	const b = 4
	batch := ds.Train[:b]
	mItems := float64(ds.Items)
	est := newCountEstimator(ds, b)
	counts := ds.ItemCounts()
	prior := func(item int64) float64 {
		return math.Log(float64(counts[item]+1) / float64(len(ds.Train)+ds.Items))
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*(1+math.Abs(b)) }
	cases := append(slices.Clone(gradCases[:4]),
		defaultRun(losses.Settings{Variant: losses.VariantRelative, QSource: losses.QSourceEstimator}),
		testRun{losses.Settings{Variant: losses.VariantLogQ, QSource: losses.QSourceEstimator}, mixedSampler(2)})
	for _, run := range cases {
		ls, ss := run.ls, run.ss
		t.Run(run.name()+"-"+string(ls.QSource), func(t *testing.T) {
			_, tr := newTestTrainerWith(t, testSettings, ds, run, b, 1)
			if _, err := tr.forwardBackward(1, batch); err != nil {
				t.Fatal(err)
			}
			st, sv := tr.st, viewOf(tr.st)
			for i, a := range batch {
				if st.RowItem[i] != int64(a.Item) || sv.Rewards[i] != float64(a.Reward) || !near(sv.PosLogPrior[i], prior(int64(a.Item))) {
					t.Errorf("row %d: item %d reward %v prior %v", i, st.RowItem[i], sv.Rewards[i], sv.PosLogPrior[i])
				}
			}
			m := float64(ss.Negatives)
			for j, item := range st.ColItem {
				var wantP, wantQ float64
				switch {
				case ss.Kind == samplers.KindUniform:
					wantP, wantQ = math.Log(1-math.Pow(1-1/mItems, m)), -math.Log(mItems)
					if (j == 0) != (item == -1) {
						t.Fatalf("column %d has item %d", j, item)
					}
				case ls.Variant == losses.VariantFull:
					wantP, wantQ = 0, -math.Log(mItems)
					if item != int64(j) {
						t.Fatalf("column %d has item %d", j, item)
					}
				default:
					if j < b && item != int64(batch[j].Item) {
						t.Fatalf("column %d has item %d, want the positive %d", j, item, batch[j].Item)
					}
					p := est.Prob(uint64(item))
					// q̂ = count/N (q_source counts, the default) or inverted from p̂ = 1 − (1 − q̂)^B.
					q := float64(counts[item]) / float64(len(ds.Train))
					if ls.QSource == losses.QSourceEstimator {
						q = 1 - math.Pow(1-p, 1.0/b)
					}
					if ss.Kind == samplers.KindMixed {
						// p = 1 − (1 − p̂)(1 − 1/M)^m; q = ((B−1)·q̂ + m/M)/(B−1+m)
						p = 1 - (1-p)*math.Pow(1-1/mItems, m)
						q = ((b-1)*q + m/mItems) / (b - 1 + m)
					}
					wantP, wantQ = math.Log(p), math.Log(q)
				}
				if !near(sv.LogP[j], wantP) || !near(sv.LogQ[j], wantQ) {
					t.Errorf("column %d (item %d): LogP %v LogQ %v, want %v %v", j, item, sv.LogP[j], sv.LogQ[j], wantP, wantQ)
				}
				if item >= 0 && !near(sv.LogPrior[j], prior(item)) {
					t.Errorf("column %d: LogPrior %v, want %v", j, sv.LogPrior[j], prior(item))
				}
			}
			for i, a := range batch {
				switch {
				case ls.Variant == losses.VariantFull:
					if st.PosCol[i] != int(a.Item) || sv.PosLogP[i] != 0 || !near(sv.PosLogQ[i], -math.Log(mItems)) {
						t.Errorf("row %d: PosCol %d PosLogP %v PosLogQ %v", i, st.PosCol[i], sv.PosLogP[i], sv.PosLogQ[i])
					}
				case ss.Kind == samplers.KindUniform:
					if sv.PosLogP[i] != sv.LogP[1] || sv.PosLogQ[i] != sv.LogQ[1] {
						t.Errorf("row %d: PosLogP %v PosLogQ %v", i, sv.PosLogP[i], sv.PosLogQ[i])
					}
				default:
					if sv.PosLogP[i] != sv.LogP[i] || sv.PosLogQ[i] != sv.LogQ[i] {
						t.Errorf("row %d: PosLogP %v PosLogQ %v, column %v %v", i, sv.PosLogP[i], sv.PosLogQ[i], sv.LogP[i], sv.LogQ[i])
					}
				}
			}
		})
	}
}

// keyEstimator is an EmbeddingKeyer that keys an embedding by the sign pattern of its
// coordinates and records the embeddings it was given.
type keyEstimator struct {
	estimators.Estimator
	embs     [][]float32
	observed [][]uint64
}

func (k *keyEstimator) Keys(dst []uint64, emb []float32, dim int) []uint64 {
	k.embs = append(k.embs, append([]float32(nil), emb...))
	dst = dst[:0]
	for i := 0; i < len(emb); i += dim {
		var key uint64
		for j, v := range emb[i : i+dim] {
			if v > 0 {
				key |= 1 << j
			}
		}
		dst = append(dst, key)
	}
	return dst
}

func (k *keyEstimator) Observe(t int64, items []uint64) {
	k.observed = append(k.observed, append([]uint64(nil), items...))
	k.Estimator.Observe(t, items)
}

// TestEmbeddingKeyer: an EmbeddingKeyer gets the current item-tower embeddings of the batch's
// columns and the estimator observes and is queried with their keys.
func TestEmbeddingKeyer(t *testing.T) {
	ds := tinyDataset()
	m, tr := newTestTrainer(t, ds, losses.Settings{Variant: losses.VariantLogQ}, 4, 1)
	inner := streaming(t, estimators.Settings{}, ds, 4)
	k := &keyEstimator{Estimator: inner}
	tr.est, tr.keyer = k, k
	batch := ds.Train[:4]
	ids := make([]int32, 4)
	for i, a := range batch {
		ids[i] = a.Item
	}
	want, err := m.EmbedItems(ids)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.forwardBackward(1, batch); err != nil {
		t.Fatal(err)
	}
	if len(k.embs) != 1 || !slices.Equal(k.embs[0], want) {
		t.Fatalf("Keys got %v, want the current embeddings %v", k.embs, want)
	}
	keys := k.Keys(nil, want, m.Dim())
	if !slices.Equal(k.observed[0], keys) {
		t.Errorf("observed %v, want the keys %v", k.observed[0], keys)
	}
	for j := range batch {
		if w := math.Log(inner.Prob(keys[j])); viewOf(tr.st).LogP[j] != w {
			t.Errorf("column %d: LogP %v, want log p̂(key) %v", j, viewOf(tr.st).LogP[j], w)
		}
	}
}

// newTiny builds a small float32 model and a streaming estimator for ds.
func newTiny(t *testing.T, ds *datasets.Dataset, batch int, seed int64) (*Model, estimators.Estimator) {
	t.Helper()
	m, err := New(Settings{EmbeddingDim: 8, Hidden: []int{16, 8}}, ds, tensor.Float32, seed)
	if err != nil {
		t.Fatal(err)
	}
	return m, streaming(t, estimators.Settings{}, ds, batch)
}

// trainTiny trains a fresh newTiny model and returns it with its curve.
func trainTiny(t *testing.T, ds *datasets.Dataset, ls losses.Settings, ss samplers.Settings, ts TrainSettings, seed int64) (*Model, Curve, error) {
	t.Helper()
	m, est := newTiny(t, ds, ts.BatchSize, seed)
	c, err := Train(context.Background(), m, ds, est, ls, ss, ts, seed, nil)
	return m, c, err
}

// TestDeterministic: the same seed gives the same losses and embeddings bit for bit; another
// seed does not.
func TestDeterministic(t *testing.T) {
	ds := loadSynthetic(t, datasets.SyntheticSettings{Items: 300, Queries: 300, Interactions: 6000}, 3)
	ts := TrainSettings{BatchSize: 256, Epochs: 2, LogEvery: 1}
	for _, run := range []testRun{{losses.Settings{Variant: losses.VariantLogQ}, mixedSampler(32)}, {losses.Settings{Variant: losses.VariantPlain}, uniformSampler(64)}} {
		ls, ss := run.ls, run.ss
		m1, c1, err := trainTiny(t, ds, ls, ss, ts, 5)
		if err != nil {
			t.Fatal(err)
		}
		m2, c2, err := trainTiny(t, ds, ls, ss, ts, 5)
		if err != nil {
			t.Fatal(err)
		}
		_, c3, err := trainTiny(t, ds, ls, ss, ts, 6)
		if err != nil {
			t.Fatal(err)
		}
		if len(c1) != 2*(6000*9/10/256) {
			t.Fatalf("%d curve points", len(c1))
		}
		for i := range c1 {
			if c1[i].Loss != c2[i].Loss || c1[i].Step != c2[i].Step || c1[i].Epoch != c2[i].Epoch {
				t.Fatalf("%s: step %d: losses %v and %v", ss.Kind, i+1, c1[i].Loss, c2[i].Loss)
			}
		}
		if c1[len(c1)-1].Loss == c3[len(c3)-1].Loss {
			t.Errorf("%s: seeds 5 and 6 give the same final loss", ss.Kind)
		}
		ids := []int32{0, 1, 2, 299}
		e1, _ := m1.EmbedItems(ids)
		e2, _ := m2.EmbedItems(ids)
		if !slices.Equal(e1, e2) {
			t.Errorf("%s: embeddings differ between two runs with the same seed", ss.Kind)
		}
	}
}

// TestNaNStops: a NaN reaching the loss stops training with an error naming the step, before
// that step updates anything.
func TestNaNStops(t *testing.T) {
	ds := tinyDataset()
	m, err := New(Settings{EmbeddingDim: 3, Hidden: []int{4, 3}}, ds, tensor.Float32, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Sequential order: step 1 is train[0:2] (items 1, 2), step 2 train[2:4] (items 0, 3).
	tab := values[float32](m.tables[m.towers[sideItem].fields[0].table])
	tab[m.s.EmbeddingDim*4] = float32(math.NaN()) // page row 4: item 2's page
	before := map[*param][]float32{}
	ts := TrainSettings{BatchSize: 2, Steps: 3, Order: OrderSequential}
	_, err = Train(context.Background(), m, ds, newCountEstimator(ds, 2), losses.Settings{}, samplerOf(losses.Settings{}), ts, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "step 1 ") || !strings.Contains(err.Error(), "NaN") {
		t.Fatalf("error %v, want one naming step 1 and NaN", err)
	}
	for _, p := range m.params() {
		before[p] = append([]float32(nil), values[float32](p)...)
	}
	// Poison an item used first at step 2 instead: step 1 trains, step 2 fails.
	tab[m.s.EmbeddingDim*4] = 0.5
	tab[m.s.EmbeddingDim*6] = float32(math.Inf(1)) // page row 6: item 0's page
	_, err = Train(context.Background(), m, ds, newCountEstimator(ds, 2), losses.Settings{}, samplerOf(losses.Settings{}), ts, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "step 2 ") {
		t.Fatalf("error %v, want one naming step 2", err)
	}
	for _, p := range m.params() {
		for i, v := range values[float32](p) {
			if (math.IsNaN(float64(v)) || math.IsInf(float64(v), 0)) && !(&values[float32](p)[0] == &tab[0] && i == m.s.EmbeddingDim*6) {
				t.Fatalf("%s[%d] = %v after the failed step", p.name, i, v)
			}
		}
	}
}

// TestCancel: a cancelled context stops training with its error.
func TestCancel(t *testing.T) {
	ds := tinyDataset()
	m, err := New(Settings{EmbeddingDim: 3, Hidden: []int{3}}, ds, tensor.Float32, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c, err := Train(ctx, m, ds, newCountEstimator(ds, 2), losses.Settings{}, samplerOf(losses.Settings{}), TrainSettings{BatchSize: 2}, 1, nil)
	if !errors.Is(err, context.Canceled) || len(c) != 0 {
		t.Fatalf("curve %v, error %v", c, err)
	}
}

// TestProgressLines: progress to a non-terminal writer is plain lines, the last one at the last
// step.
func TestProgressLines(t *testing.T) {
	ds := tinyDataset()
	m, err := New(Settings{EmbeddingDim: 3, Hidden: []int{3}}, ds, tensor.Float32, 1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	ts := TrainSettings{BatchSize: 2, Steps: 12, LogEvery: 5, LogSeconds: 1e-9}
	c, err := Train(context.Background(), m, ds, newCountEstimator(ds, 2), losses.Settings{}, samplerOf(losses.Settings{}), ts, 1, &buf)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(c) != 3 || c[2].Step != 12 || c[2].Epoch != 3 || len(lines) != 3 {
		t.Fatalf("curve %v, lines %q", c, lines)
	}
	if !strings.HasPrefix(lines[2], "step 12/12 epoch 3 loss ") || !strings.Contains(lines[0], "examples/s eta") {
		t.Errorf("lines %q", lines)
	}
}

// TestStepTouchesOnlyBatchRows: a step reads and writes only the embedding rows of its batch
// (the step's cost does not depend on the table size; BenchmarkTrainStepVocab times it).
func TestStepTouchesOnlyBatchRows(t *testing.T) {
	ds := idDataset(5000, 5000, 64, 9)
	m, err := New(Settings{EmbeddingDim: 4, Hidden: []int{8, 4}}, ds, tensor.Float32, 1)
	if err != nil {
		t.Fatal(err)
	}
	before := [][]float32{slices.Clone(values[float32](m.tables[0])), slices.Clone(values[float32](m.tables[1]))}
	ts := TrainSettings{BatchSize: 64, Steps: 1}
	if _, err := Train(context.Background(), m, ds, newCountEstimator(ds, 64), losses.Settings{}, samplerOf(losses.Settings{}), ts, 1, nil); err != nil {
		t.Fatal(err)
	}
	used := [2]map[int32]bool{{}, {}}
	for _, a := range ds.Train {
		used[0][a.Query], used[1][a.Item] = true, true
	}
	for side := range 2 {
		w := values[float32](m.tables[side])
		for r := range 5000 {
			same := slices.Equal(w[4*r:4*r+4], before[side][4*r:4*r+4])
			if same == used[side][int32(r)] {
				t.Fatalf("%s row %d: used %v, unchanged %v", sideNames[side], r, used[side][int32(r)], same)
			}
		}
	}
}

// TestClipGlobalNorm: with SGD (lr 1) and clip c below the gradient norm, the whole update
// (dense weights and embedding rows together) has norm c.
func TestClipGlobalNorm(t *testing.T) {
	ds := tinyDataset()
	m, err := New(Settings{EmbeddingDim: 3, Hidden: []int{4, 3}, ShareEmbeddings: true}, ds, tensor.Float64, 1)
	if err != nil {
		t.Fatal(err)
	}
	var before [][]float64
	for _, p := range m.params() {
		before = append(before, slices.Clone(values[float64](p)))
	}
	ts := TrainSettings{Optimizer: OptimizerSGD, LearningRate: 1, Clip: 1e-3, BatchSize: 4, Steps: 1}
	if _, err := Train(context.Background(), m, ds, newCountEstimator(ds, 4), losses.Settings{Variant: losses.VariantLogQ}, samplerOf(losses.Settings{Variant: losses.VariantLogQ}), ts, 1, nil); err != nil {
		t.Fatal(err)
	}
	var ss float64
	for i, p := range m.params() {
		for j, v := range values[float64](p) {
			d := v - before[i][j]
			ss += d * d
		}
	}
	if n := math.Sqrt(ss); math.Abs(n-1e-3) > 1e-12 {
		t.Errorf("update norm %v, want 1e-3", n)
	}
}

// TestTrainErrors: bad arguments are errors, not panics.
func TestTrainErrors(t *testing.T) {
	ds := tinyDataset()
	m, err := New(Settings{EmbeddingDim: 3, Hidden: []int{3}}, ds, tensor.Float32, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		est  estimators.Estimator
		ls   losses.Settings
		ts   TrainSettings
		want string
	}{
		{newCountEstimator(ds, 16), losses.Settings{}, TrainSettings{BatchSize: 16}, "batch_size: 16 exceeds the 8 training interactions"},
		{nil, losses.Settings{}, TrainSettings{BatchSize: 2}, "needs an estimator"},
		{newCountEstimator(ds, 2), losses.Settings{Variant: "nope"}, TrainSettings{BatchSize: 2}, "variant: unknown"},
		{newCountEstimator(ds, 2), losses.Settings{}, TrainSettings{Order: "random"}, "order: unknown"},
		{&badEstimator{}, losses.Settings{}, TrainSettings{BatchSize: 2}, "step 1 (epoch 1): estimator gave p̂ = 0"},
	} {
		if _, err := Train(ctx, m, ds, c.est, c.ls, samplerOf(c.ls), c.ts, 1, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	neg := tinyDataset()
	neg.Train[2].Reward = -0.5
	if _, err := Train(ctx, m, neg, newCountEstimator(ds, 2), losses.Settings{}, samplerOf(losses.Settings{}), TrainSettings{BatchSize: 2}, 1, nil); err == nil || !strings.Contains(err.Error(), "train[2]: reward -0.5 is negative") {
		t.Errorf("negative reward: %v", err)
	}
	bad := tinyDataset()
	bad.Train[3].Item = 5
	if _, err := Train(ctx, m, bad, newCountEstimator(ds, 2), losses.Settings{}, samplerOf(losses.Settings{}), TrainSettings{BatchSize: 2}, 1, nil); err == nil || !strings.Contains(err.Error(), "train[3]: item 5 out of range [0, 5)") {
		t.Errorf("item out of range: %v", err)
	}
	if _, err := m.EmbedItems([]int32{5}); err == nil || !strings.Contains(err.Error(), "item id 5 out of range") {
		t.Errorf("EmbedItems(5) error %v", err)
	}
}

type badEstimator struct{}

func (badEstimator) Observe(int64, []uint64) {}
func (badEstimator) Prob(uint64) float64     { return 0 }

// TestConcurrentRuns: two trainings in one process at once (as the experiments runner may do)
// do not interfere: each gives the losses it gives alone.
func TestConcurrentRuns(t *testing.T) {
	ds := loadSynthetic(t, datasets.SyntheticSettings{Items: 100, Queries: 100, Interactions: 2000}, 4)
	ts := TrainSettings{BatchSize: 64, Epochs: 2, LogEvery: 1}
	ls := losses.Settings{Variant: losses.VariantLogQ}
	_, alone, err := trainTiny(t, ds, ls, samplerOf(ls), ts, 1)
	if err != nil {
		t.Fatal(err)
	}
	var curves [2]Curve
	var errs [2]error
	var wg sync.WaitGroup
	for i := range 2 {
		m, est := newTiny(t, ds, ts.BatchSize, 1)
		wg.Go(func() { curves[i], errs[i] = Train(context.Background(), m, ds, est, ls, samplerOf(ls), ts, 1, nil) })
	}
	wg.Wait()
	for i, c := range curves {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		for j := range alone {
			if c[j].Loss != alone[j].Loss {
				t.Fatalf("run %d step %d: loss %v, alone %v", i, j+1, c[j].Loss, alone[j].Loss)
			}
		}
	}
}

// TestSaturatedProbability: an estimator whose p̂ saturates at 1 (streaming with init "one": every
// bucket's gap starts at one step; exact with formula "linear": min(1, B·q) = 1 for an item with
// B·q ≥ 1) cannot give the per-draw q of the Rawat weightings and of expected_count:
// with q_source = "estimator" training stops at the first step with an error naming the item, its
// count and what to change, rather than using q = DrawProb(1, B) = 1; with the exact counts
// (q_source "counts", the default) the same estimator trains.
func TestSaturatedProbability(t *testing.T) {
	ds := tinyDataset()
	counts := ds.ItemCounts()
	env := estimators.Env{BatchSize: 4, CorpusSize: ds.Items, Counts: counts}
	for k, run := range []testRun{
		defaultRun(losses.Settings{Variant: losses.VariantImportance, QSource: losses.QSourceEstimator}),
		defaultRun(losses.Settings{Variant: losses.VariantLogQ, QSource: losses.QSourceEstimator}),
		{losses.Settings{Variant: losses.VariantTail, QSource: losses.QSourceEstimator}, mixedSampler(2)},
		defaultRun(losses.Settings{Variant: losses.VariantRelative, QSource: losses.QSourceEstimator}),
	} {
		ls, ss := run.ls, run.ss
		newEst := func() estimators.Estimator { return streaming(t, estimators.Settings{Init: estimators.InitOne}, ds, 4) }
		if k == 3 {
			newEst = func() estimators.Estimator {
				e, err := estimators.New(estimators.Settings{Kind: estimators.KindExact, Mode: estimators.ModeStatic,
					Formula: estimators.FormulaLinear}, env, 1)
				if err != nil {
					t.Fatal(err)
				}
				return e
			}
		}
		m, err := New(Settings{EmbeddingDim: 3, Hidden: []int{3}}, ds, tensor.Float32, 1)
		if err != nil {
			t.Fatal(err)
		}
		ts := TrainSettings{BatchSize: 4, Steps: 2}
		_, err = Train(context.Background(), m, ds, newEst(), ls, ss, ts, 1, nil)
		if err == nil || !strings.Contains(err.Error(), "step 1 (epoch 1)") || !strings.Contains(err.Error(), "p̂ = 1 for item") ||
			!strings.Contains(err.Error(), `set loss.q_source = "counts"`) {
			t.Errorf("%s: error %v", run.name(), err)
			continue
		}
		// The item and its count are named.
		var it, c, n int
		if _, e := fmt.Sscanf(err.Error()[strings.Index(err.Error(), "for item"):], "for item %d (%d of the %d training interactions", &it, &c, &n); e != nil ||
			int64(c) != counts[it] || n != len(ds.Train) {
			t.Errorf("%s: error %q names item %d with count %d of %d (%v), want count %d of %d", ls.Variant, err, it, c, n, e, counts[it], len(ds.Train))
		}
		ls.QSource = losses.QSourceCounts
		if _, err := Train(context.Background(), m, ds, newEst(), ls, ss, ts, 1, nil); err != nil {
			t.Errorf("%s with q_source counts: %v", ls.Variant, err)
		}
	}
}

// TestInBatchUniqueShortTrains: two-tower training with in_batch_unique asking for more negatives
// than a batch of 8 has distinct items, alone and in Khrylchenko et al.'s mixture with
// uniform_per_row, trains (the empty columns' item rows are computed as another item of the step
// and get no gradient), and the empty columns change nothing: asking for 16 or 32 negatives gives
// the same losses at every step, to 1e-6 (float32).
func TestInBatchUniqueShortTrains(t *testing.T) {
	ds := loadSynthetic(t, datasets.SyntheticSettings{Items: 100, Queries: 100, Interactions: 2000}, 4)
	ts := TrainSettings{BatchSize: 8, Epochs: 1, LogEvery: 1}
	ls := losses.Settings{Variant: losses.VariantLogQCorrected}
	unique := func(k int) samplers.Settings {
		return samplers.Settings{Kind: samplers.KindInBatchUnique, Negatives: k}
	}
	mixture := func(k int) samplers.Settings {
		return samplers.Settings{Kind: samplers.KindMixture, Of: []samplers.Settings{unique(k), uniformPerRowSampler(4)}}
	}
	for _, ss := range []func(int) samplers.Settings{unique, mixture} {
		t.Run(string(ss(16).Kind), func(t *testing.T) {
			_, a, err := trainTiny(t, ds, ls, ss(16), ts, 1)
			if err != nil {
				t.Fatal(err)
			}
			_, b, err := trainTiny(t, ds, ls, ss(32), ts, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(a) != len(b) || len(a) < 100 {
				t.Fatalf("%d and %d points, want the same number, at least 100", len(a), len(b))
			}
			for j := range a {
				if math.IsNaN(a[j].Loss) || math.Abs(a[j].Loss-b[j].Loss) > 1e-6*math.Abs(b[j].Loss) {
					t.Fatalf("step %d: loss %v with 16 negatives, %v with 32", a[j].Step, a[j].Loss, b[j].Loss)
				}
			}
			// What the item tower computes at a step: the positives, the items drawn, and an
			// item of the step for each empty row.
			m, est := newTiny(t, ds, ts.BatchSize, 1)
			smp, g := mustBuild(ss(16))
			tr := must(newTrainer[float32](m, ds, est, must(losses.New(ls, g, tensor.Float32)), smp, ts, 1, towerFused))
			batch := ds.Train[:ts.BatchSize]
			must(tr.forwardBackward(1, batch))
			ids, in := tr.ids[sideItem], tr.inRows[sideItem]
			empty := 0
			for r, item := range ids {
				switch {
				case r < len(batch) && (item != batch[r].Item || in[r] != item):
					t.Fatalf("item row %d: %d, tower input %d; want the positive %d", r, item, in[r], batch[r].Item)
				case item == candidates.NoItem:
					empty++
					if !slices.Contains(ids, in[r]) {
						t.Fatalf("empty item row %d: the tower computes item %d, not one of the step's %v", r, in[r], ids)
					}
				case in[r] != item:
					t.Fatalf("item row %d: %d, tower input %d", r, item, in[r])
				}
			}
			if empty == 0 {
				t.Fatalf("no empty item row in %v", ids)
			}
		})
	}
}
