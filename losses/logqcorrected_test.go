package losses

import (
	"fmt"
	"math"
	"testing"

	"gorgonia.org/tensor"
)

// TestLogQCorrectedFiniteDifferences: the gradient of logq_corrected is that
// of Σ_i r_i·w_i·ℓ_i with the row weights w_i = 1 − P̂_i held at their value
// (the stop-gradient of Khrylchenko et al.): central differences of the
// reference loss with w frozen, for every sampler and option.
func TestLogQCorrectedFiniteDifferences(t *testing.T) {
	gen := newCaseGen(5, 9)
	for _, s := range allSettings(t) {
		if s.Variant != VariantLogQCorrected {
			continue
		}
		l := mustNew(t, s, tensor.Float64)
		p := gen.gen(l.Settings(), l.Layout(), 4, false)
		_, g := mustRun(t, l, p.st, p.b, p.c, true, p.S)
		frozen := logqCorrectedWeights(&p.s, p.st, p.S, p.b, p.c)
		const eps = 1e-5
		x := append([]float64(nil), p.S...)
		fd := make([]float64, len(x))
		for k := range x {
			x[k] = p.S[k] + eps
			up := logqCorrectedFrozen(&p.s, p.st, x, p.b, p.c, frozen)
			x[k] = p.S[k] - eps
			down := logqCorrectedFrozen(&p.s, p.st, x, p.b, p.c, frozen)
			x[k] = p.S[k]
			fd[k] = (up - down) / (2 * eps)
		}
		scale := maxAbs(fd)
		if scale == 0 {
			t.Fatalf("%s: zero gradient", name(s))
		}
		for k := range fd {
			if math.Abs(g[k]-fd[k]) > 1e-7*scale {
				t.Errorf("%s: grad[%d] = %.12g, central difference %.12g", name(s), k, g[k], fd[k])
				break
			}
		}
	}
}

// logqCorrectedWeights are the row weights w_i = 1 − P̂_i at S, from the reference.
func logqCorrectedWeights(s *Settings, st *Step, S []float64, b, c int) []float64 {
	w := make([]float64, b)
	for i := range b {
		w[i] = refLogQCorrectedRow(s, st, S[i*c:(i+1)*c], i, c).w
	}
	return w
}

// logqCorrectedFrozen is scale·Σ_i r_i·w_i·ℓ_i(S) with the weights w given.
func logqCorrectedFrozen(s *Settings, st *Step, S []float64, b, c int, w []float64) float64 {
	scale := 1.0
	if s.Reduction == ReductionMean {
		scale = 1 / float64(b)
	}
	total := 0.0
	for i := range b {
		r := 1.0
		if st.Rewards != nil {
			r = st.Rewards[i]
		}
		total += scale * r * w[i] * refLogQCorrectedRow(s, st, S[i*c:(i+1)*c], i, c).loss
	}
	return total
}

// TestLogQCorrectedIsFullSoftmax: with a uniform proposal and every other item
// of a corpus of L items used exactly once as a negative (in-batch, the batch
// is the corpus), Q'(j) = (1/L)/(1 − 1/L) = 1/(L−1) = 1/k', so that
// (1/k')Σ_j e^{ŝ_j} = Σ_{j≠p} e^{f_j}: P̂ is the full-softmax probability of
// the positive, and w·∂ℓ is the full-softmax gradient (1 − P̂)·(softmax over
// the negatives) = softmax_j, −(1 − P̂) at the positive (Khrylchenko et al.).
// With correct_at = scores τ divides the correction too, so that the identity
// holds there for τ = 1 only.
func TestLogQCorrectedIsFullSoftmax(t *testing.T) {
	const L = 7
	gen := newCaseGen(6, L)
	for _, tc := range []struct {
		at  CorrectAt
		tau float64
	}{{CorrectAtLogits, 0.5}, {CorrectAtScores, 1}} {
		at, tau := tc.at, tc.tau
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			s := Settings{Variant: VariantLogQCorrected, Temperature: tau, CorrectAt: at}
			l := mustNew(t, s, dt)
			p := gen.gen(l.Settings(), l.Layout(), L, false)
			st := p.st
			for i := range L {
				st.RowItem[i], st.ColItem[i] = int64(i), int64(i)
				st.LogQ[i], st.PosLogQ[i] = -math.Log(L), -math.Log(L)
			}
			st.Rewards = nil
			S := p.S
			if dt == tensor.Float32 {
				S = round32(S)
			}
			got, g := mustRun(t, l, st, L, L, true, p.S)
			full := mustNew(t, Settings{Variant: VariantPlain, Temperature: tau}, tensor.Float64)
			_, gFull := mustRun(t, full, st, L, L, true, S)
			tol := 1e-12
			if dt == tensor.Float32 {
				tol = 1e-5
			}
			what := fmt.Sprintf("logq_corrected %s %v", at, dt)
			checkClose(t, what, got, logqCorrectedFrozen(&l.s, st, S, L, L, logqCorrectedWeights(&l.s, st, S, L, L)),
				g, gFull, tol)
			for i := range L {
				row := S[i*L : (i+1)*L]
				f := make([]float64, L)
				for j, v := range row {
					f[j] = v / tau
				}
				pFull := math.Exp(f[i] - refLogSumExp(f))
				pHat := 1 - refLogQCorrectedRow(&l.s, st, S[i*L:(i+1)*L], i, L).w
				if math.Abs(pHat-pFull) > 1e-14 {
					t.Errorf("%s: row %d: P̂ = %.17g, full softmax %.17g", what, i, pHat, pFull)
				}
			}
		}
	}
}
