package samplers

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSampler reports the time of one step (Draw and Declare) of every built-in sampler at
// B = 1024, m = 256 (for memory K = 4 batches; for the mixtures, of in_batch_unique and uniform
// or uniform_per_row, m = 256 each) and M = 100 000 items with Zipf-like counts; the positives'
// law is a closed form, as the trainer's is without an embedding keyer.
func BenchmarkSampler(b *testing.B) {
	const batch, m, items = 1024, 256, 100_000
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
	for _, s := range []Settings{{Kind: KindInBatch}, {Kind: KindUniform, Negatives: m}, {Kind: KindMixed, Negatives: m},
		{Kind: KindFull}, {Kind: KindPopularity, Negatives: m}, {Kind: KindInBatchUnique, Negatives: m},
		{Kind: KindMemory, MemoryBatches: 4},
		{Kind: KindMixture, Of: []Settings{{Kind: KindInBatchUnique, Negatives: m}, {Kind: KindUniform, Negatives: m}}},
		{Kind: KindUniformPerRow, Negatives: m},
		{Kind: KindMixture, Of: []Settings{{Kind: KindInBatchUnique, Negatives: m}, {Kind: KindUniformPerRow, Negatives: m}}}} {
		smp, err := New(s)
		if err != nil {
			b.Fatal(err)
		}
		sh := smp.Shape()
		rows := make([]int32, sh.ItemRows(batch, items))
		c := newColumnsFor(sh, batch, items)
		var law Law
		if sh.PositiveLaw {
			law = exactLaw(d, rows)
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
