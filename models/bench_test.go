package models

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
)

// idDataset is a dataset whose towers have one id field each ("query_id", "item_id", one id per
// bag) and n interactions with Zipf(1)-popular items, uniformly random queries and rewards
// uniform in (0, 1].
func idDataset(queries, items, n int, seed uint64) *datasets.Dataset {
	rng := rand.New(rand.NewPCG(seed, 1))
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(items-1))
	ds := &datasets.Dataset{
		Name: "ids", Queries: queries, Items: items,
		QueryFeatures: &datasets.Features{Fields: []datasets.Field{identityField("query_id", queries)}},
		ItemFeatures:  &datasets.Features{Fields: []datasets.Field{identityField("item_id", items)}},
	}
	for range n {
		ds.Train = append(ds.Train, datasets.Interaction{
			Query: int32(rng.IntN(queries)), Item: int32(zipf.Uint64()), Reward: float32(1 - rng.Float64()),
		})
	}
	return ds
}

// identityField gives entity e the bag {e}.
func identityField(name string, n int) datasets.Field {
	f := datasets.Field{Name: name, Vocab: n, Known: n, Offsets: make([]int32, n+1), IDs: make([]int32, n)}
	for e := range n {
		f.Offsets[e+1] = int32(e + 1)
		f.IDs[e] = int32(e)
	}
	return f
}

// benchStep measures the standard training step: two towers [256, 64] with ReLU and L2
// normalisation over 64-dimensional id embeddings, logq-corrected in-batch softmax with τ = 0.05
// from a given p̂, reward-weighted mean, Adam, float32.
func benchStep(b *testing.B, batch, vocab int) {
	ds := idDataset(vocab, vocab, 64*batch, 7)
	m, err := New(Settings{EmbeddingDim: 64, Hidden: []int{256, 64}}, ds, tensor.Float32, 1)
	if err != nil {
		b.Fatal(err)
	}
	loss, err := losses.New(losses.Settings{Variant: losses.LogQ, Temperature: 0.05}, tensor.Float32)
	if err != nil {
		b.Fatal(err)
	}
	ts := TrainSettings{BatchSize: batch}
	if err := ts.Resolve(); err != nil {
		b.Fatal(err)
	}
	tr, err := newTrainer[float32](m, ds, newCountEstimator(ds, batch), loss, ts, 1)
	if err != nil {
		b.Fatal(err)
	}
	steps := len(ds.Train) / batch
	run := func(i int) {
		k := i % steps
		if _, err := tr.step(int64(i+1), ds.Train[k*batch:(k+1)*batch]); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 3 { // warm up: allocate the ops' outputs and the optimiser state
		run(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(i + 3)
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "examples/s")
}

// BenchmarkTrainStep is the standard step with vocabularies of 100,000 rows.
func BenchmarkTrainStep(b *testing.B) {
	for _, batch := range []int{256, 1024} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) { benchStep(b, batch, 100_000) })
	}
}

// BenchmarkTrainStepVocab is the standard step at batch 1024 with vocabularies of 1,000 and
// 1,000,000 rows: the step's cost must not depend on the table size.
func BenchmarkTrainStepVocab(b *testing.B) {
	for _, vocab := range []int{1_000, 1_000_000} {
		b.Run(fmt.Sprintf("vocab=%d", vocab), func(b *testing.B) { benchStep(b, 1024, vocab) })
	}
}
