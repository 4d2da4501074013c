package losses

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
)

// inBatchMC is the in-batch Monte-Carlo setting of the logQ consistency test:
// one query whose logits over a corpus of L items are f, and a skewed data
// distribution q from which the B positives of a batch (and so every row's
// in-batch negatives) are drawn i.i.d.; the head items have B·q > 1 and fill
// several columns of a batch.
type inBatchMC struct {
	L    int
	f, q []float64
	lse  float64 // log Σ_y e^{f_y}
}

func newInBatchMC(seed uint64, L int) *inBatchMC {
	rng := rand.New(rand.NewPCG(seed, 13))
	mc := &inBatchMC{L: L, f: make([]float64, L), q: zipf(L, 1.1)}
	for k := range mc.f {
		mc.f[k] = rng.NormFloat64()
	}
	mc.lse = refLogSumExp(mc.f)
	return mc
}

// mcMoments accumulates the mean and standard error of a vector statistic.
type mcMoments struct {
	n         int
	sum, sum2 []float64
}

func newMoments(d int) *mcMoments {
	return &mcMoments{sum: make([]float64, d), sum2: make([]float64, d)}
}

func (m *mcMoments) add(x []float64) {
	m.n++
	for k, v := range x {
		m.sum[k] += v
		m.sum2[k] += v * v
	}
}

func (m *mcMoments) mean(k int) float64 { return m.sum[k] / float64(m.n) }

func (m *mcMoments) se(k int) float64 {
	mu := m.mean(k)
	return math.Sqrt(math.Max(m.sum2[k]/float64(m.n)-mu*mu, 0) / float64(m.n-1))
}

// run draws R batches of b positives and returns the moments of the error of
// the sampled estimate against the full softmax over the L items: entry k < L
// is ∂L_sampled/∂f_k − ∂L_full/∂f_k (the gradient with respect to item k's
// logit, summed over its columns), entry L is the loss error L_sampled −
// L_full − κ, where κ = (1/B)·Σ_i log((B−1)·q_{y_i}) for expected_count (the
// constant, independent of f, by which that form's loss is shifted) and 0 for
// the other forms. Both losses are means over the B rows; all rows share the
// query, so row i is the example (x, y_i).
func (mc *inBatchMC) run(t *testing.T, prob LogQProbability, im Impl, b, R int, rng *rand.Rand) *mcMoments {
	t.Helper()
	s := Settings{Variant: VariantLogQ, Temperature: 1, LogQProbability: prob, Impl: im}
	l := mustNew(t, s, tensor.Float64)
	st := stepOf(inBatchG, make([]int64, b), make([]int64, b), sides{LogP: make([]float64, b), LogQ: make([]float64, b),
		PosLogP: make([]float64, b), PosLogQ: make([]float64, b)})
	h := newHarness(t, l, st, b, b, true)
	S := make([]float64, b*b)
	err := make([]float64, mc.L+1)
	mom := newMoments(mc.L + 1)
	soft := make([]float64, mc.L)
	for k := range soft {
		soft[k] = math.Exp(mc.f[k] - mc.lse)
	}
	for range R {
		full, kappa := 0.0, 0.0
		clear(err)
		for i := range b {
			y := draw(rng, mc.q)
			st.RowItem[i], st.ColItem[i] = int64(y), int64(y)
			qCol(st)[i] = math.Log(mc.q[y])
			pCol(st)[i] = math.Log(InclusionProb(mc.q[y], b))
			full += (mc.lse - mc.f[y]) / float64(b)
			kappa += math.Log(float64(b-1)*mc.q[y]) / float64(b)
			err[y] += 1 / float64(b) // −∂L_full/∂f_y of row i: the one-hot term
		}
		copy(qPos(st), qCol(st))
		copy(pPos(st), pCol(st))
		for k := range soft {
			err[k] -= soft[k] // −∂L_full/∂f: the mean of softmax(f) − e_{y_i} over the rows
		}
		for i := range b {
			for j := range b {
				S[i*b+j] = mc.f[st.ColItem[j]]
			}
		}
		v, g, e := h.run(S)
		if e != nil {
			t.Fatal(e)
		}
		for i := range b {
			for j := range b {
				err[st.ColItem[j]] += g[i*b+j]
			}
		}
		if prob != LogQProbabilityExpectedCount {
			kappa = 0
		}
		err[mc.L] = v - full - kappa
		mom.add(err)
	}
	return mom
}

// TestLogQConsistency is the Monte-Carlo statement behind the default of
// logq_probability: in-batch batches of B positives drawn from a skewed q over
// 30 items (the head item has q ≈ 0.25, so B·q ≈ 4 to 64 copies per batch);
// the mean sampled loss and gradient of each form against the full softmax as
// B grows from 16 to 256 (R = 400 batches each; an intermediate B = 64 gives
// gradient errors 0.014, 0.0072 and 0.059 in the order below).
//
// The tolerances come from the Monte-Carlo standard errors se of the means:
// 4.5·se for the largest of the 30 gradient entries (a normal mean beyond
// 4.5·se has probability 7e-6, 2e-4 over 30 entries). The fused kernel and
// the expression are each run on the same batches.
//
//   - expected_count (Q = (B−1)·q) and dedupe (Horvitz–Thompson over the
//     distinct items, Q = p̂) are consistent: their mean gradient error at
//     B = 256 is within 4.5·se of zero and at most a quarter of the one at
//     B = 16, and their loss error (expected_count's net of its constant κ)
//     at B = 256 is within a quarter of the B = 16 one plus 4·se.
//     Measured (B = 16 → 256): gradient 0.031 → 0.0023 (se 0.0015) and
//     0.028 → 0.0007 (se 0.0005); loss −0.049 → 0.0094 (se 0.0054) and
//     −0.74 → −0.016 (se 0.0028).
//   - inclusion (Q = p̂ = 1 − (1 − q)^B, Yi et al.'s Algorithm 2) is not:
//     every copy of a saturated head item is corrected as if it were the only
//     one, so its gradient converges to that of a popularity-weighted softmax.
//     Its gradient error at B = 256 is more than 20·se from zero and larger
//     than at B = 16, and its loss error grows. Measured: gradient
//     0.035 → 0.081 (se 0.0016); loss −0.54 → 1.81 (se 0.0035).
func TestLogQConsistency(t *testing.T) {
	mc := newInBatchMC(1, 30)
	const R = 400
	maxErr := func(m *mcMoments) (worst, se float64, k int) {
		for j := 0; j < mc.L; j++ {
			if a := math.Abs(m.mean(j)); a > worst {
				worst, se, k = a, m.se(j), j
			}
		}
		return worst, se, k
	}
	for _, im := range []Impl{ImplFused, ImplExpression} {
		for _, prob := range []LogQProbability{LogQProbabilityExpectedCount, LogQProbabilityDedupe, LogQProbabilityInclusion} {
			rng := rand.New(rand.NewPCG(2, 3))
			var grad, loss []float64
			var gradSE, lossSE float64
			for _, b := range []int{16, 256} {
				mom := mc.run(t, prob, im, b, R, rng)
				worst, se, k := maxErr(mom)
				grad, loss = append(grad, worst), append(loss, math.Abs(mom.mean(mc.L)))
				gradSE, lossSE = se, mom.se(mc.L)
				t.Logf("%s %s B=%d: gradient: max |mean error| %.4f at item %d (se %.4f); loss: mean error %.4f (se %.4f)",
					im, prob, b, worst, k, se, mom.mean(mc.L), mom.se(mc.L))
			}
			if prob == LogQProbabilityInclusion {
				if grad[1] < 20*gradSE || grad[1] <= grad[0] {
					t.Errorf("%s: inclusion converges: gradient error %.4f at B=16, %.4f (se %.4f) at B=256", im, grad[0], grad[1], gradSE)
				}
				if loss[1] <= loss[0] {
					t.Errorf("%s: inclusion converges: loss error %.4f at B=16, %.4f at B=256", im, loss[0], loss[1])
				}
				continue
			}
			if grad[1] > 4.5*gradSE || grad[1] > grad[0]/4 {
				t.Errorf("%s %s: gradient error %.4f at B=16, %.4f (se %.4f) at B=256: not consistent", im, prob, grad[0], grad[1], gradSE)
			}
			if loss[1] > loss[0]/4+4*lossSE {
				t.Errorf("%s %s: loss error %.4f at B=16, %.4f (se %.4f) at B=256: not consistent", im, prob, loss[0], loss[1], lossSE)
			}
		}
	}
}

// bigLogOnePlus is log(1 + x) of a small x ≥ 0 to about 60 digits: x is
// exact in a 200-bit big.Float and the series Σ (−1)^{k+1} x^k/k converges
// fast for x < 1e-3.
func bigLogOnePlus(x *big.Float) float64 {
	sum := new(big.Float).SetPrec(200)
	term := new(big.Float).SetPrec(200).SetInt64(1)
	for k := 1; k <= 40; k++ {
		term.Mul(term, x)
		d := new(big.Float).SetPrec(200).Quo(term, big.NewFloat(float64(k)))
		if k%2 == 0 {
			d.Neg(d)
		}
		sum.Add(sum, d)
	}
	v, _ := sum.Float64()
	return v
}

// bigExp is e^x for x ≤ 0 of moderate size, to about 60 digits (Taylor series
// of e^{x/2^k}, squared k times).
func bigExp(x float64) *big.Float {
	const k = 16
	r := new(big.Float).SetPrec(200).SetFloat64(x / (1 << k))
	sum := new(big.Float).SetPrec(200).SetInt64(1)
	term := new(big.Float).SetPrec(200).SetInt64(1)
	for n := 1; n <= 30; n++ {
		term.Mul(term, r)
		term.Quo(term, big.NewFloat(float64(n)))
		sum.Add(sum, term)
	}
	for range k {
		sum.Mul(sum, sum)
	}
	return sum
}

// TestNearZeroLoss: a row whose positive dominates has the loss
// log(1 + Σ_{j≠p} w_j e^{f_j − f_p}), tiny; it is computed with log1p, to a
// relative error of 1e-13 against a 200-bit big.Float reference, for true
// losses down to 1e-18 (which log(sum) would round to 0) — for plain, logq in
// each probability form and the Rawat weightings, by the fused kernel and by
// the expression (SoftmaxLoss).
func TestNearZeroLoss(t *testing.T) {
	for _, gap := range []float64{41.4465316738928, 23.2, 60} { // row-0 losses ≈ 1e-18, 8e-11, 9e-27
		for _, s := range []Settings{{}, {Variant: VariantLogQ, LogQProbability: LogQProbabilityInclusion}, {Variant: VariantLogQ},
			{Variant: VariantLogQ, LogQProbability: LogQProbabilityDedupe}, {Variant: VariantImportance}, {Variant: VariantRelative},
			{Impl: ImplExpression}, {Variant: VariantLogQ, LogQProbability: LogQProbabilityInclusion, Impl: ImplExpression},
			{Variant: VariantLogQ, Impl: ImplExpression}, {Variant: VariantLogQ, LogQProbability: LogQProbabilityDedupe, Impl: ImplExpression},
			{Variant: VariantImportance, Impl: ImplExpression}, {Variant: VariantRelative, Impl: ImplExpression}} {
			s.Temperature, s.Reduction = 1, ReductionSum
			l := mustNew(t, s, tensor.Float64)
			const b = 3
			logP := []float64{math.Log(0.5), math.Log(0.25), math.Log(0.125)}
			logQ := []float64{math.Log(0.2), math.Log(0.1), math.Log(0.05)}
			st := stepOf(inBatchG, []int64{0, 1, 2}, []int64{0, 1, 2}, sides{LogP: logP, PosLogP: logP, LogQ: logQ, PosLogQ: logQ})
			// Row 0: positive score 0, negatives −gap and −gap−1; rows 1 and 2
			// positive-dominated alike. Every row's loss is log(1 + Σ a_j).
			S := []float64{0, -gap, -gap - 1, -gap, 0, -gap - 2, -gap - 1, -gap, 0}
			got, _ := mustRun(t, l, st, b, b, false, S)
			want := 0.0
			for i := range b {
				// a_j = e^{z_j − z_p} with the corrected logits of the reference.
				x := new(big.Float).SetPrec(200)
				for _, j := range refNegatives(&l.s, st, i, b) {
					var lw float64 // log of column j's weight relative to the positive
					switch {
					case isRawat(s.Variant):
						lw = math.Log(refWeight(&l.s, st, i, j, b))
					case s.Variant == VariantLogQ:
						lw = -refLogQ(&l.s, st, i, j, b, false) + refLogQ(&l.s, st, i, i, b, true)
					}
					// e^{s_j − s_p + lw}: the scores are exact, lw is a float64.
					x.Add(x, new(big.Float).SetPrec(200).Mul(bigExp(S[i*b+j]-S[i*b+i]), bigExp(lw)))
				}
				want += bigLogOnePlus(x)
			}
			if math.Abs(got-want) > 1e-13*want {
				t.Errorf("%s gap %v: loss %.17g, want %.17g (rel err %.2g)", name(tcase{l.s, l.g}), gap, got, want, math.Abs(got-want)/want)
			}
		}
	}
}

// TestExpectedCountIsRelative: logq with logq_probability = expected_count
// subtracts log(m·q_j) from every logit, the positive's included; subtracting
// the row constant −log(m·q_p) leaves f_p for the positive and f_j − log q_j +
// log q_p for the negatives, the relative weighting of Rawat et al. (Table 1,
// Remark 4). So the two losses and gradients agree (to rounding, 1e-13) when
// q comes from the same step: for every sampler, both placements of the
// correction (the Rawat weightings honour correct_at too) and with or without
// accidental-hit removal, by the fused kernels and by the expressions. (Inclusion differs
// from both but under the uniform sampler, where p̂ ∝ q, and with padding, whose few valid rows
// may hold one item.)
func TestExpectedCountIsRelative(t *testing.T) {
	gen := newCaseGen(11, 9)
	for _, im := range []Impl{ImplFused, ImplExpression} {
		for _, geo := range []candidates.Geometry{inBatchG, uniformG, mixedG, paddedG} {
			for _, at := range []CorrectAt{CorrectAtLogits, CorrectAtScores} {
				for _, hits := range []bool{false, true} {
					expectedCountIsRelative(t, gen, im, geo, at, hits)
				}
			}
		}
	}
}

func expectedCountIsRelative(t *testing.T, gen *caseGen, im Impl, geo candidates.Geometry, at CorrectAt, hits bool) {
	t.Helper()
	what := fmt.Sprintf("%s %s hits=%v %s", geo.Sampler, at, hits, im)
	logq := tcase{Settings{Variant: VariantLogQ, CorrectAt: at,
		RemoveAccidentalHits: hits, Temperature: 0.3, Impl: im}, geo}.newLoss(t, tensor.Float64)
	rel := tcase{Settings{Variant: VariantRelative, CorrectAt: at,
		RemoveAccidentalHits: hits, Temperature: 0.3, Impl: im}, geo}.newLoss(t, tensor.Float64)
	p := gen.gen(logq.Settings(), logq.Geometry(), 6, false)
	v1, g1 := mustRun(t, logq, p.st, p.b, p.c, true, p.S)
	v2, g2 := mustRun(t, rel, p.st, p.b, p.c, true, p.S)
	checkClose(t, "expected_count logq vs relative "+what, v1, v2, g1, g2, 1e-13)
	// inclusion differs from relative as soon as a column's p̂ ≠ m·q.
	inc := tcase{Settings{Variant: VariantLogQ, CorrectAt: at,
		RemoveAccidentalHits: hits, Temperature: 0.3, LogQProbability: LogQProbabilityInclusion, Impl: im}, geo}.newLoss(t, tensor.Float64)
	v3, _ := mustRun(t, inc, p.st, p.b, p.c, false, p.S)
	if geo.Layout != candidates.First && !geo.Padded && math.Abs(v3-v2) < 1e-6 {
		t.Errorf("%s: inclusion logq %v equals relative %v", what, v3, v2)
	}
}

// TestWithoutReplacementFormsCoincide (docs/samplers.md §6d): m distinct drawn items, each
// declared with its inclusion probability π_j as p and π_j/m as q (uniform_ and
// popularity_without_replacement), make expected_count (Q = m·q = π), inclusion and dedupe
// subtract the same log π; with the accidental hits removed, which dedupe always does, the three
// are one loss, value and gradient. The rows' positives are among the drawn items (hits).
func TestWithoutReplacementFormsCoincide(t *testing.T) {
	gen := newCaseGen(17, 9)
	pi := func(it int64) float64 { return 0.05 + 0.9*float64(it)/float64(gen.L) }
	for _, hits := range []bool{false, true} {
		var p problem
		var v0 float64
		var g0 []float64
		for k, form := range []LogQProbability{LogQProbabilityExpectedCount, LogQProbabilityInclusion, LogQProbabilityDedupe} {
			l := tcase{Settings{Variant: VariantLogQ, LogQProbability: form, RemoveAccidentalHits: hits, Temperature: 0.3}, uniformG}.newLoss(t, tensor.Float64)
			if k == 0 {
				p = gen.gen(l.Settings(), uniformG, 4, false)
				copy(p.st.RowItem, []int64{2, 7, 4, 2})
				copy(p.st.ColItem[1:], []int64{7, 2, 0, 5, 8})
				for j, it := range p.st.ColItem {
					if it < 0 {
						it = p.st.RowItem[0]
					}
					qCol(p.st)[j], pCol(p.st)[j] = math.Log(pi(it)/5), math.Log(pi(it))
				}
				for i, it := range p.st.RowItem {
					qPos(p.st)[i], pPos(p.st)[i] = math.Log(pi(it)/5), math.Log(pi(it))
				}
			}
			v, g := mustRun(t, l, p.st, p.b, p.c, true, p.S)
			what := fmt.Sprintf("%s, hits removed %v", form, hits)
			switch {
			case k == 0:
				v0, g0 = v, g
			case hits || form != LogQProbabilityDedupe:
				checkClose(t, what+" vs expected_count", v, v0, g, g0, 1e-13)
			case math.Abs(v-v0) < 1e-6:
				t.Errorf("%s: dedupe, which removes the hits, equals expected_count with them (%v)", what, v)
			}
		}
	}
}

// TestLogQProbabilityByHand pins the three forms on a batch of three rows whose
// items are (0, 0, 1) (item 0 fills two columns), τ = 1, all scores 0,
// p̂ = (0.5, 0.5, 0.25), q = (0.4, 0.4, 0.2), m = 2, reduction sum:
//   - inclusion: every column, z_j = −log p̂_j = (ln 2, ln 2, ln 4): rows 0
//     and 1 lose log(2 + 2 + 4) − ln 2 = log 4, row 2 log 8 − ln 4 = log 2;
//   - expected_count: Q = m·q = (0.8, 0.8, 0.4), e^z = (1.25, 1.25, 2.5): rows
//     0 and 1 log(5/1.25) = log 4, row 2 log(5/2.5) = log 2 (as inclusion
//     here, since p̂ ∝ q);
//   - dedupe: row 0 keeps columns 0 and 2 (column 1 is a copy of its item):
//     log(1 + e^{ln 4 − ln 2}) = log 3; row 1 keeps
//     its own column 1 and column 2: log 3; row 2 keeps column 0 (the first
//     copy of item 0) and its own column 2, not column 1: log(1 + e^{ln 2 − ln 4}) = log 1.5.
func TestLogQProbabilityByHand(t *testing.T) {
	logs := func(x ...float64) []float64 {
		for k := range x {
			x[k] = math.Log(x[k])
		}
		return x
	}
	st := stepOf(inBatchG, []int64{0, 0, 1}, []int64{0, 0, 1}, sides{LogP: logs(0.5, 0.5, 0.25), PosLogP: logs(0.5, 0.5, 0.25),
		LogQ: logs(0.4, 0.4, 0.2), PosLogQ: logs(0.4, 0.4, 0.2)})
	S := make([]float64, 9)
	for _, tc := range []struct {
		prob LogQProbability
		want float64
	}{
		{LogQProbabilityInclusion, 2*math.Log(4) + math.Log(2)},
		{LogQProbabilityExpectedCount, 2*math.Log(4) + math.Log(2)},
		{LogQProbabilityDedupe, 2*math.Log(3) + math.Log(1.5)},
	} {
		for _, im := range []Impl{ImplFused, ImplExpression} {
			l := mustNew(t, Settings{Variant: VariantLogQ, Temperature: 1, Reduction: ReductionSum, LogQProbability: tc.prob,
				Impl: im}, tensor.Float64)
			got, _ := mustRun(t, l, st, 3, 3, false, S)
			if math.Abs(got-tc.want) > 1e-14*tc.want {
				t.Errorf("%s %s: loss %.17g, want %.17g", tc.prob, im, got, tc.want)
			}
		}
	}
}
