// Package prob holds the probability identities of sampling with replacement that both the
// losses (which subtract them) and the samplers (which declare them) use, written once.
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
