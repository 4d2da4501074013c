package models

import (
	"context"
	"testing"

	"gorgonia.org/tensor"

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

// historyRecallAt10 is Recall@10 of the test pairs, each queried by EmbedPairQueries, with an
// exact scorer over all items.
func historyRecallAt10(t *testing.T, m *Model, ds *datasets.Dataset) float64 {
	t.Helper()
	items := make([]int32, ds.Items)
	for i := range items {
		items[i] = int32(i)
	}
	v, err := m.EmbedItems(items)
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, len(ds.Test))
	for i := range idx {
		idx[i] = i
	}
	u, err := m.EmbedPairQueries(ds, datasets.PartTest, idx)
	if err != nil {
		t.Fatal(err)
	}
	d, hits := m.Dim(), 0
	score := func(i, j int) (s float64) {
		for k := range d {
			s += float64(u[i*d+k]) * float64(v[j*d+k])
		}
		return s
	}
	for i, p := range ds.Test {
		pos, above := score(i, int(p.Item)), 0
		for j := range ds.Items {
			if j != int(p.Item) && score(i, j) >= pos {
				above++
			}
		}
		if above < 10 {
			hits++
		}
	}
	return float64(hits) / float64(len(ds.Test))
}
