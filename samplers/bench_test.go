package samplers_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/samplingbias/workbench/candidates"

	. "github.com/samplingbias/workbench/samplers"
	"github.com/samplingbias/workbench/samplers/samplerstest"
)

// BenchmarkSampler reports the time of one step (Draw and Declare) of every built-in sampler at
// B = 1024, m = 256 (for memory K = 4 batches; for the mixtures, of in_batch_unique and uniform
// or uniform_per_row, m = 256 each; for hard, the top 64 of the batch's positives or of a uniform
// pool of 1024 items; for sce, 32 buckets of 32 rows and 256 items) and M = 100 000 items with
// Zipf-like counts, each of 1000 queries with 20 training items (unconsumed); the positives' law
// is a closed form, as the trainer's is without an embedding keyer. The towers of hard and sce
// are tables of random embeddings of d = 64 (benchTowers): their time is the mining's own, the
// extra cost per step of those samplers beyond the towers' forward passes without gradient on
// the step's queries and on the pool (hard) or the corpus (sce), which the trainer runs.
func BenchmarkSampler(b *testing.B) {
	const batch, m, items, queries = 1024, 256, 100_000, 1000
	d := &Data{Items: items, Batch: batch, Counts: make([]int64, items)}
	for j := range d.Counts {
		d.Counts[j] = int64(1 + 100_000/(j+1))
		d.N += int(d.Counts[j])
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pos := make([]int32, batch)
	for i := range pos {
		pos[i] = int32(rng.IntN(items))
	}
	d.Seen, d.Queries = make([][]int32, queries), make([]int32, batch)
	for q := range d.Seen {
		for range 20 {
			d.Seen[q] = append(d.Seen[q], int32(rng.IntN(items)))
		}
		slices.Sort(d.Seen[q])
		d.Seen[q] = slices.Compact(d.Seen[q])
	}
	for i := range d.Queries {
		d.Queries[i] = int32(rng.IntN(queries))
	}
	d.Towers = newBenchTowers(rng, queries, items, 64)
	for _, s := range []Settings{{Kind: KindInBatch}, {Kind: KindUniform, Negatives: m}, {Kind: KindMixed, Negatives: m},
		{Kind: KindFull}, {Kind: KindPopularity, Negatives: m}, {Kind: KindInBatchUnique, Negatives: m},
		{Kind: KindMemory, MemoryBatches: 4},
		{Kind: KindMixture, Of: []Settings{{Kind: KindInBatchUnique, Negatives: m}, {Kind: KindUniform, Negatives: m}}},
		{Kind: KindUniformPerRow, Negatives: m},
		{Kind: KindMixture, Of: []Settings{{Kind: KindInBatchUnique, Negatives: m}, {Kind: KindUniformPerRow, Negatives: m}}},
		{Kind: KindUniformWithoutReplacement, Negatives: m}, {Kind: KindPopularityWithoutReplacement, Negatives: m},
		{Kind: KindUnconsumed, Negatives: m}, {Kind: KindHard, Negatives: 64},
		{Kind: KindHard, Negatives: 64, Pool: PoolUniform, PoolSize: 1024, FalseNegativeMargin: 0.95},
		{Kind: KindSCE, Negatives: m, Buckets: 32, BucketRows: 32}} {
		smp, err := New(s)
		if err != nil {
			b.Fatal(err)
		}
		sh := smp.Shape()
		rows := make([]int32, sh.ItemRows(batch, items))
		c := candidates.NewStep(sh.Geometry, batch, items)
		if err := DeclareSides(smp, c); err != nil {
			b.Fatal(err)
		}
		var law Law
		if sh.PositiveLaw {
			law = samplerstest.IIDLaw(d, rows)
		}
		b.Run("kind="+settingsName(s), func(b *testing.B) {
			for b.Loop() {
				smp.Draw(rng, d, pos, rows)
				if err := smp.Declare(d, pos, rows, law, c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchTowers are tables of random embeddings: towers whose forward pass is a lookup.
type benchTowers struct {
	dim        int
	query, itm []float32
	q, v       []float32
}

func newBenchTowers(rng *rand.Rand, queries, items, dim int) *benchTowers {
	t := &benchTowers{dim: dim, query: make([]float32, queries*dim), itm: make([]float32, items*dim)}
	for k := range t.query {
		t.query[k] = float32(rng.NormFloat64())
	}
	for k := range t.itm {
		t.itm[k] = float32(rng.NormFloat64())
	}
	return t
}

func (t *benchTowers) Dim() int             { return t.dim }
func (t *benchTowers) Temperature() float64 { return 0.05 }
func (t *benchTowers) Queries(ids []int32) ([]float32, error) {
	t.q = lookup(t.q, t.query, ids, t.dim)
	return t.q, nil
}
func (t *benchTowers) Items(ids []int32) ([]float32, error) {
	t.v = lookup(t.v, t.itm, ids, t.dim)
	return t.v, nil
}

// lookup copies the rows ids of table into out.
func lookup(out, table []float32, ids []int32, dim int) []float32 {
	out = slices.Grow(out[:0], len(ids)*dim)
	for _, id := range ids {
		out = append(out, table[int(id)*dim:(int(id)+1)*dim]...)
	}
	return out
}
