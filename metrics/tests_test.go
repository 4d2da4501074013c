package metrics

import (
	"math"
	"testing"
)

// TestTTestP: with 2 degrees of freedom the t distribution's CDF has the closed form
// F(t) = 1/2 + t/(2√(2+t²)), so for differences 1, 2, 3 (mean 2, sd 1, t = 2√3) the two-sided
// p-value is 1 − 2√3/√14 = 0.0741799…; p < 0.05 exactly when MeanCI's interval excludes 0.
func TestTTestP(t *testing.T) {
	want := 1 - 2*math.Sqrt(3)/math.Sqrt(14)
	if got := TTestP([]float64{1, 2, 3}); math.Abs(got-want) > 1e-12 {
		t.Errorf("TTestP(1, 2, 3) = %v, want %v", got, want)
	}
	for _, tc := range []struct {
		name string
		d    []float64
	}{
		{"excludes 0", []float64{0.9, 1.1, 1.0, 1.2}},
		{"includes 0", []float64{-1, 2, 0.5}},
		{"near the edge", []float64{0.1, 0.5, 0.35, 0.02, 0.4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, lo, hi := MeanCI(tc.d)
			if excl, sig := lo > 0 || hi < 0, TTestP(tc.d) < 0.05; excl != sig {
				t.Errorf("interval [%v, %v] excludes 0: %v, but p = %v", lo, hi, excl, TTestP(tc.d))
			}
		})
	}
	// Three identical differences of 4/3910 (a run that differs from another by the same 4 test
	// pairs at every seed) are not significant: a test of zero variance is unresolved.
	same := []float64{104.0/3910 - 100.0/3910, 114.0/3910 - 110.0/3910, 124.0/3910 - 120.0/3910} // equal but for rounding
	if !math.IsNaN(TTestP([]float64{1})) || TTestP([]float64{0, 0}) != 1 || !math.IsNaN(TTestP(same)) || !Equal(same) {
		t.Error("TTestP of one value, of zeros or of equal values")
	}
}

// TestHolm against a family computed by hand: p = 0.01, 0.04, 0.03, 0.005 sorted is 0.005,
// 0.01, 0.03, 0.04 with multipliers 4, 3, 2, 1: 0.02, 0.03, 0.06, max(0.06, 0.04) = 0.06; a NaN
// is left out of the family.
func TestHolm(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, math.NaN(), 0.03, 0.005})
	want := []float64{0.03, 0.06, math.NaN(), 0.06, 0.02}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || !math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("Holm[%d] = %v, want %v (all: %v)", i, got[i], want[i], got)
		}
	}
	if got := Holm([]float64{0.6, 0.5}); got[0] != 1 || got[1] != 1 {
		t.Errorf("Holm caps at 1: %v", got)
	}
}

// TestBenjaminiHochberg checks the adjustment on lists adjusted by hand (and by R's
// p.adjust(p, "BH"), which gives the same): sorted 0.005, 0.01, 0.03, 0.04 become
// 4·0.005/1 = 0.02, 4·0.01/2 = 0.02, 4·0.03/3 = 0.04 and 4·0.04/4 = 0.04, each the least of its
// own and the later ones, returned in the input's order; untested hypotheses (NaN) stay NaN and
// do not count.
func TestBenjaminiHochberg(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct{ p, want []float64 }{
		{[]float64{0.01, 0.04, 0.03, 0.005}, []float64{0.02, 0.04, 0.04, 0.02}},
		{[]float64{0.01, 0.02, 0.03, 0.04, 0.05}, []float64{0.05, 0.05, 0.05, 0.05, 0.05}},
		{[]float64{0.01, nan, 0.04, 0.03, 0.005}, []float64{0.02, nan, 0.04, 0.04, 0.02}},
		{[]float64{0.9, 0.8}, []float64{0.9, 0.9}},
		{[]float64{0.6}, []float64{0.6}},
	} {
		got := BenjaminiHochberg(tc.p)
		for i := range got {
			if math.IsNaN(tc.want[i]) != math.IsNaN(got[i]) || math.Abs(got[i]-tc.want[i]) > 1e-15 {
				t.Errorf("BH(%v) = %v, want %v", tc.p, got, tc.want)
				break
			}
		}
	}
}
