package prob

import (
	"fmt"
	"math"
	"testing"
)

// madByEnumeration is Σ_x |x − np|·C(n, x)·p^x·(1 − p)^(n−x), summed term by term.
func madByEnumeration(n int, p float64) float64 {
	var s float64
	for x := 0; x <= n; x++ {
		lc, _ := math.Lgamma(float64(n + 1))
		lx, _ := math.Lgamma(float64(x + 1))
		lnx, _ := math.Lgamma(float64(n - x + 1))
		lp := lc - lx - lnx
		if x > 0 {
			lp += float64(x) * math.Log(p)
		}
		if x < n {
			lp += float64(n-x) * math.Log1p(-p)
		}
		s += math.Abs(float64(x)-float64(n)*p) * math.Exp(lp)
	}
	return s
}

// TestBinomialMAD: De Moivre's closed form equals the term-by-term sum of the definition, and the
// degenerate cases (p = 0, p = 1, n = 0) have no deviation.
func TestBinomialMAD(t *testing.T) {
	for _, n := range []int{1, 2, 5, 17, 100, 2000} {
		for _, p := range []float64{1e-4, 0.01, 0.3, 0.5, 0.97} {
			t.Run(fmt.Sprintf("n=%d,p=%g", n, p), func(t *testing.T) {
				got, want := BinomialMAD(n, p), madByEnumeration(n, p)
				if math.Abs(got-want) > 1e-10*math.Max(want, 1e-300)+1e-300 {
					t.Errorf("BinomialMAD(%d, %g) = %.15g, enumeration %.15g", n, p, got, want)
				}
			})
		}
	}
	for _, c := range []struct {
		n int
		p float64
	}{{10, 0}, {10, 1}, {0, 0.5}} {
		if got := BinomialMAD(c.n, c.p); got != 0 {
			t.Errorf("BinomialMAD(%d, %g) = %g, want 0", c.n, c.p, got)
		}
	}
	if got := BinomialMAD(10, 1.5); !math.IsNaN(got) {
		t.Errorf("BinomialMAD(10, 1.5) = %g, want NaN", got)
	}
}

// TestMean: the mean of a sample, summed in order: (1 + 2 + 6)/3 = 3; of none, NaN.
func TestMean(t *testing.T) {
	if m := Mean([]float64{1, 2, 6}); m != 3 {
		t.Errorf("Mean(1, 2, 6) = %v, want 3", m)
	}
	if m := Mean(nil); !math.IsNaN(m) {
		t.Errorf("Mean() = %v, want NaN", m)
	}
}
