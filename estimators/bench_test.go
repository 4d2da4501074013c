package estimators

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

const benchBatch = 128

// benchItems are 2^16 random ids out of 10^6, read as batches of 128.
func benchItems() []uint64 {
	rng := rand.New(rand.NewPCG(1, 2))
	items := make([]uint64, 1<<16)
	for i := range items {
		items[i] = rng.Uint64N(1_000_000)
	}
	return items
}

var benchShapes = []struct{ m, h int }{{1, 5000}, {4, 5000}, {1, 1 << 20}, {4, 1 << 20}}

func newBench(b *testing.B, m, h int, concurrent bool) Estimator {
	e, err := New(Settings{Kind: KindMultihash, Buckets: h, Hashes: m, Concurrent: concurrent}, Env{BatchSize: benchBatch, CorpusSize: 1_000_000}, 1)
	if err != nil {
		b.Fatal(err)
	}
	return e
}

// BenchmarkObserve reports item updates per second on one goroutine (one update is one item of a
// batch, all m arrays).
func BenchmarkObserve(b *testing.B) {
	items := benchItems()
	for _, conc := range []bool{false, true} {
		for _, s := range benchShapes {
			b.Run(fmt.Sprintf("concurrent=%v/m=%d/H=%d", conc, s.m, s.h), func(b *testing.B) {
				e := newBench(b, s.m, s.h, conc)
				var t int64
				for b.Loop() {
					off := int(t*benchBatch) & (len(items) - 1)
					t++
					e.Observe(t, items[off:off+benchBatch])
				}
				b.ReportMetric(float64(t*benchBatch)/b.Elapsed().Seconds(), "updates/s")
			})
		}
	}
}

// BenchmarkObserveParallel reports item updates per second of the concurrent form updated by
// GOMAXPROCS goroutines that take their steps from one shared counter.
func BenchmarkObserveParallel(b *testing.B) {
	items := benchItems()
	for _, s := range benchShapes {
		b.Run(fmt.Sprintf("m=%d/H=%d", s.m, s.h), func(b *testing.B) {
			e := newBench(b, s.m, s.h, true)
			var step atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					t := step.Add(1)
					off := int(t*benchBatch) & (len(items) - 1)
					e.Observe(t, items[off:off+benchBatch])
				}
			})
			b.ReportMetric(float64(step.Load()*benchBatch)/b.Elapsed().Seconds(), "updates/s")
		})
	}
}

// BenchmarkProb reports reads of p̂ per second.
func BenchmarkProb(b *testing.B) {
	items := benchItems()
	for _, s := range benchShapes {
		b.Run(fmt.Sprintf("m=%d/H=%d", s.m, s.h), func(b *testing.B) {
			e := newBench(b, s.m, s.h, false)
			for t := range 100 {
				e.Observe(int64(t+1), items[t*benchBatch:(t+1)*benchBatch])
			}
			dst := make([]float64, benchBatch)
			n := 0
			for b.Loop() {
				off := (n * benchBatch) & (len(items) - 1)
				n++
				LogProbs(e, items[off:off+benchBatch], dst)
			}
			b.ReportMetric(float64(n*benchBatch)/b.Elapsed().Seconds(), "logprobs/s")
		})
	}
}
