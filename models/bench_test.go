package models

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/samplers"
)

// idDataset is a dataset whose towers have one id field each ("query_id", "item_id", one id per
// bag) and n interactions with Zipf(1.1)-popular items, uniformly random queries and rewards
// uniform in (0, 1].
func idDataset(queries, items, n int, seed uint64) *datasets.Dataset {
	return spreadDataset(queries, items, queries, items, n, seed)
}

// spreadDataset is idDataset with the ids drawn as for queries × items entities and spread over
// tables of rows × rows entities: id k becomes k·s + (k·7919 mod s), s = rows/queries (items).
// Two datasets that differ only in rows have batches with the same numbers of distinct rows and
// differ only in the memory the rows are spread over.
func spreadDataset(queries, items, qRows, iRows, n int, seed uint64) *datasets.Dataset {
	rng := rand.New(rand.NewPCG(seed, 1))
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(items-1))
	spread := func(k, n, rows int) int32 {
		s := rows / n
		return int32(k*s + k*7919%s)
	}
	ds := &datasets.Dataset{
		Name: "ids", Queries: qRows, Items: iRows,
		QueryFeatures: &datasets.Features{Fields: []datasets.Field{identityField("query_id", qRows)}},
		ItemFeatures:  &datasets.Features{Fields: []datasets.Field{identityField("item_id", iRows)}},
	}
	for range n {
		ds.Train = append(ds.Train, datasets.Interaction{
			Query:  spread(rng.IntN(queries), queries, qRows),
			Item:   spread(int(zipf.Uint64()), items, iRows),
			Reward: float32(1 - rng.Float64()),
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

// standardTowers are the towers of the standard training step: [256, 64] with ReLU and L2
// normalisation over 64-dimensional embeddings.
var standardTowers = Settings{EmbeddingDim: 64, Hidden: []int{256, 64}}

// benchStep measures a training step of towers ms over ds: logq-corrected in-batch softmax with
// τ = 0.05 from a given p̂, reward-weighted mean, Adam, float32.
func benchStep(b *testing.B, ms Settings, batch int, ds *datasets.Dataset) {
	m, err := New(ms, ds, tensor.Float32, 1)
	if err != nil {
		b.Fatal(err)
	}
	smp, g := mustBuild(samplers.Settings{})
	loss, err := losses.New(losses.Settings{Variant: losses.VariantLogQ, Temperature: 0.05}, g, tensor.Float32)
	if err != nil {
		b.Fatal(err)
	}
	ts := TrainSettings{BatchSize: batch}
	if err := ts.Resolve(); err != nil {
		b.Fatal(err)
	}
	tr, err := newTrainer[float32](m, ds, newCountEstimator(ds, batch), loss, smp, ts, 1, towerFused)
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
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run(i + 3)
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "examples/s")
	// CPU time per step (all threads): with other processes on the cores, wall time per step
	// varies, CPU time much less; their ratio shows how much of the step runs in parallel.
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1e3/float64(b.N), "cpu-ms/op")
}

// cpuTime is the user and system time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTrainStep is the standard step with vocabularies of 100,000 rows.
func BenchmarkTrainStep(b *testing.B) {
	for _, batch := range []int{256, 1024} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			benchStep(b, standardTowers, batch, idDataset(100_000, 100_000, 64*batch, 7))
		})
	}
}

// BenchmarkWikiStep is the main job's step (configs/wiki.toml): the embedded Wikispeedia graph,
// towers [512, 128] over 64-dimensional embeddings of the page id, the title's words and
// bigrams and the category paths, shared by the two towers, B = 1024, the batches drawn as an
// epoch draws them (the training links in a random order: the file's order groups a page's
// links, which would fill a batch with a few dozen source pages).
func BenchmarkWikiStep(b *testing.B) {
	ds, err := datasets.Load(datasets.Settings{Source: datasets.SourceWikilinks}, 0)
	if err != nil {
		b.Fatal(err)
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(ds.Train), func(i, j int) { ds.Train[i], ds.Train[j] = ds.Train[j], ds.Train[i] })
	benchStep(b, Settings{EmbeddingDim: 64, Hidden: []int{512, 128}, ShareEmbeddings: true}, 1024, ds)
}

// BenchmarkTrainStepVocab is the standard step at batch 1024 with vocabularies (tables) of 1,000
// and 1,000,000 rows: the step's cost must not depend on the table size. The batches draw their
// ids from 1,000 entities per side in both cases, spread over the larger table, so that both
// steps update the same number of distinct rows.
func BenchmarkTrainStepVocab(b *testing.B) {
	for _, rows := range []int{1_000, 1_000_000} {
		b.Run(fmt.Sprintf("vocab=%d", rows), func(b *testing.B) {
			benchStep(b, standardTowers, 1024, spreadDataset(1000, 1000, rows, rows, 64*1024, 7))
		})
	}
}
