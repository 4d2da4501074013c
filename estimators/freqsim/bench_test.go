package freqsim

import (
	"fmt"
	"testing"
)

// BenchmarkRun reports simulated steps per second of one default cell (each step: 128 draws, one
// Observe, 1000 reads of p̂).
func BenchmarkRun(b *testing.B) {
	for _, m := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			var s Settings
			steps := 0
			for b.Loop() {
				r, err := Run(s, Job{Alpha: 0.01, Hashes: m, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				steps += len(r.TV)
			}
			b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}
