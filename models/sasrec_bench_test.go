package models

import (
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/samplers"
)

// sasrecBenchData is the data of BenchmarkSASRecStep, as benchmarks/pytorch/bench.py draws it:
// users users of length+1 training items each (and one more, the leave-last-out test pair), the
// items Zipf(1.1)-popular over items, so that each user's last window is length positions
// without padding.
func sasrecBenchData(tb testing.TB, users, length, items int) *datasets.Dataset {
	rng := rand.New(rand.NewPCG(9, 1))
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(items-1))
	u := &datasets.Unsplit{Timed: true, Dataset: &datasets.Dataset{Name: "sasrec-bench", Queries: users, Items: items,
		QueryFeatures: &datasets.Features{Fields: []datasets.Field{datasets.IDField("user_id", users)}},
		ItemFeatures:  &datasets.Features{Fields: []datasets.Field{datasets.IDField("item_id", items)}},
		Report:        datasets.Report{Source: datasets.SourceInteractions}}}
	for q := range users {
		for t := range length + 2 {
			u.Pairs = append(u.Pairs, datasets.Interaction{Query: int32(q), Item: int32(zipf.Uint64()), Time: int64(t), Reward: 1})
		}
	}
	ds, err := u.SplitWith(datasets.SplitSettings{Kind: datasets.SplitLeaveLastOut}, 1, datasets.Options{Sequences: true})
	if err != nil {
		tb.Fatal(err)
	}
	return ds
}

// BenchmarkSASRecStep measures SASRec's whole training step at every position, the setup of
// benchmarks/pytorch/bench.py's SASRec step (PyTorch's "sasrec positions/s"): B = 128 windows of
// L = 200 positions without padding (16·128 users of Zipf(1.1) items over 100,000), width d = 64,
// 2 blocks of 1 head, dropout 0.2, the output table tied to the input one; every position a row
// with its next item as the positive and 256 negatives from Khrylchenko et al.'s sampler, 128 of
// the step's distinct targets shared by every position (in_batch_unique) and 128 uniform items
// drawn for each position alone (uniform_per_row); the sampled softmax with the mixture's log Q
// subtracted from every candidate (logq, expected_count); Adam (lazy, on the rows the step
// touches: PyTorch's dense Adam updates the whole table, which its benchmark found faster than
// SparseAdam at this size); float32. It reports positions (rows of the step) per second.
// impl=expression builds the encoder from stock Gorgonia ops.
func BenchmarkSASRecStep(b *testing.B) {
	const batch, length, d, items = 128, 200, 64, 100_000
	ds := sasrecBenchData(b, 16*batch, length, items)
	for _, im := range impls {
		b.Run("impl="+im.name, func(b *testing.B) {
			dropout := 0.2
			s := Settings{EmbeddingDim: d, Sequence: SequenceSettings{Encoder: EncoderSASRec, MaxLength: length, Dropout: &dropout}}
			m, err := New(s, ds, tensor.Float32, 1)
			if err != nil {
				b.Fatal(err)
			}
			ss := samplers.Settings{Kind: samplers.KindMixture, Of: []samplers.Settings{
				{Kind: samplers.KindInBatchUnique, Negatives: 128}, {Kind: samplers.KindUniformPerRow, Negatives: 128}}}
			if err := ss.Resolve(); err != nil {
				b.Fatal(err)
			}
			smp, g := mustBuild(ss)
			rows := must(newStepRows(m.s, ds))
			g, err = rows.geometry(g)
			if err != nil {
				b.Fatal(err)
			}
			loss, err := losses.New(losses.Settings{Variant: losses.VariantLogQ, Temperature: 1}, g, tensor.Float32)
			if err != nil {
				b.Fatal(err)
			}
			ts := TrainSettings{BatchSize: batch}
			if err := ts.Resolve(); err != nil {
				b.Fatal(err)
			}
			tr, err := newTrainer[float32](m, ds, countEstimatorOf(rows.counts, batch*length), loss, smp, ts, 1, im.impl)
			if err != nil {
				b.Fatal(err)
			}
			windows := make([]int32, rows.units)
			for k := range windows {
				windows[k] = int32(k)
			}
			steps := rows.units / batch
			run := func(i int) {
				k := i % steps
				if _, err := tr.step(int64(i+1), tr.compose(ds, windows[k*batch:(k+1)*batch])); err != nil {
					b.Fatal(err)
				}
			}
			for i := range 2 { // warm up: allocate the ops' outputs and the optimiser state
				run(i)
			}
			b.ReportAllocs()
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := range b.N {
				run(i + 2)
			}
			b.ReportMetric(float64(b.N*batch*length)/b.Elapsed().Seconds(), "positions/s")
			b.ReportMetric((cpuTime()-cpu0).Seconds()*1e3/float64(b.N), "cpu-ms/op")
		})
	}
}
