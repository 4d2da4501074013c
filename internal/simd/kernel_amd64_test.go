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
		Kernel6x16(1, 1, make([]float32, 6), make([]float32, 16), make([]float32, 96), 16)
		return
	}
	rng := rand.New(rand.NewPCG(2, 2))
	for _, k := range []int{1, 2, 7, 64, 129} {
		for _, panels := range []int{1, 3, 4, 5, 9} { // 4 or more: four at a time with AVX-512, then the rest
			a := make([]float32, panels*6*k)
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
			c := make([]float32, (6*panels-1)*ldc+16)
			Kernel6x16(k, panels, a, b, c, ldc)
			gamma := float64(k) * 0x1p-24 / (1 - float64(k)*0x1p-24)
			for p := range panels {
				alone := make([]float32, 5*ldc+16) // the panel on its own: the same values
				Kernel6x16(k, 1, a[p*6*k:(p+1)*6*k], b, alone, ldc)
				for r := range 6 {
					row := c[(6*p+r)*ldc:]
					for j := range 16 {
						var dot, abs float64
						for l := range k {
							x := float64(a[p*6*k+l*6+r]) * float64(b[l*16+j])
							dot += x
							abs += math.Abs(x)
						}
						if got := float64(row[j]); math.Abs(got-dot) > gamma*abs {
							t.Errorf("k %d panel %d: c[%d][%d] = %v, want %v ± %v", k, p, r, j, got, dot, gamma*abs)
						}
						if row[j] != alone[r*ldc+j] {
							t.Errorf("k %d panel %d: c[%d][%d] = %v, alone %v", k, p, r, j, row[j], alone[r*ldc+j])
						}
					}
					if row[2] != row[13] {
						t.Errorf("k %d panel %d row %d: equal columns give %v and %v", k, p, r, row[2], row[13])
					}
				}
			}
		}
	}
}

// TestGemm6x16 checks Gemm6x16 bit for bit against Kernel6x16's sums of each panel alone, one
// panel at a time, then updated by hand (beta·c rounded exactly), for panel counts that take the
// AVX-512 kernel's four at a time and the rest, with slots of C outside the tiles left alone.
func TestGemm6x16(t *testing.T) {
	if !Kernel() {
		defer func() {
			if recover() == nil {
				t.Error("Gemm6x16 ran without AVX2/FMA")
			}
		}()
		Gemm6x16(1, 1, make([]float32, 6), make([]float32, 16), make([]float32, 96), 16, 1, 0)
		return
	}
	rng := rand.New(rand.NewPCG(3, 3))
	const k, ldc = 37, 19
	for _, panels := range []int{1, 3, 4, 5, 9} {
		a := make([]float32, panels*6*k)
		b := make([]float32, 16*k)
		for i := range a {
			a[i] = float32(rng.NormFloat64())
		}
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		rows := 6 * panels
		sum := make([]float32, (rows-1)*ldc+16)
		for p := range panels {
			Kernel6x16(k, 1, a[p*6*k:], b, sum[6*p*ldc:], ldc)
		}
		for _, beta := range []float32{0, 0.5, -4} {
			const alpha = -1.25
			c := make([]float32, rows*ldc)
			old := make([]float32, len(c))
			for i := range c {
				c[i] = float32(rng.NormFloat64())
				if beta == 0 {
					c[i] = float32(math.NaN())
				}
				old[i] = c[i]
			}
			Gemm6x16(k, panels, a, b, c, ldc, alpha, beta)
			for i := range c {
				r, j := i/ldc, i%ldc
				want := old[i]
				if j < 16 {
					// Each product rounded (the conversions keep the compiler from fusing them, as
					// it does under GOAMD64=v3): beta is a power of two, so that beta·c is exact and
					// the kernel's fused update gives the same sum.
					want = float32(alpha * sum[i])
					if beta != 0 {
						want += float32(beta * old[i])
					}
				}
				if math.Float32bits(c[i]) != math.Float32bits(want) && !(math.IsNaN(float64(want)) && math.IsNaN(float64(c[i]))) {
					t.Fatalf("panels %d beta %v: c[%d][%d] = %v, want %v", panels, beta, r, j, c[i], want)
				}
			}
		}
	}
}

// TestGemm6x16Strided checks Gemm6x16Strided bit for bit against Gemm6x16 on the same values
// packed one panel at a time, for rows (rs = lda, cs = 1) and columns (rs = 1, cs = lda) of a
// row-major matrix wider than the panels, panel counts that take the AVX-512 kernel's four at a
// time and the rest, both kinds of update (beta 0 over NaNs, and beta ≠ 0), with slots of C
// outside the tiles left alone.
func TestGemm6x16Strided(t *testing.T) {
	if !Kernel() {
		defer func() {
			if recover() == nil {
				t.Error("Gemm6x16Strided ran without AVX2/FMA")
			}
		}()
		Gemm6x16Strided(1, 1, make([]float32, 6), 1, 1, make([]float32, 16), make([]float32, 96), 16, 1, 0)
		return
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for _, k := range []int{1, 5, 64, 131} {
		for _, panels := range []int{1, 4, 6} {
			const ldc = 18
			rows := 6 * panels
			lda := max(k, rows) + 9 // rows of k values (or columns of 6·panels) in a wider matrix
			a := make([]float32, max(k, rows)*lda)
			for i := range a {
				a[i] = float32(rng.NormFloat64())
			}
			b := make([]float32, 16*k)
			for i := range b {
				b[i] = float32(rng.NormFloat64())
			}
			for _, st := range [][2]int{{lda, 1}, {1, lda}} {
				rs, cs := st[0], st[1]
				packed := make([]float32, rows*k)
				for r := range rows {
					for l := range k {
						packed[(r/6)*6*k+l*6+r%6] = a[r*rs+l*cs]
					}
				}
				for _, beta := range []float32{0, 0.75} {
					want := make([]float32, (rows-1)*ldc+16)
					for i := range want {
						want[i] = float32(rng.NormFloat64())
						if beta == 0 && i%ldc < 16 {
							want[i] = float32(math.NaN())
						}
					}
					got := append([]float32(nil), want...)
					for p := range panels {
						Gemm6x16(k, 1, packed[p*6*k:], b, want[6*p*ldc:], ldc, 1.5, beta)
					}
					Gemm6x16Strided(k, panels, a, rs, cs, b, got, ldc, 1.5, beta)
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("k %d panels %d rs %d cs %d beta %v: c[%d][%d] = %v, packed: %v", k, panels, rs, cs, beta, i/ldc, i%ldc, got[i], want[i])
						}
					}
				}
			}
		}
	}
}
