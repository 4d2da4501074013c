package losses

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
)

// mcProblem is one example (x, y) over L labels with logits f, a skewed
// sampler q (which may draw y: accidental hits are removed, Rawat et al.
// Remark 5) and a label prior π.
type mcProblem struct {
	L     int
	y     int
	f     []float64
	q, pi []float64
}

func newMCProblem(seed uint64, L int) *mcProblem {
	rng := rand.New(rand.NewPCG(seed, 11))
	p := &mcProblem{L: L, y: 5, f: make([]float64, L), q: zipf(L, 1.0), pi: zipf(L, 0.6)}
	rng.Shuffle(L, func(a, b int) { p.pi[a], p.pi[b] = p.pi[b], p.pi[a] })
	for k := range p.f {
		p.f[k] = rng.NormFloat64()
	}
	return p
}

// mcStats returns the Monte-Carlo mean and its standard error of the sampled
// loss s over R independent draws of m negatives from p.q (sampledLoss).
func (p *mcProblem) mcStats(t *testing.T, s Settings, m, R int, rng *rand.Rand) (mean, se float64) {
	t.Helper()
	loss := p.sampledLoss(t, s, m)
	negs := make([]int, m)
	sum, sum2 := 0.0, 0.0
	for range R {
		for k := range negs {
			negs[k] = draw(rng, p.q)
		}
		x := loss(negs)
		sum += x
		sum2 += x * x
	}
	mean = sum / float64(R)
	return mean, math.Sqrt((sum2/float64(R) - mean*mean) / float64(R-1))
}

// sampledLoss returns the sampled loss s of the example with the negatives negs (m labels),
// computed by the loss node's op (layout first, one row, C = 1+m).
func (p *mcProblem) sampledLoss(t *testing.T, s Settings, m int) func(negs []int) float64 {
	t.Helper()
	s.Temperature, s.RemoveAccidentalHits = 1, true
	geo := candidates.Geometry{Sampler: "popularity", Layout: candidates.First, Extra: m}
	l := tcase{s, geo}.newLoss(t, tensor.Float64)
	c := 1 + m
	st := stepOf(geo, []int64{int64(p.y)}, make([]int64, c), sides{LogQ: make([]float64, c), LogPrior: make([]float64, c),
		PosLogQ: []float64{math.Log(p.q[p.y])}, PosLogPrior: []float64{math.Log(p.pi[p.y])}})
	st.ColItem[0] = -1
	h := newHarness(t, l, st, 1, c, false)
	S := make([]float64, c)
	S[0] = p.f[p.y]
	return func(negs []int) float64 {
		for k, it := range negs {
			st.ColItem[k+1] = int64(it)
			qCol(st)[k+1] = math.Log(p.q[it])
			priorCol(st)[k+1] = math.Log(p.pi[it])
			S[k+1] = p.f[it]
		}
		v, err := h.op.Do(dense(tensor.Float64, S, 1, c))
		if err != nil {
			t.Fatal(err)
		}
		return values(v)[0]
	}
}

// rho is ρ_yy' = m·q_y'·w_yy' in closed form (Rawat et al. Table 2; eq. 13-14):
// constant q_y', importance 1, relative m·q_y, tail π_y'/π_y.
func (p *mcProblem) rho(variant Variant, m, y2 int) float64 {
	switch variant {
	case VariantConstant:
		return p.q[y2]
	case VariantImportance:
		return 1
	case VariantRelative:
		return float64(m) * p.q[p.y]
	case VariantTail:
		return p.pi[y2] / p.pi[p.y]
	}
	panic(variant)
}

// implicitSoftmax is Lemma 2's bound log[1 + Σ_{y'≠y} ρ e^{f_y' − f_y}].
func (p *mcProblem) implicitSoftmax(rho func(y2 int) float64) float64 {
	sum := 0.0
	for y2 := range p.L {
		if y2 != p.y {
			sum += rho(y2) * math.Exp(p.f[y2]-p.f[p.y])
		}
	}
	return math.Log1p(sum)
}

// TestImplicitLossSoftmax (Rawat et al. Lemma 2, Theorem 3, Proposition 4):
// with negatives drawn from q, the Monte-Carlo mean of the sampled softmax
// loss (5) is at most the implicit loss log[1 + Σ ρ e^{f_y'−f_y}], ρ = m·q·w
// (Jensen), and the gap shrinks like 1/m, for each weighting.
func TestImplicitLossSoftmax(t *testing.T) {
	p := newMCProblem(1, 40)
	rng := rand.New(rand.NewPCG(2, 3))
	R := 4000
	if testing.Short() {
		R = 2000
	}
	for _, v := range []Variant{VariantConstant, VariantImportance, VariantRelative, VariantTail} {
		var gaps []float64
		for _, m := range []int{4, 32, 256} {
			mean, se := p.mcStats(t, Settings{Variant: v}, m, R, rng)
			implicit := p.implicitSoftmax(func(y2 int) float64 { return p.rho(v, m, y2) })
			t.Logf("%s m=%d: MC mean %.5f ± %.5f, implicit %.5f, gap %.5f", v, m, mean, se, implicit, implicit-mean)
			if mean > implicit+4*se {
				t.Errorf("%s m=%d: MC mean %.5f exceeds the implicit loss %.5f (Jensen bound), se %.5f", v, m, mean, implicit, se)
			}
			gaps = append(gaps, implicit-mean)
			if m == 256 && math.Abs(implicit-mean) > 0.01*implicit+4*se {
				t.Errorf("%s m=256: MC mean %.5f not within 1%% of the implicit loss %.5f", v, mean, implicit)
			}
		}
		if !(gaps[2] < gaps[0]/4) {
			t.Errorf("%s: Jensen gap does not shrink with m: %v", v, gaps)
		}
	}
}

// TestImportanceApproachesFullSoftmax pins the sign of the importance weight
// statistically: with q uniform (1/L), the sampled loss approaches the full
// softmax cross-entropy (ρ = 1), not the wrong-sign loss with ρ = (m·q)².
func TestImportanceApproachesFullSoftmax(t *testing.T) {
	p := newMCProblem(3, 40)
	for k := range p.q {
		p.q[k] = 1 / float64(p.L)
	}
	const m = 256
	mean, se := p.mcStats(t, Settings{Variant: VariantImportance}, m, 2000, rand.New(rand.NewPCG(4, 5)))
	ce := p.implicitSoftmax(func(int) float64 { return 1 })
	mq := float64(m) / float64(p.L)
	wrong := p.implicitSoftmax(func(int) float64 { return mq * mq })
	if math.Abs(mean-ce) > 0.01*ce+4*se {
		t.Errorf("importance, uniform q: MC mean %.5f, full softmax CE %.5f", mean, ce)
	}
	if math.Abs(mean-wrong) < 1 {
		t.Errorf("importance, uniform q: MC mean %.5f is close to the wrong-sign loss %.5f", mean, wrong)
	}
}

// TestImplicitLossDecoupled (Rawat et al. Lemma 1): the decoupled loss (6) is
// linear in the negatives, so its Monte-Carlo mean equals
// φ(f_y) + Σ_{y'≠y} ρ φ(−f_y') exactly, φ(z) = log(1+e^{−z}).
func TestImplicitLossDecoupled(t *testing.T) {
	p := newMCProblem(5, 40)
	rng := rand.New(rand.NewPCG(6, 7))
	phi := func(z float64) float64 { return math.Log1p(math.Exp(-z)) }
	for _, v := range []Variant{VariantConstant, VariantImportance, VariantRelative, VariantTail} {
		for _, m := range []int{4, 64} {
			mean, se := p.mcStats(t, Settings{Variant: v, Form: FormDecoupled}, m, 2000, rng)
			want := phi(p.f[p.y])
			for y2 := range p.L {
				if y2 != p.y {
					want += p.rho(v, m, y2) * phi(-p.f[y2])
				}
			}
			if math.Abs(mean-want) > 4*se {
				t.Errorf("decoupled %s m=%d: MC mean %.5f ± %.5f, expected loss %.5f", v, m, mean, se, want)
			}
		}
	}
}

// TestLemma1Exact (Rawat et al. Lemma 1, eqs. 7 and 8): over every sequence of m negatives drawn
// from q (L^m of them, each with probability Π q), the decoupled loss (6) has the mean
// φ(f_y) + Σ_{y'≠y} ρ φ(−f_y') and the variance Σ_{y'≠y} w ρ φ(−f_y')² − (1/m)(Σ_{y'≠y} ρ φ(−f_y'))²,
// ρ = m·q_y'·w_yy', to rounding (1e-12 of the mean; 1e-9 of the variance, a difference of two
// sums of the size of the squared mean): the weights of each variant, written from Table 1 and eq. 14,
// enter both. q draws the positive too; its copies are removed (Remark 5) and add to neither.
func TestLemma1Exact(t *testing.T) {
	p := newMCProblem(9, 7)
	phi := func(z float64) float64 { return math.Log1p(math.Exp(-z)) }
	for _, v := range []Variant{VariantConstant, VariantImportance, VariantRelative, VariantTail} {
		for _, m := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/m=%d", v, m), func(t *testing.T) {
				loss := p.sampledLoss(t, Settings{Variant: v, Form: FormDecoupled}, m)
				negs := make([]int, m)
				var mean, second float64
				for code := range int(math.Pow(float64(p.L), float64(m))) {
					pr := 1.0
					for k := range negs {
						negs[k] = code % p.L
						code /= p.L
						pr *= p.q[negs[k]]
					}
					x := loss(negs)
					mean += pr * x
					second += pr * x * x
				}
				wantMean, sumW, sumRho := phi(p.f[p.y]), 0.0, 0.0
				for y2 := range p.L {
					if y2 == p.y {
						continue
					}
					rho := p.rho(v, m, y2)
					w := rho / (float64(m) * p.q[y2])
					wantMean += rho * phi(-p.f[y2])
					sumW += w * rho * phi(-p.f[y2]) * phi(-p.f[y2])
					sumRho += rho * phi(-p.f[y2])
				}
				wantVar := sumW - sumRho*sumRho/float64(m)
				if got := second - mean*mean; math.Abs(mean-wantMean) > 1e-12*wantMean || math.Abs(got-wantVar) > 1e-9*wantVar {
					t.Errorf("mean %.15g, variance %.15g; eq. 7 gives %.15g, eq. 8 %.15g", mean, got, wantMean, wantVar)
				}
			})
		}
	}
}

// TestGramianIsUniform: mse_gramian's Gramian term on in-batch columns drawn ∝ q
// (a skewed q over 30 items, B = 32, one query so that S_ij = s(x, y_j)) has the
// expectation λ·(1/M)·Σ_y s(x, y)², Krichene et al.'s Gramian term over the
// whole corpus with uniform weight, within 4 Monte-Carlo standard errors over
// R = 4000 batches; and it is far (more than 10 se) from the popularity-weighted
// λ·Σ_y q_y s(x, y)² that the unweighted column average estimates. Both
// implementations, on the same batches.
func TestGramianIsUniform(t *testing.T) {
	for _, im := range []Impl{ImplFused, ImplExpression} {
		gramianIsUniform(t, im)
	}
}

// gramianIsUniform is TestGramianIsUniform for implementation im.
func gramianIsUniform(t *testing.T, im Impl) {
	const (
		L, b, R = 30, 32, 4000
		lambda  = 0.8
	)
	rng := rand.New(rand.NewPCG(21, 22))
	q := zipf(L, 1.1)
	sc := make([]float64, L)
	uniform, weighted := 0.0, 0.0
	for y := range sc {
		sc[y] = 2 * rng.NormFloat64()
		uniform += lambda * sc[y] * sc[y] / L
		weighted += lambda * q[y] * sc[y] * sc[y]
	}
	l := mustNew(t, Settings{Variant: VariantMSEGramian, GramianWeight: lambda, Impl: im}, tensor.Float64)
	st := stepOf(inBatchG, nil, nil, sides{LogQ: make([]float64, b)})
	st.Items = L
	h := newHarness(t, l, st, b, b, false)
	S := make([]float64, b*b)
	items := make([]int, b)
	sum, sum2 := 0.0, 0.0
	for range R {
		mse := 0.0
		for j := range items {
			items[j] = draw(rng, q)
			qCol(st)[j] = math.Log(q[items[j]])
			d := sc[items[j]] - 1
			mse += d * d / b
		}
		for i := range b {
			for j, y := range items {
				S[i*b+j] = sc[y]
			}
		}
		v, _, err := h.run(S)
		if err != nil {
			t.Fatal(err)
		}
		g := v - mse
		sum += g
		sum2 += g * g
	}
	mean := sum / R
	se := math.Sqrt((sum2/R - mean*mean) / (R - 1))
	if math.Abs(mean-uniform) > 4*se {
		t.Errorf("%s: mean Gramian term %.5f, want the uniform λ·(1/M)·Σ s² = %.5f ± 4·%.5f", im, mean, uniform, se)
	}
	if math.Abs(mean-weighted) < 10*se {
		t.Errorf("%s: mean Gramian term %.5f is within 10 se (%.5f) of the popularity-weighted %.5f: the test cannot tell them apart", im, mean, se, weighted)
	}
	t.Logf("%s: Gramian term: mean %.5f (se %.5f), uniform %.5f, popularity-weighted %.5f", im, mean, se, uniform, weighted)
}
