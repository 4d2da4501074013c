// Package prob holds the probability identities of sampling that both the losses (which subtract
// them) and the samplers (which declare them) use, written once: per-draw and inclusion
// probabilities of draws with replacement, the exact inclusion probabilities of weighted draws
// without replacement (SuccessiveInclusion), and the sample mean the frequency simulation and its
// report both take.
package prob

import "math"

// Draw converts the probability p that an item appears at least once in n independent draws into
// the per-draw probability q = 1-(1-p)^(1/n), the inverse of Inclusion. It returns NaN unless
// 0 ≤ p ≤ 1 and n ≥ 1.
func Draw(p float64, n int) float64 {
	if !(p >= 0 && p <= 1) || n < 1 {
		return math.NaN()
	}
	return -math.Expm1(math.Log1p(-p) / float64(n))
}

// Inclusion is the probability p = 1-(1-q)^n that an item of per-draw probability q appears at
// least once in n independent draws. It returns NaN unless 0 ≤ q ≤ 1 and n ≥ 0.
func Inclusion(q float64, n int) float64 {
	if !(q >= 0 && q <= 1) || n < 0 {
		return math.NaN()
	}
	return -math.Expm1(float64(n) * math.Log1p(-q))
}

// Mixed is the per-draw probability of an item among inBatch draws of per-draw probability
// qData and uniform draws from a corpus of corpus items: q = (inBatch·qData +
// uniform/corpus)/(inBatch+uniform), so that (inBatch+uniform)·q is the item's expected count. It
// returns NaN for invalid arguments.
func Mixed(qData float64, inBatch, uniform, corpus int) float64 {
	if !(qData >= 0 && qData <= 1) || inBatch < 0 || uniform < 0 || inBatch+uniform == 0 || corpus < 1 {
		return math.NaN()
	}
	return (float64(inBatch)*qData + float64(uniform)/float64(corpus)) / float64(inBatch+uniform)
}

// BinomialMAD is the mean absolute deviation E|X − np| of X ~ Binomial(n, p), by De Moivre's
// closed form 2·k·C(n, k)·p^k·(1 − p)^(n−k+1) with k = ⌊np⌋ + 1 (Diaconis and Zabell 1991,
// "Closed form summation for classical distributions: variations on a theme of De Moivre"). It
// returns NaN unless 0 ≤ p ≤ 1 and n ≥ 0.
func BinomialMAD(n int, p float64) float64 {
	if !(p >= 0 && p <= 1) || n < 0 {
		return math.NaN()
	}
	k := int(math.Floor(float64(n)*p)) + 1
	if p == 0 || k > n {
		return 0
	}
	lc, _ := math.Lgamma(float64(n + 1))
	lk, _ := math.Lgamma(float64(k + 1))
	lnk, _ := math.Lgamma(float64(n - k + 1))
	return 2 * float64(k) * math.Exp(lc-lk-lnk+float64(k)*math.Log(p)+float64(n-k+1)*math.Log1p(-p))
}

// Mean is the arithmetic mean of x, its values summed in order (NaN for an empty x).
func Mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
