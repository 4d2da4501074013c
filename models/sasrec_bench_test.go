package models

import (
	"testing"

	"gorgonia.org/tensor"
)

// BenchmarkSASRecStep measures a training step of the SASRec encoder at Kang & McAuley's
// MovieLens-1M shape with Khrylchenko et al.'s batch: B = 128 full histories of L = 200 items
// (of 3,706, MovieLens-1M's), width d = 64, 2 blocks of 1 head, dropout 0.2, float32: forward
// and backward of the encoder with the loss Σ out ⊙ C (fixed C), then Adam on every dense
// parameter and on the item rows the window read. It reports the positions (rows of the step)
// per second. impl=expression is the same step with the layers written in stock Gorgonia ops.
func BenchmarkSASRecStep(b *testing.B) {
	for _, im := range impls {
		b.Run("impl="+im.name, func(b *testing.B) {
			const rows, length, d, items = 128, 200, 64, 3706
			e, err := newSASRec(SequenceSettings{Encoder: EncoderSASRec, MaxLength: length}, d, items, 0.1, tensor.Float32, 1)
			if err != nil {
				b.Fatal(err)
			}
			w := randomWindow(rows, length, items, 5)
			for r := range rows { // full histories
				for j := range length {
					if w.Items[r*length+j] == Padding {
						w.Items[r*length+j] = int32((r*length + j) % items)
					}
				}
			}
			h := newSeqHarness[float32](b, e, rows, length, im.impl, true, 1)
			ts := TrainSettings{}
			if err := ts.Resolve(); err != nil {
				b.Fatal(err)
			}
			opt := newOptimizer[float32](ts, e.params())
			rg := newRowGrad[float32](items, d)
			step := func() {
				h.run(b, w)
				h.n.scatter(w, data[float32](h.grads[len(h.grads)-1].Value()), rg)
				opt.begin()
				for i, p := range h.n.of {
					opt.dense(p, data[float32](h.grads[i].Value()), 1)
				}
				opt.rows(e.items, rg, 1)
				rg.reset()
			}
			step() // allocate the ops' outputs and scratch
			b.ReportAllocs()
			cpu0 := cpuTime()
			b.ResetTimer()
			for range b.N {
				step()
			}
			b.ReportMetric(float64(b.N*rows*length)/b.Elapsed().Seconds(), "positions/s")
			b.ReportMetric((cpuTime()-cpu0).Seconds()*1e3/float64(b.N), "cpu-ms/op")
		})
	}
}
