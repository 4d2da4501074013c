package simd

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkExpNegShiftTo measures the softmax rows' exponentials (losses' fused kernels) on the
// main job's row widths, 1,024 in-batch columns and 4,604 full-softmax ones, in the cache, and
// reports values per second.
func BenchmarkExpNegShiftTo(b *testing.B) {
	for _, n := range []int{1024, 4604} {
		rng := rand.New(rand.NewPCG(1, 2))
		x := make([]float64, n)
		for i := range x {
			x[i] = -10 * rng.Float64()
		}
		work, dst := make([]float64, n), make([]float32, n)
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			for b.Loop() {
				copy(work, x)
				ExpNegShiftTo(dst, work, 0.5)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "values/s")
		})
	}
}
