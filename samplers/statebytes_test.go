package samplers_test

import (
	"encoding"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/samplingbias/workbench/internal/memstat"

	. "github.com/samplingbias/workbench/samplers"
	"github.com/samplingbias/workbench/samplers/samplerstest"
)

// TestStateBytes measures the state each sampler keeps, the live heap it holds after drawing and
// declaring a step of 1024 examples over 200,000 items (and, for memory, a checkpoint's copy of
// its state), against StateBytes: within 10% (and 4 KiB, the allocator's rounding of the small
// ones), and 0 for the samplers that keep none.
func TestStateBytes(t *testing.T) {
	const items, batch = 200_000, 1024
	d := &Data{Items: items, Batch: batch, Counts: make([]int64, items)}
	for j := range d.Counts {
		d.Counts[j] = int64(1 + j%7)
		d.N += int(d.Counts[j])
	}
	for _, s := range []Settings{{Kind: KindInBatch}, {Kind: KindUniform, Negatives: 64}, {Kind: KindPopularity, Negatives: 64},
		{Kind: KindInBatchUnique, Negatives: 64}, {Kind: KindMemory, MemoryBatches: 200},
		{Kind: KindMixture, Of: []Settings{{Kind: KindInBatchUnique, Negatives: 64}, {Kind: KindUniformPerRow, Negatives: 16}}}} {
		t.Run(settingsName(s), func(t *testing.T) {
			want, err := StateBytes(s, batch, items)
			if err != nil {
				t.Fatal(err)
			}
			smp := must(New(s))
			sh := smp.Shape()
			pos, rows := make([]int32, batch), make([]int32, sh.ItemRows(batch, items))
			for i := range pos {
				pos[i] = int32(i * 97 % items)
			}
			c := newColumnsFor(smp, batch, items)
			law := samplerstest.IIDLaw(d, rows)
			rng := rand.New(rand.NewPCG(1, 2))
			before := memstat.Live()
			smp.Draw(rng, d, pos, rows)
			if err := smp.Declare(d, pos, rows, law, c); err != nil {
				t.Fatal(err)
			}
			var saved []byte
			if m, ok := smp.(encoding.BinaryMarshaler); ok {
				if saved, err = m.MarshalBinary(); err != nil {
					t.Fatal(err)
				}
			}
			held := memstat.Live() - before
			runtime.KeepAlive(smp)
			runtime.KeepAlive(saved)
			runtime.KeepAlive(c) // the step and the rows are the trainer's, allocated before
			runtime.KeepAlive(rows)
			t.Logf("%s: estimate %.0f, held %.0f", s.Kind, want, held)
			if want == 0 && held > 4<<10 || want > 0 && (held < 0.9*want-4<<10 || held > 1.1*want+4<<10) {
				t.Errorf("holds %.0f bytes, StateBytes %.0f", held, want)
			}
		})
	}
}
