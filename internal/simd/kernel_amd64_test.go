//go:build !noasm

package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKernel6x16 checks the kernel against float64 sums within the float32 rounding bound
// γ_k·Σ|a b| (Higham §3.1), and that equal columns give bit-equal results wherever they sit.
func TestKernel6x16(t *testing.T) {
	if !Kernel() {
		// No AVX2/FMA on this processor: the kernel must refuse to run.
		defer func() {
			if recover() == nil {
				t.Error("Kernel6x16 ran without AVX2/FMA")
			}
		}()
		Kernel6x16(1, make([]float32, 6), make([]float32, 16), make([]float32, 96), 16)
		return
	}
	rng := rand.New(rand.NewPCG(2, 2))
	for _, k := range []int{1, 2, 7, 64, 129} {
		a := make([]float32, 6*k)
		b := make([]float32, 16*k)
		for i := range a {
			a[i] = float32(rng.NormFloat64())
		}
		for l := range k {
			for j := range 16 {
				b[l*16+j] = float32(rng.NormFloat64())
			}
			b[l*16+13] = b[l*16+2] // columns 2 and 13 are equal
		}
		const ldc = 21
		c := make([]float32, 5*ldc+16)
		Kernel6x16(k, a, b, c, ldc)
		gamma := float64(k) * 0x1p-24 / (1 - float64(k)*0x1p-24)
		for r := range 6 {
			for j := range 16 {
				var dot, abs float64
				for l := range k {
					x := float64(a[l*6+r]) * float64(b[l*16+j])
					dot += x
					abs += math.Abs(x)
				}
				if got := float64(c[r*ldc+j]); math.Abs(got-dot) > gamma*abs {
					t.Errorf("k %d: c[%d][%d] = %v, want %v ± %v", k, r, j, got, dot, gamma*abs)
				}
			}
			if c[r*ldc+2] != c[r*ldc+13] {
				t.Errorf("k %d row %d: equal columns give %v and %v", k, r, c[r*ldc+2], c[r*ldc+13])
			}
		}
	}
}
