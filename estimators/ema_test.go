package estimators

// Monte-Carlo checks of Proposition 4.1 of Yi et al. and of docs/streaming-estimator.md §2-4:
// many independent streaming estimators, each fed i.i.d.
// geometric inter-arrival gaps Δ (an item present at each step with probability p: E[Δ] = δ = 1/p,
// Var(Δ) = σ² = (1-p)/p²), through the package's own Observe.

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/samplingbias/workbench/losses"
)

// replicas are R single-item streaming estimators with δ0 = M/B = 100 (init uniform) and the
// step each has reached.
type replicas struct {
	sk []*sketch
	t  []int64
}

func newReplicas(t *testing.T, r int, alpha float64) *replicas {
	s := Settings{Alpha: alpha, Buckets: 1}
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	rep := &replicas{sk: make([]*sketch, r), t: make([]int64, r)}
	for i := range rep.sk {
		c, err := newSketchConfig(s, Env{BatchSize: 10, CorpusSize: 1000}, int64(i))
		if err != nil {
			t.Fatal(err)
		}
		rep.sk[i] = newSketch(c)
	}
	return rep
}

// geometric is a Geometric(p) draw on {1, 2, ...}.
func geometric(rng *rand.Rand, p float64) int64 {
	return 1 + int64(math.Floor(math.Log(1-rng.Float64())/math.Log1p(-p)))
}

// advance feeds every replica n arrivals with gaps Geometric(p).
func (r *replicas) advance(rng *rand.Rand, n int, p float64) {
	item := []uint64{0}
	for i, s := range r.sk {
		for range n {
			r.t[i] += geometric(rng, p)
			s.Observe(r.t[i], item)
		}
	}
}

// moments are the sample mean, variance and fourth central moment of the replicas' δ.
func (r *replicas) moments() (mean, variance, m4 float64) {
	n := float64(len(r.sk))
	for _, s := range r.sk {
		mean += float64(s.cells[0].gap)
	}
	mean /= n
	for _, s := range r.sk {
		d := float64(s.cells[0].gap) - mean
		variance += d * d
		m4 += d * d * d * d
	}
	return mean, variance / (n - 1), m4 / n
}

// emaVar is Var(δ_n) after n i.i.d. gaps of variance sigma2 (docs/streaming-estimator.md §3):
// α σ²/(2-α) · (1 - (1-α)^(2n)).
func emaVar(alpha, sigma2 float64, n int) float64 {
	return alpha * sigma2 / (2 - alpha) * (1 - math.Pow(1-alpha, float64(2*n)))
}

func TestEMAMean(t *testing.T) {
	const (
		r     = 20000
		alpha = 0.05
		p     = 0.1
		delta = 1 / p
		d0    = 100.0
	)
	sigma2 := (1 - p) / (p * p)
	rep := newReplicas(t, r, alpha)
	rng := rand.New(rand.NewPCG(1, 2))
	done := 0
	for _, n := range []int{1, 5, 20, 60, 200} {
		rep.advance(rng, n-done, p)
		done = n
		mean, _, _ := rep.moments()
		a := math.Pow(1-alpha, float64(n))
		want := a*d0 + delta*(1-a)
		se := math.Sqrt(emaVar(alpha, sigma2, n) / r)
		if math.Abs(mean-want) > 4*se {
			t.Errorf("after %d updates: mean δ = %.4f, want (1-α)^t δ0 + δ(1-(1-α)^t) = %.4f ± 4·%.4f", n, mean, want, se)
		}
	}
}

func TestEMASteadyStateVariance(t *testing.T) {
	for _, c := range []struct {
		alpha float64
		r, n  int
	}{
		{0.02, 8000, 1000}, // (1-α)^(2n) ≈ 3e-18
		{0.2, 20000, 100},  // ≈ 4e-20
	} {
		const p = 0.1
		sigma2 := (1 - p) / (p * p)
		rep := newReplicas(t, c.r, c.alpha)
		rep.advance(rand.New(rand.NewPCG(3, 4)), c.n, p)
		mean, v, m4 := rep.moments()
		want := c.alpha * sigma2 / (2 - c.alpha)
		se := math.Sqrt((m4 - v*v) / float64(c.r))
		if math.Abs(v-want) > 4*se {
			t.Errorf("α = %v: steady-state Var(δ) = %.4f, want α σ²/(2-α) = %.4f ± 4·%.4f", c.alpha, v, want, se)
		}
		// The steady state is unbiased.
		if sm := math.Sqrt(v / float64(c.r)); math.Abs(mean-1/p) > 4*sm {
			t.Errorf("α = %v: steady-state mean δ = %.4f, want %v ± 4·%.4f", c.alpha, mean, 1/p, sm)
		}
	}
}

func TestEMAHalfLife(t *testing.T) {
	for _, alpha := range []float64{0.05, 0.1} {
		const (
			r      = 4000
			p1, p2 = 0.1, 0.02
		)
		rep := newReplicas(t, r, alpha)
		rng := rand.New(rand.NewPCG(5, 6))
		rep.advance(rng, int(40/alpha), p1) // steady at δ1 = 10
		from, _, _ := rep.moments()
		to := 1 / p2
		half := -1
		for k := 1; k <= 100 && half < 0; k++ {
			rep.advance(rng, 1, p2)
			if mean, _, _ := rep.moments(); mean-from >= (to-from)/2 {
				half = k
			}
		}
		// The first k with (1-α)^k <= 1/2; with these sizes the mean at k-1 and k is at least 4
		// standard errors from the midpoint.
		want := int(math.Ceil(math.Ln2 / -math.Log1p(-alpha)))
		if half != want {
			t.Errorf("α = %v: the mean δ crossed half-way after %d updates, want ⌈ln 2/|ln(1-α)|⌉ = %d (ln 2/α = %.2f)", alpha, half, want, math.Ln2/alpha)
		}
	}
}

// TestEMANoFloat32Floor: an item seen at every step (a head item with B·q ≫ 1) feeds gaps of 1,
// so B − 1 = (1−α)^n (B0 − 1) after n arrivals. With B kept in float32 the update stalled at
// B − 1 ≈ 2^-24/α (4.8e-7 for α = 0.1: the float32 recurrence below shows it), which capped the
// per-draw q̂ inverted from p̂ = 1/B near ln(1/4.8e-7)/B ≈ 14.5/B (batch size B = 1024). The float64
// B follows the closed form to 1e-6 relative down to B − 1 = 1e-10 (n = 262), where
// q̂·B ≈ ln(1/(B−1)) ≈ 23. (The EMA of gaps that are all 1 says only that the item is in every
// batch: that q̂ keeps growing with n is why loss.q_source defaults to the exact counts.)
func TestEMANoFloat32Floor(t *testing.T) {
	const (
		alpha = 0.1
		batch = 1024
		n     = 262
	)
	e, err := New(Settings{Alpha: alpha, Buckets: 1}, Env{BatchSize: batch, CorpusSize: 100 * batch}, 1)
	if err != nil {
		t.Fatal(err)
	}
	b32 := float32(100) // the former float32 recurrence, for comparison
	for step := int64(1); step <= n; step++ {
		e.Observe(step, []uint64{0}) // the first arrival, at step 1 after A = 0, is a gap of 1 too
		b32 += float32(alpha) * (1 - b32)
	}
	want := math.Pow(1-alpha, n) * 99 // B − 1 after n gaps of 1 from B0 = M/B = 100
	got := e.(*sketch).cells[0].gap - 1
	if math.Abs(got-want) > 1e-6*want {
		t.Errorf("B − 1 after %d arrivals = %.6g, want (1−α)^n·99 = %.6g", n, got, want)
	}
	if stall := float64(b32) - 1; stall < 4e-7 {
		t.Errorf("float32 B − 1 = %g: the float32 floor this test guards against is not reproduced", stall)
	}
	p := e.Prob(0)
	q := losses.DrawProb(p, batch)
	// q = 1 − (1 − p)^{1/B} with 1 − p = ε/(1+ε), ε = B − 1: q·B ≈ ln(1/ε) ≈ 23.
	wantQ := -math.Expm1((math.Log(want) - math.Log1p(want)) / batch)
	if math.Abs(q-wantQ) > 1e-5*wantQ || q*batch < 20 {
		t.Errorf("q̂·B = %.4f, want %.4f (the float32 floor capped it near 14)", q*batch, wantQ*batch)
	}
}
