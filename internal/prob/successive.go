package prob

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"

	"gonum.org/v1/gonum/integrate/quad"

	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/reuse"
)

// SuccessiveAccuracy is the absolute accuracy of SuccessiveInclusion: every π_i it returns is
// within it of the exact inclusion probability.
const SuccessiveAccuracy = 1e-10

// SuccessiveInclusion returns π_i, the probability that item i is among k items drawn without
// replacement from items of weights w by successive sampling: each draw takes one of the items
// not drawn yet with probability proportional to its weight (the scheme of Efraimidis and
// Spirakis's keys u^{1/w_i}, or of the Gumbel-top-k trick on log w). Every π_i is within
// SuccessiveAccuracy of the exact value; uniform weights give k/M exactly.
//
// What p and q mean for such a sampler. π_i is an inclusion probability, the p of a step's
// candidate set: P(item i is among the k), which is also its expected count there, since an item
// is drawn at most once; Σ_i π_i = k. It is not k·w_i/Σw: drawing without replacement takes the
// heavy items early and then spreads the remaining draws over the light ones, so π is flatter
// than the weights (for a heavy item k·w_i/Σw can exceed 1). There is no per-draw q that does not
// depend on the draw's order: the j-th draw's distribution is w_i/Σw for j = 1 and then shifts
// toward the light items. A correction that subtracts log Q from a column's logit must take
// Q_i = π_i (the expected count, as logq_probability = expected_count means it), not a per-draw q
// multiplied by k.
//
// The computation. Give each item an exponential clock T_i of rate w_i; the order in which the
// clocks ring is the order of successive sampling (by the clocks' memorylessness, the next to
// ring among the rest is item i with probability w_i/Σ_rest w; Efraimidis and Spirakis's key
// u^{1/w_i} is e^{−T_i}), and the sample is the k first to ring. So
//
//	π_i = P(T_i < τ_i) = ∫_0^∞ w_i e^{−w_i t} G_i(t) dt,  G_i(t) = P(N_{−i}(t) ≤ k − 1),
//
// τ_i the k-th ring among the other items and N_{−i}(t) the number of them rung by t, a sum of
// independent Bernoulli variables of probabilities p_j(t) = 1 − e^{−w_j t} (Poisson-binomial).
// Below t_a and above t_b, where Chernoff's bounds on the count make 1 − G_i and G_i smaller than
// 1e-17 for every item, G_i is taken as 1 and 0: π_i = (1 − e^{−w_i t_a}) + ∫_{t_a}^{t_b}. The
// integral is taken in log t, where each item's factor w_i t e^{−w_i t} is a bump of width about
// one whatever its weight, by adaptive Gauss–Legendre (gonum's quad.Legendre, 12 nodes a panel):
// 8 panels, each halved until its halves' sum agrees with it within SuccessiveAccuracy/100 (times
// its share of the range) for every item. At each node, items of equal weight share their G (the
// weights are grouped), so that popularity counts with many ties cost little. The count of the
// items with p_j ≤ 1/2 is convolved as one binomial per weight and truncated at k; that of the
// items with p_j > 1/2 (fewer than 2k of them wherever G is not negligible) kept in full; and one
// item of each weight is removed by deconvolution, forward from 0 for p ≤ 1/2 and backward from
// the top of the full count for p > 1/2, the two directions in which dividing out a Bernoulli
// factor does not amplify rounding. When k > M/2 the same is done with the M − k items not
// drawn (G_i = 1 − P(fewer than M − k of the others not rung by t)), so that the counts stay
// short. A node costs O(k·Σ_g min(n_g, k)) for the weights' multiplicities n_g, plus the square
// of the count kept in full; k = 256 of 100,000 Zipf popularity counts takes seconds
// (BenchmarkSuccessiveInclusion).
//
// Weights must be finite and ≥ 0; items of weight 0 are never drawn (π = 0) and at least k items
// must have a positive weight. k may be 0.
//
// References: B. Rosén, Asymptotic theory for successive sampling with varying probabilities
// without replacement, Annals of Mathematical Statistics 43 (1972), for successive sampling and
// its inclusion probabilities; P. S. Efraimidis and P. G. Spirakis, Weighted random sampling with
// a reservoir, Information Processing Letters 97 (2006).
func SuccessiveInclusion(w []float64, k int) ([]float64, error) {
	positive := 0
	for i, v := range w {
		if !(v >= 0) || math.IsInf(v, 1) {
			return nil, fmt.Errorf("prob: weight %d is %v; weights must be finite and ≥ 0", i, v)
		}
		if v > 0 {
			positive++
		}
	}
	if k < 0 || k > positive {
		return nil, fmt.Errorf("prob: cannot draw k = %d items without replacement from %d items of positive weight", k, positive)
	}
	pi := make([]float64, len(w))
	if k == 0 {
		return pi, nil
	}
	s := newSuccessive(w, k)
	var gpi []float64
	switch {
	case k == positive:
		gpi = make([]float64, len(s.w))
		for g := range gpi {
			gpi[g] = 1
		}
	case len(s.w) == 1:
		gpi = []float64{float64(k) / float64(positive)}
	default:
		var err error
		if gpi, err = s.integrate(); err != nil {
			return nil, err
		}
	}
	for i, v := range w {
		if v > 0 {
			g, _ := slices.BinarySearch(s.w, v/s.scale)
			pi[i] = gpi[g]
		}
	}
	return pi, nil
}

// successive is a problem of SuccessiveInclusion: the distinct positive weights w_g, ascending,
// divided by the largest (scale) so that the times are of order 1, their multiplicities n_g, the
// number of positive items m and the sample size k.
type successive struct {
	w     []float64
	n     []int
	m, k  int
	scale float64
}

func newSuccessive(w []float64, k int) *successive {
	v := make([]float64, 0, len(w))
	for _, x := range w {
		if x > 0 {
			v = append(v, x)
		}
	}
	slices.Sort(v)
	s := &successive{k: k, m: len(v), scale: v[len(v)-1]}
	for i, x := range v {
		if i == 0 || x != v[i-1] {
			s.w = append(s.w, x/s.scale)
			s.n = append(s.n, 0)
		}
		s.n[len(s.n)-1]++
	}
	return s
}

// Constants of the integration.
const (
	// logTail is log 1e-17: outside [t_a, t_b], 1 − G_i (below) and G_i (above) are at most
	// e^logTail for every item.
	logTail = -39.14394658089878
	// legendreNodes is the number of Gauss–Legendre nodes of a panel.
	legendreNodes = 12
	// firstPanels is the number of panels the adaptive integration starts from, and maxDepth
	// the number of times it may halve one.
	firstPanels, maxDepth = 8, 40
)

// integrate returns π for each distinct weight: π_g = (1 − e^{−w_g t_a}) + ∫_{t_a}^{t_b}
// w_g e^{−w_g t} G_g(t) dt, in x = log t (the integrand w_g t e^{−w_g t} G_g(e^x)), by adaptive
// Gauss–Legendre: a panel is halved until its two halves' sum differs from its own value by at
// most SuccessiveAccuracy/100 times its share of the range, for every weight. The panels are
// added left to right, and the nodes of a panel evaluated in parallel, so that the result does
// not depend on the number of goroutines.
func (s *successive) integrate() ([]float64, error) {
	ta, tb := s.window()
	xa, xb := math.Log(ta), math.Log(tb)
	in := &integrand{s: s, scratch: make([]*countScratch, runtime.GOMAXPROCS(0))}
	acc := make([]float64, len(s.w))
	tol := SuccessiveAccuracy / 100 / (xb - xa)
	var refine func(lo, hi float64, whole []float64, depth int) error
	refine = func(lo, hi float64, whole []float64, depth int) error {
		mid := (lo + hi) / 2
		left, right := in.panel(lo, mid), in.panel(mid, hi)
		worst := 0.0
		for g := range whole {
			worst = max(worst, math.Abs(left[g]+right[g]-whole[g]))
		}
		if worst <= tol*(hi-lo) {
			for g := range acc {
				acc[g] += left[g] + right[g]
			}
			return nil
		}
		if depth == maxDepth {
			return errors.New("prob: the inclusion probabilities did not converge to their stated accuracy")
		}
		if err := refine(lo, mid, left, depth+1); err != nil {
			return err
		}
		return refine(mid, hi, right, depth+1)
	}
	h := (xb - xa) / firstPanels
	for p := range firstPanels {
		lo, hi := xa+float64(p)*h, xa+float64(p+1)*h
		if err := refine(lo, hi, in.panel(lo, hi), 0); err != nil {
			return nil, err
		}
	}
	pi := make([]float64, len(s.w))
	for g, w := range s.w {
		pi[g] = min(1, -math.Expm1(-w*ta)+acc[g])
	}
	return pi, nil
}

// integrand evaluates the integrand of integrate on panels.
type integrand struct {
	s       *successive
	scratch []*countScratch // one per goroutine
}

// panel returns the Gauss–Legendre value on [lo, hi] (in x = log t) of every weight's integrand.
func (in *integrand) panel(lo, hi float64) []float64 {
	s := in.s
	x, wt := make([]float64, legendreNodes), make([]float64, legendreNodes)
	quad.Legendre{}.FixedLocations(x, wt, lo, hi)
	stay := make([][]float64, legendreNodes)
	parallel.Split(legendreNodes, len(in.scratch), func(part, a, b int) {
		if in.scratch[part] == nil {
			in.scratch[part] = &countScratch{}
		}
		for j := a; j < b; j++ {
			stay[j] = make([]float64, len(s.w))
			s.stay(math.Exp(x[j]), stay[j], in.scratch[part])
		}
	})
	out := make([]float64, len(s.w))
	for j := range legendreNodes {
		t := math.Exp(x[j])
		for g, w := range s.w {
			out[g] += wt[j] * w * t * math.Exp(-w*t) * stay[j][g]
		}
	}
	return out
}

// expected is λ(t) = E[N(t)] = Σ_g n_g (1 − e^{−w_g t}), the expected number of clocks rung by t.
func (s *successive) expected(t float64) float64 {
	l := 0.0
	for g, w := range s.w {
		l -= float64(s.n[g]) * math.Expm1(-w*t)
	}
	return l
}

// timeOf is the t at which λ(t) = l, for 0 < l < m.
func (s *successive) timeOf(l float64) float64 {
	lo, hi := 0.0, 1.0
	for s.expected(hi) < l {
		lo, hi = hi, 2*hi
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if s.expected(mid) < l {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// chernoff is log of Chernoff's bound e^{−μ}(eμ/a)^a on P(X ≥ a) (μ < a) or P(X ≤ a) (μ > a)
// for X a sum of independent Bernoulli variables of mean μ.
func chernoff(mu, a float64) float64 {
	if a == 0 {
		return -mu
	}
	return -mu + a*(1+math.Log(mu/a))
}

// solve returns the x in (lo, hi) where the monotone f crosses logTail, by bisection.
func solve(f func(float64) float64, lo, hi float64) float64 {
	up := f(hi) > f(lo)
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if (f(mid) > logTail) == up {
			hi = mid
		} else {
			lo = mid
		}
	}
	return (lo + hi) / 2
}

// window returns [t_a, t_b]: below t_a, P(N(t) ≥ k) ≤ 1e-17, which bounds 1 − G_i for every i;
// above t_b, G_i(t) ≤ 1e-17 for every i, by the smaller of the times that two bounds give:
// Chernoff's on the count of the other items, whose mean is at least λ − 1, below k, and on the
// number of them not rung, whose mean is at most m − λ, at least m − k.
func (s *successive) window() (ta, tb float64) {
	k, m := float64(s.k), float64(s.m)
	la := solve(func(l float64) float64 { return chernoff(l, k) }, 0, k)
	ta = s.timeOf(la)
	tb = math.Inf(1)
	if lb := 1 + solve(func(mu float64) float64 { return chernoff(mu, k-1) }, k-1, 1e4*(k+40)); lb < m {
		tb = s.timeOf(lb)
	}
	if nu := solve(func(nu float64) float64 { return chernoff(nu, m-k) }, 0, m-k); nu > 0 {
		tb = min(tb, s.timeOf(m-nu))
	}
	return ta, tb
}

// countScratch holds one goroutine's buffers for deficits.
type countScratch struct {
	p, q, light, heavy, full, cdf, dec, binom []float64
}

// stay writes into out, for each distinct weight g, G_g(t) = P(N_{−i}(t) ≤ k − 1) for an item i
// of weight w_g: the probability that fewer than k of the other items have rung by t. When more
// than half the items are drawn it counts the m − k items not drawn instead: N_{−i} ≤ k − 1 when
// the other items not rung by t, Y_{−i} = m − 1 − N_{−i}, are at least m − k, so that G_g =
// 1 − P(Y_{−i} ≤ m − k − 1), Y a count of probabilities e^{−w_j t}.
func (s *successive) stay(t float64, out []float64, b *countScratch) {
	d := len(s.w)
	b.p, b.q = reuse.Grow(b.p, d), reuse.Grow(b.q, d)
	for g, w := range s.w {
		b.q[g] = math.Exp(-w * t)
		b.p[g] = -math.Expm1(-w * t)
	}
	if s.k <= s.m-s.k {
		s.below(s.k, b.p, b.q, out, b)
		return
	}
	s.below(s.m-s.k, b.q, b.p, out, b)
	for g := range out {
		out[g] = 1 - out[g]
	}
}

// below writes into out, for each distinct weight g, P(X_{−i} ≤ k − 1), X the number of
// successes of independent Bernoulli trials of probability p_g (q_g = 1 − p_g, computed apart)
// for the n_g items of each weight, and X_{−i} the same without one item of weight g.
func (s *successive) below(k int, p, q, out []float64, b *countScratch) {
	heavyItems := 0
	for g := range s.w {
		if p[g] > 0.5 {
			heavyItems += s.n[g]
		}
	}
	// The count of the light items (p ≤ 1/2), truncated at k − 1; the heavy ones', in full.
	light := reuse.Grow(b.light, k)
	clear(light)
	light[0] = 1
	heavy := reuse.Grow(b.heavy, heavyItems+1)
	clear(heavy)
	heavy[0] = 1
	top := 0 // the heavy count's largest value so far
	for g := range s.w {
		n := s.n[g]
		switch {
		case p[g] == 0:
		case p[g] <= 0.5:
			b.binom = reuse.Grow(b.binom, min(n, k-1)+1)
			binomial(b.binom, n, p[g], q[g], false)
			convolve(light, b.binom)
		default:
			b.binom = reuse.Grow(b.binom, n+1)
			binomial(b.binom, n, q[g], p[g], true)
			top += n
			convolve(heavy[:top+1], b.binom)
		}
	}
	b.light, b.heavy = light, heavy
	// The whole count, truncated, and the light count's cumulative distribution.
	full := reuse.Grow(b.full, k)
	copy(full, light)
	convolve(full, heavy)
	cdf := reuse.Grow(b.cdf, k)
	c := 0.0
	for j, v := range light {
		c += v
		cdf[j] = c
	}
	b.full, b.cdf = full, cdf
	b.dec = reuse.Grow(b.dec, max(k, heavyItems))
	// The light weights, four at a time: full = q·dec + p·dec shifted, so dec(j) =
	// (full(j) − p·dec(j−1))/q from j = 0, a chain of dependent steps that the four interleave.
	var lights []int
	for g := range s.w {
		if p[g] <= 0.5 {
			lights = append(lights, g)
		}
	}
	for len(lights) > 0 {
		var gs [4]int
		var pg, iq, prev, sum [4]float64
		n := copy(gs[:], lights)
		lights = lights[n:]
		for u := range n {
			pg[u], iq[u] = p[gs[u]], 1/q[gs[u]]
		}
		for _, f := range full {
			for u := range 4 {
				prev[u] = (f - pg[u]*prev[u]) * iq[u]
				sum[u] += prev[u]
			}
		}
		for u := range n {
			out[gs[u]] = min(1, max(0, sum[u]))
		}
	}
	// The heavy weights: heavy = q·dec + p·dec shifted, so dec(j−1) = (heavy(j) − q·dec(j))/p
	// from the top; then P(X_{−i} ≤ k − 1) = Σ_a dec(a)·P(light ≤ k − 1 − a).
	dec := b.dec[:heavyItems]
	for g := range s.w {
		if p[g] <= 0.5 {
			continue
		}
		qg, ip := q[g], 1/p[g]
		next := 0.0
		for j := heavyItems; j >= 1; j-- {
			next = (heavy[j] - qg*next) * ip
			dec[j-1] = next
		}
		below := 0.0
		for a := range min(heavyItems, k) {
			below += dec[a] * cdf[k-1-a]
		}
		out[g] = min(1, max(0, below))
	}
}

// convolve replaces f by its convolution with c, truncated to f's length.
func convolve(f, c []float64) {
	if len(c) == 2 { // one Bernoulli factor
		q, p := c[0], c[1]
		for j := len(f) - 1; j >= 1; j-- {
			f[j] = q*f[j] + p*f[j-1]
		}
		f[0] *= q
		return
	}
	for j := len(f) - 1; j >= 0; j-- {
		v := 0.0
		for a, ca := range c[:min(j+1, len(c))] {
			v += ca * f[j-a]
		}
		f[j] = v
	}
}

// binomial writes P(X = j), X ~ Binomial(n, p), for j = 0 … len(out)−1 (0 beyond n), given
// p ≤ 1/2 and q = 1 − p computed apart; reversed, it writes P(X = n − j) (the pmf of n − X, a
// binomial of probability q), which needs len(out) = n + 1. The recurrence P(j+1)/P(j) =
// (n − j)/(j + 1)·p/q starts from P(0) = q^n on a separate scale e^L, so that q^n may underflow
// where the terms near the mean do not.
func binomial(out []float64, n int, p, q float64, reversed bool) {
	r := p / q
	logScale := float64(n) * math.Log(q)
	scale := math.Exp(logScale)
	v := 1.0
	for j := range out {
		var pj float64
		switch {
		case j > n:
		case logScale > -700:
			pj = v * scale
		default:
			pj = math.Exp(logScale + math.Log(v))
		}
		if reversed {
			out[len(out)-1-j] = pj
		} else {
			out[j] = pj
		}
		v *= float64(n-j) / float64(j+1) * r
		if v > 1e150 {
			v *= 1e-150
			logScale += 150 * math.Ln10
			scale = math.Exp(logScale)
		}
	}
}
