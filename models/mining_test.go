package models

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/samplers"
)

// The runs of the samplers that read more than the positives (the rows' queries and their
// training items, or the model's scores) and of the losses of several positives, on tinyDataset
// (5 items, batches of 4; queries 0 and 2 have two training items).
var miningRuns = []testRun{
	{losses.Settings{Variant: losses.VariantPlain, RemoveAccidentalHits: true}, samplers.Settings{Kind: samplers.KindHard, Negatives: 2}},
	{losses.Settings{Variant: losses.VariantLogOut, RemoveAccidentalHits: true},
		samplers.Settings{Kind: samplers.KindHard, Negatives: 2, Pool: samplers.PoolUniform, PoolSize: 4, FalseNegativeMargin: 0.9}},
	{losses.Settings{Variant: losses.VariantPlain, RemoveAccidentalHits: true},
		samplers.Settings{Kind: samplers.KindSCE, Negatives: 3, Buckets: 2, BucketRows: 2}},
	{losses.Settings{Variant: losses.VariantLogQ}, samplers.Settings{Kind: samplers.KindUnconsumed, Negatives: 2}},
	{losses.Settings{Variant: losses.VariantLogQ}, samplers.Settings{Kind: samplers.KindPopularityWithoutReplacement, Negatives: 3}},
	{losses.Settings{Variant: losses.VariantLogIn}, samplers.Settings{}},
	{losses.Settings{Variant: losses.VariantLogOut, LogQProbability: losses.LogQProbabilityExpectedCount}, samplers.Settings{}},
	{losses.Settings{Variant: losses.VariantLogIn}, samplers.Settings{Kind: samplers.KindFull}},
}

// TestKnownPositives: the data's side input positives marks, in every row that is not padding,
// exactly the columns whose item is one of the training items of the row's query (column 0 of
// layout first, the row's own positive, included), as written out from the dataset's pairs.
func TestKnownPositives(t *testing.T) {
	ds := tinyDataset()
	seen := ds.TrainPositives()
	for _, run := range miningRuns {
		if !run.ls.ReadsPositives() {
			continue
		}
		t.Run(run.name(), func(t *testing.T) {
			_, tr := newTestTrainerWith(t, testSettings, ds, run, 4, 1)
			for step := range 2 {
				batch := ds.Train[4*step : 4*step+4]
				if _, err := tr.forwardBackward(int64(step+1), batch); err != nil {
					t.Fatal(err)
				}
				st := tr.st
				r, c := len(st.RowItem), st.Geometry.Cols(len(st.RowItem), ds.Items)
				var want []int
				for i := range r {
					q := tr.ids[sideQuery][i]
					for j := range c {
						item := int64(-1)
						switch {
						case st.Geometry.Layout == candidates.Corpus:
							item = int64(j)
						case st.Geometry.Layout == candidates.First && j == 0:
							item = st.RowItem[i]
						default:
							k := j
							if st.Geometry.PerRow > 0 {
								k = i*c + j
							}
							item = st.ColItem[k]
						}
						if item >= 0 && slices.Contains(seen[q], int32(item)) {
							want = append(want, i*c+j)
						}
					}
				}
				idx, val := st.Entries(candidates.Positives)
				if !slices.Equal(idx, want) || len(val) != len(idx) {
					t.Errorf("step %d: entries %v, want %v", step+1, idx, want)
				}
			}
		})
	}
}

// TestMiningTrains: each sampler that reads the rows' queries or the model's scores, and login
// and logout, trains tinyDataset for two epochs with finite losses, bit for bit the same twice
// with one seed.
func TestMiningTrains(t *testing.T) {
	ds := tinyDataset()
	ts := TrainSettings{BatchSize: 4, Epochs: 2, LogEvery: 1}
	for _, run := range miningRuns {
		t.Run(run.name(), func(t *testing.T) {
			_, c1, err := trainTiny(t, ds, run.ls, run.ss, ts, 3)
			if err != nil {
				t.Fatal(err)
			}
			_, c2, err := trainTiny(t, ds, run.ls, run.ss, ts, 3)
			if err != nil {
				t.Fatal(err)
			}
			for i := range c1 {
				if math.IsNaN(c1[i].Loss) || math.IsInf(c1[i].Loss, 0) || c1[i].Loss != c2[i].Loss {
					t.Errorf("step %d: losses %v and %v", c1[i].Step, c1[i].Loss, c2[i].Loss)
				}
			}
		})
	}
}

// TestMiningErrors: login on data whose every query has one training item is one error saying
// so; hard without loss.remove_accidental_hits, which masks the positive's copies it fills a
// short row with, and hard whose k is not below its in-batch pool, are each one error naming the
// key, before any step.
func TestMiningErrors(t *testing.T) {
	single := tinyDataset()
	single.Train = single.Train[:6] // queries 0..5, one item each
	ts := TrainSettings{BatchSize: 4, Steps: 1}
	for _, tc := range []struct {
		ds   *datasets.Dataset
		run  testRun
		want string
	}{
		{single, testRun{losses.Settings{Variant: losses.VariantLogIn}, samplers.Settings{}},
			`loss.variant: login counts each query's other training items as positives, and every query of dataset "tiny" has one training item`},
		{tinyDataset(), testRun{losses.Settings{Variant: losses.VariantPlain}, samplers.Settings{Kind: samplers.KindHard, Negatives: 2}},
			"loss.remove_accidental_hits: sampler hard fills the columns of a row short of candidates with copies of its positive"},
		{tinyDataset(), testRun{losses.Settings{Variant: losses.VariantPlain, RemoveAccidentalHits: true}, samplers.Settings{Kind: samplers.KindHard, Negatives: 3}},
			"sampler.negatives: hard keeps the 3 highest-scoring of each row's pool, the batch's other positives, at most train.batch_size − 1 = 3"},
		{tinyDataset(), testRun{losses.Settings{Variant: losses.VariantPlain, RemoveAccidentalHits: true}, samplers.Settings{Kind: samplers.KindSCE, Buckets: 5, BucketRows: 2, Negatives: 2}},
			"sampler.buckets: 5 buckets for the 4 rows of a step"},
	} {
		m, est := newTiny(t, tc.ds, ts.BatchSize, 1)
		_, err := Train(context.Background(), m, tc.ds, est, tc.run.ls, tc.run.ss, ts, 1, nil)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want prefix %q", tc.run.name(), err, tc.want)
		}
	}
}

// TestTowersView: the towers a sampler reads give the model's embeddings, EmbedQueries' and
// EmbedItems', for lists longer than one inference graph's rows as for short ones.
func TestTowersView(t *testing.T) {
	ds := loadSynthetic(t, datasets.SyntheticSettings{Items: 3000, Queries: 50, Interactions: 4000}, 2)
	m, _ := newTiny(t, ds, 8, 1)
	v := &towersView[float32]{m: m, impl: towerFused, tau: func() float64 { return 0.5 }}
	items := make([]int32, ds.Items)
	for j := range items {
		items[j] = int32(ds.Items - 1 - j)
	}
	for _, ids := range [][]int32{items[:7], items, items[:3]} {
		got, err := v.Items(ids)
		if err != nil {
			t.Fatal(err)
		}
		want, err := m.EmbedItems(ids)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%d items: the towers' embeddings differ from EmbedItems'", len(ids))
		}
	}
	q := []int32{3, 1, 4, 1, 5}
	got, err := v.Queries(q)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := m.EmbedQueries(q); !slices.Equal(got, want) || v.Temperature() != 0.5 || v.Dim() != m.Dim() {
		t.Error("the towers' query embeddings, temperature or dimension differ from the model's")
	}
}

// TestScoredSamplersNeedQueryIDs: hard and sce rank candidates by the towers' embeddings of each
// row's query, which a query tower reading histories (whose rows are positions of windows or
// events with their own history) does not give: training refuses them before its first step,
// naming the key, with either encoder.
func TestScoredSamplersNeedQueryIDs(t *testing.T) {
	ds := loadSequences(t, datasets.SyntheticSettings{Items: 40, Queries: 30, Interactions: 600, Clusters: 2}, 1)
	ls := losses.Settings{Variant: losses.VariantPlain, RemoveAccidentalHits: true, Temperature: 1}
	for _, s := range []Settings{
		sasrecSettings(6, 0, datasets.WindowingLast),
		{EmbeddingDim: 4, Hidden: []int{4}, Sequence: SequenceSettings{Encoder: EncoderMean, MaxLength: 5}},
	} {
		for _, ss := range []samplers.Settings{
			{Kind: samplers.KindHard, Negatives: 2},
			{Kind: samplers.KindSCE, Buckets: 2, BucketRows: 2, Negatives: 2},
		} {
			ctx := &stopAfter{Context: context.Background(), n: 1 << 30}
			_, err := Train(ctx, must(New(s, ds, tensor.Float32, 1)), ds, nil, ls, ss, TrainSettings{BatchSize: 8, Steps: 2}, 1, nil)
			want := "sampler.kind: sampler " + string(ss.Kind)
			if err == nil || !strings.HasPrefix(err.Error(), want) || ctx.calls.Load() != 0 {
				t.Errorf("%s, %s: %v after %d steps, want an error starting %q before the first", s.Sequence.Encoder, ss.Kind, err, ctx.calls.Load(), want)
			}
		}
	}
}
