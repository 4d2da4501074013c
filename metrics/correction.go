package metrics

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// CorrectedValues returns Krichene & Rendle's corrected estimate ("On Sampled Metrics for Item
// Recommendation", KDD 2020, §5) of a metric of the full rank from the sampled rank: out[s] is
// the value given to a test pair whose item is ranked s+1 among itself and n sampled negatives,
// in a corpus of m items, for the metric value(r) of the full rank r, which must be 0 beyond
// rank maxRank (Recall@K and NDCG@K: maxRank = K).
//
// Krichene & Rendle model the sampled rank of an item of full rank r as r̃ = 1 + Binomial(n,
// (r−1)/(m−1)): each negative, drawn uniformly from the m − 1 other items, ranks above it with
// probability (r−1)/(m−1). With A[r][s] = P(r̃ = s+1 | r) and every full rank equally likely,
// the values x minimise
//
//	Σ_r (E[x_r̃ | r] − value(r))² + γ·Σ_r Var[x_r̃ | r]  (squared bias + γ·variance),
//
// whose normal equations are ((1−γ)·AᵀA + γ·diag(c))·x = Aᵀb, c_s = Σ_r A[r][s] and
// b_r = value(r); γ = 1 gives the posterior mean of the metric given r̃, x_s = Σ_r A[r][s]·b_r /
// c_s. The sums over the m ranks are computed in the log domain, through the 2n + 1 sums
// Σ_r p^t (1−p)^(2n−t) that AᵀA is made of, so the cost is O(m·n), not O(m·n²). It is an error
// if n ≥ m, γ is not in (0, 1], or the system cannot be solved.
func CorrectedValues(m, n int, gamma float64, value func(r int) float64, maxRank int) ([]float64, error) {
	if n < 1 || n >= m {
		return nil, fmt.Errorf("metrics: corrected estimator: %d negatives of a corpus of %d items: need 1 ≤ n < m", n, m)
	}
	if !(gamma > 0 && gamma <= 1) {
		return nil, fmt.Errorf("metrics: corrected estimator: γ = %v, want it in (0, 1]", gamma)
	}
	lc := logBinomials(n)
	logS := powerSums(m, 2*n) // log Σ_r p^t (1−p)^(2n−t)
	logT := powerSums(m, n)   // log Σ_r p^t (1−p)^(n−t)
	sys := mat.NewSymDense(n+1, nil)
	for i := 0; i <= n; i++ {
		for j := i; j <= n; j++ {
			v := (1 - gamma) * math.Exp(lc[i]+lc[j]+logS[i+j])
			if i == j {
				v += gamma * math.Exp(lc[i]+logT[i])
			}
			sys.SetSym(i, j, v)
		}
	}
	b := mat.NewVecDense(n+1, nil)
	for r := 1; r <= min(maxRank, m); r++ {
		v := value(r)
		if v == 0 {
			continue
		}
		p := float64(r-1) / float64(m-1)
		for s := 0; s <= n; s++ {
			b.SetVec(s, b.AtVec(s)+math.Exp(lc[s]+xlogy(float64(s), p)+xlogy(float64(n-s), 1-p))*v)
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(sys) {
		return nil, fmt.Errorf("metrics: corrected estimator: the system of %d negatives over %d items with γ = %v is not positive definite", n, m, gamma)
	}
	x := mat.NewVecDense(n+1, nil)
	if err := chol.SolveVecTo(x, b); err != nil {
		return nil, fmt.Errorf("metrics: corrected estimator: %w", err)
	}
	out := make([]float64, n+1)
	for s := range out {
		out[s] = x.AtVec(s)
	}
	return out, nil
}

// logBinomials returns ln C(n, s) for s = 0..n.
func logBinomials(n int) []float64 {
	out := make([]float64, n+1)
	ln, _ := math.Lgamma(float64(n + 1))
	for s := range out {
		a, _ := math.Lgamma(float64(s + 1))
		b, _ := math.Lgamma(float64(n - s + 1))
		out[s] = ln - a - b
	}
	return out
}

// xlogy is x·ln y with 0·ln 0 = 0.
func xlogy(x, y float64) float64 {
	if x == 0 {
		return 0
	}
	return x * math.Log(y)
}

// powerSums returns, for t = 0..deg, ln Σ_{r=1..m} p_r^t (1−p_r)^(deg−t) with p_r = (r−1)/(m−1).
//
// Each term is exp(g_t(p)) with g_t(p) = t·ln p + (deg−t)·ln(1−p), at most exp(g*_t), g*_t =
// g_t(t/deg): g_t(p) − g*_t = −deg·KL(t/deg ‖ p), the Kullback–Leibler divergence of two
// Bernoulli laws. The sum is accumulated as exp(g*_t)·Σ_r e_t(r), e_t(r) = exp(g_t(p_r) − g*_t)
// ≤ 1, which neither overflows nor underflows where it matters: for each r, e_t(r) is computed
// once at t = round(deg·p_r), where it is near 1, and from there, as it decreases on either side,
// by the ratio e_{t+1}/e_t = p/(1−p)·exp(g*_t − g*_{t+1}), until it falls below 1e-250.
func powerSums(m, deg int) []float64 {
	gs := make([]float64, deg+1)
	for t := range gs {
		q := float64(t) / float64(deg)
		gs[t] = xlogy(float64(t), q) + xlogy(float64(deg-t), 1-q)
	}
	rho := make([]float64, deg) // exp(g*_t − g*_{t+1})
	for t := range rho {
		rho[t] = math.Exp(gs[t] - gs[t+1])
	}
	sums := make([]float64, deg+1)
	const tiny = 1e-250
	for r := 1; r <= m; r++ {
		p := float64(r-1) / float64(m-1)
		switch r {
		case 1:
			sums[0]++ // p = 0: only t = 0, e = 1
			continue
		case m:
			sums[deg]++ // p = 1: only t = deg
			continue
		}
		t0 := int(math.Round(float64(deg) * p))
		e0 := math.Exp(xlogy(float64(t0), p) + xlogy(float64(deg-t0), 1-p) - gs[t0])
		odds := p / (1 - p)
		e := e0
		for t := t0; t <= deg && e >= tiny; t++ {
			sums[t] += e
			if t < deg {
				e *= odds * rho[t]
			}
		}
		e = e0
		for t := t0 - 1; t >= 0; t-- {
			e /= odds * rho[t]
			if e < tiny {
				break
			}
			sums[t] += e
		}
	}
	out := make([]float64, deg+1)
	for t, s := range sums {
		out[t] = gs[t] + math.Log(s)
	}
	return out
}
