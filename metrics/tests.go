package metrics

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// TTestP is the two-sided p-value of the one-sample Student t-test of mean 0 over values (paired
// differences): t = mean/(sd/√n) with n−1 degrees of freedom, the test whose 95% interval
// MeanCI gives (p < 0.05 exactly when that interval excludes 0). It is NaN for fewer than two
// values and for values Equal up to rounding other than 0 (a test of zero variance says nothing
// about significance: the differences are unresolved, not significant), and 1 when they are
// all 0.
func TTestP(values []float64) float64 {
	n := len(values)
	if n < 2 {
		return math.NaN()
	}
	mean, sd := stat.MeanStdDev(values, nil)
	if Equal(values) {
		if mean == 0 {
			return 1
		}
		return math.NaN()
	}
	t := math.Abs(mean) / (sd / math.Sqrt(float64(n)))
	return 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Survival(t)
}

// Equal reports whether two or more values are equal up to the rounding of computing them: their
// standard deviation is at most 1e-9 of their mean's magnitude. Per-seed differences of a metric
// that every seed changes by the same test pairs, (104+10s)/3910 − (100+10s)/3910, differ in
// their last bits only, and a t-test would take that for a near-infinite t; real variation
// across seeds is many orders of magnitude above 1e-9 of the mean.
func Equal(values []float64) bool {
	if len(values) < 2 {
		return false
	}
	mean, sd := stat.MeanStdDev(values, nil)
	return sd <= rounding*math.Abs(mean)
}

// rounding is the relative size below which Equal and MeanCI take a difference for the rounding
// of computing it.
const rounding = 1e-9

// Holm returns Holm's (1979) step-down adjusted p-values of a family of hypotheses with p-values
// p: with the p-values sorted p₍₁₎ ≤ … ≤ p₍ₘ₎, the adjusted p₍ᵢ₎ is max over j ≤ i of
// min(1, (m−j+1)·p₍ⱼ₎), in the order of p. Rejecting where the adjusted value is below α keeps
// the family-wise error rate at most α. NaN p-values (untested hypotheses) stay NaN and do not
// count in m.
func Holm(p []float64) []float64 {
	out, idx := tested(p)
	m, running := len(idx), 0.0
	for j, i := range idx {
		running = max(running, min(1, float64(m-j)*p[i]))
		out[i] = running
	}
	return out
}

// BenjaminiHochberg returns Benjamini & Hochberg's (1995) adjusted p-values of a family with
// p-values p: with the m p-values sorted, p₍₁₎ ≤ … ≤ p₍ₘ₎, the adjusted p₍ᵢ₎ is min over j ≥ i of
// min(1, m·p₍ⱼ₎/j), in the order of p. Rejecting where the adjusted value is below α keeps the
// false discovery rate at most α for independent or positively dependent tests. NaN p-values
// (untested hypotheses) stay NaN and do not count in m.
func BenjaminiHochberg(p []float64) []float64 {
	out, idx := tested(p)
	m, running := len(idx), 1.0
	for j := m - 1; j >= 0; j-- {
		i := idx[j]
		running = min(running, float64(m)*p[i]/float64(j+1))
		out[i] = running
	}
	return out
}

// tested returns NaNs for the adjusted p-values of p and the indices of the p-values that are
// not NaN, by increasing p-value (equal ones in their order).
func tested(p []float64) ([]float64, []int) {
	out := make([]float64, len(p))
	var idx []int
	for i, v := range p {
		out[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	return out, idx
}
