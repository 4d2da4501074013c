package report

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/samplingbias/workbench/metrics"
)

// kendallTau returns Kendall's τ_b between the paired values x and y (Kendall 1945: ties in
// either ranking count in neither the concordant nor the discordant pairs, and the denominator
// is √((n₀ − n₁)(n₀ − n₂)) with n₀ = n(n−1)/2 and n₁, n₂ the pairs tied in x and in y), and the
// discordant pairs (i, j), i < j: the two orderings put them in opposite orders. It is NaN for
// fewer than two values or when every value of x or of y is the same.
func kendallTau(x, y []float64) (tau float64, discordant [][2]int) {
	n := len(x)
	var conc, disc, tx, ty float64
	for i := range n {
		for j := i + 1; j < n; j++ {
			dx, dy := x[i]-x[j], y[i]-y[j]
			switch {
			case dx == 0 && dy == 0:
				tx++
				ty++
			case dx == 0:
				tx++
			case dy == 0:
				ty++
			case (dx > 0) == (dy > 0):
				conc++
			default:
				disc++
				discordant = append(discordant, [2]int{i, j})
			}
		}
	}
	n0 := float64(n) * float64(n-1) / 2
	den := math.Sqrt((n0 - tx) * (n0 - ty))
	if den == 0 {
		return math.NaN(), discordant
	}
	return (conc - disc) / den, discordant
}

// effectSize is the standardised mean of paired differences d, Cohen's d_z: mean/sd (sample
// standard deviation); NaN for fewer than two differences or differences all equal
// (metrics.Equal: no spread to standardise by).
func effectSize(d []float64) float64 {
	if len(d) < 2 || metrics.Equal(d) {
		return math.NaN()
	}
	mean, sd := stat.MeanStdDev(d, nil)
	return mean / sd
}

// Sizes of the paired randomisation test.
const (
	// randomisations is the number of random sign assignments of the Monte-Carlo test.
	randomisations = 10000
	// exactFlips bounds the differences of the Monte-Carlo test; with more, the test uses the
	// normal law of the randomisation distribution.
	exactFlips = 1000
)

// randomisationP is the two-sided p-value of the paired randomisation test (Fisher's sign-flip
// test, the IR convention for comparing two systems on the same queries: Smucker, Allan &
// Carterette, "A Comparison of Statistical Significance Tests for Information Retrieval
// Evaluation", CIKM 2007) of the paired differences d: under the null hypothesis each
// difference is as likely to have either sign, and p is the share of the 2^n sign assignments
// whose |Σ ±dᵢ| is at least the observed |Σ dᵢ|. Zero differences do not change the sum and are
// left out. When every non-zero |dᵢ| is the same (a difference of hits: Recall@K), the
// distribution is the binomial one and p is exact (the two-sided sign test); with up to
// exactFlips non-zero differences it is estimated from randomisations assignments drawn from a
// PCG seeded with seed, as (1 + count)/(1 + randomisations); beyond, from the normal law of
// the sum, mean 0 and variance Σ dᵢ², which the many terms make exact to well below the other
// estimate's noise. It is 1 when every difference is zero and NaN when there is none.
func randomisationP(d []float64, seed uint64) float64 {
	if len(d) == 0 {
		return math.NaN()
	}
	var nz []float64
	var sum, sq float64
	for _, x := range d {
		if x != 0 {
			nz = append(nz, x)
			sum += x
			sq += x * x
		}
	}
	n := len(nz)
	if n == 0 {
		return 1
	}
	if slices.IndexFunc(nz, func(x float64) bool { return math.Abs(x) != math.Abs(nz[0]) }) < 0 {
		// Σ ±|d| = |d|·(2·#plus − n): the sign test on #plus ~ Binomial(n, ½).
		plus := 0
		for _, x := range nz {
			if x > 0 {
				plus++
			}
		}
		k := min(plus, n-plus)
		p := 2 * distuv.Binomial{N: float64(n), P: 0.5}.CDF(float64(k))
		return min(1, p)
	}
	obs := math.Abs(sum) * (1 - 1e-12) // rounding of the sums is not evidence
	if n > exactFlips {
		return 2 * distuv.UnitNormal.Survival(obs/math.Sqrt(sq))
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	count := 0
	for range randomisations {
		var s float64
		for i := 0; i < n; i += 64 {
			bits := rng.Uint64()
			for j, x := range nz[i:min(n, i+64)] {
				if bits>>uint(j)&1 == 1 {
					s += x
				} else {
					s -= x
				}
			}
		}
		if math.Abs(s) >= obs {
			count++
		}
	}
	return float64(1+count) / float64(1+randomisations)
}
