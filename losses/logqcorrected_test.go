package losses

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
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
		l := s.newLoss(t, tensor.Float64)
		// A padded draw may leave no valid row with a negative, and no gradient: it is drawn again.
		p := gen.gen(l.Settings(), l.Geometry(), 4, false)
		_, g := mustRun(t, l, p.st, p.b, p.c, true, p.S)
		for try := 0; maxAbs(g) == 0 && s.g.Padded && try < 10; try++ {
			p = gen.gen(l.Settings(), l.Geometry(), 4, false)
			_, g = mustRun(t, l, p.st, p.b, p.c, true, p.S)
		}
		frozen := logqCorrectedWeights(&p.s, p.st, p.S, p.b, p.c)
		fd := centralDifferences(func(x []float64) float64 { return logqCorrectedFrozen(&p.s, p.st, x, p.b, p.c, frozen) }, p.S, 1e-5)
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
func logqCorrectedWeights(s *Settings, st *candidates.Step, S []float64, b, c int) []float64 {
	w := make([]float64, b)
	for i := range b {
		w[i] = refLogQCorrectedRow(s, st, S[i*c:(i+1)*c], i, c).w
	}
	return w
}

// logqCorrectedFrozen is scale·Σ_i r_i·w_i·ℓ_i(S) with the weights w given, over the rows that
// are not padding (scale = 1/their number for the mean).
func logqCorrectedFrozen(s *Settings, st *candidates.Step, S []float64, b, c int, w []float64) float64 {
	valid := b
	for i := range b {
		if st.Padding(i) {
			valid--
		}
	}
	scale := 1.0
	if s.Reduction == ReductionMean {
		scale = 1 / float64(valid)
	}
	total := 0.0
	for i := range b {
		if !st.Padding(i) {
			total += scale * reward(st, i) * w[i] * refLogQCorrectedRow(s, st, S[i*c:(i+1)*c], i, c).loss
		}
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
			p := gen.gen(l.Settings(), l.Geometry(), L, false)
			st := p.st
			for i := range L {
				st.RowItem[i], st.ColItem[i] = int64(i), int64(i)
				qCol(st)[i], qPos(st)[i] = -math.Log(L), -math.Log(L)
			}
			st.Set(candidates.Side{Name: candidates.Rewards, Kind: candidates.PerRow}, nil, ones(L))
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

// bigSigmoid is σ(x) = 1/(1 + e^{−x}) in prec-bit arithmetic: e^{|x|} by its
// Taylor series (all terms positive, so no cancellation), summed until a term
// falls below 2^−prec of the sum.
func bigSigmoid(x float64, prec uint) *big.Float {
	a := new(big.Float).SetPrec(prec).SetFloat64(math.Abs(x))
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for n := int64(1); ; n++ {
		term.Mul(term, a)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(n))
		sum.Add(sum, term)
		if term.Sign() == 0 || term.MantExp(nil)-sum.MantExp(nil) < -int(prec) {
			break
		}
	}
	// σ(x) = e^{x}/(e^{x} + 1) for x ≥ 0, 1/(e^{|x|} + 1) for x < 0.
	den := new(big.Float).SetPrec(prec).Add(sum, new(big.Float).SetInt64(1))
	if x >= 0 {
		return den.Quo(sum, den)
	}
	return den.Quo(new(big.Float).SetPrec(prec).SetInt64(1), den)
}

// TestSigmoidUnsaturated: Sigmoid, which gives logq_corrected its row weight
// 1 − P̂ = σ(x), against a 200-bit math/big reference on a grid over
// x = −40..40, which holds 19..40 where gorgonia.Sigmoid returns exactly 1
// (float64), and in float32 over x ≥ 0, which holds 15..40 where it
// saturates (below 0 σ(x) ≈ e^x carries the error of the float32 exp,
// chewxy/math32.Exp, about 1e-6 relative: not the sigmoid's to test).
// Tolerance: a few roundings, 4·2^−53 (float64) and 4·2^−24 (float32)
// relative; the saturated value 1 misses by about e^{−x}, more than that for
// 19 < x < 35.4 (float64) and 15 < x < 15.2 (float32).
func TestSigmoidUnsaturated(t *testing.T) {
	for _, tc := range []struct {
		dt       tensor.Dtype
		from, to float64
		tol      float64
	}{{tensor.Float64, -40, 40, 4 * 0x1p-53}, {tensor.Float32, 0, 40, 4 * 0x1p-24}} {
		var xs []float64
		for x := tc.from; x <= tc.to; x += 0.125 {
			xs = append(xs, x)
		}
		g := gorgonia.NewGraph()
		var in *tensor.Dense
		if tc.dt == tensor.Float32 {
			in = tensor.New(tensor.WithShape(len(xs), 1), tensor.WithBacking(to32(xs)))
		} else {
			in = tensor.New(tensor.WithShape(len(xs), 1), tensor.WithBacking(append([]float64(nil), xs...)))
		}
		x := gorgonia.NewMatrix(g, tc.dt, gorgonia.WithShape(len(xs), 1), gorgonia.WithValue(in))
		y := Sigmoid(x)
		vm := gorgonia.NewTapeMachine(g)
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		got := values(y.Value())
		vm.Close()
		for k, xv := range xs {
			ref, _ := bigSigmoid(xv, 200).Float64()
			if math.Abs(got[k]-ref) > tc.tol*ref {
				t.Errorf("%v: σ(%g) = %.17g, 200-bit reference %.17g (rel err %.3g)", tc.dt, xv, got[k], ref, math.Abs(got[k]-ref)/ref)
			}
		}
	}
}

// TestLogQCorrectedLargeLoss: rows whose loss exceeds 19 + log k'_i, i.e.
// whose weight argument x_i = ℓ_i − log k'_i lies in 19..20.5, where
// 1 − P̂_i = 1 − e^{−x_i} differs from 1 by 1.2e-9 to 5.6e-9, more than the
// tolerance: loss and gradient of the expression match the float64 reference
// (whose 1 − P̂ is computed from P̂ ≈ e^{−x}, exact to 1e-16) to 1e-9
// relative, for every logq_corrected option.
func TestLogQCorrectedLargeLoss(t *testing.T) {
	gen := newCaseGen(11, 9)
	for _, s := range allSettings(t) {
		if s.Variant != VariantLogQCorrected {
			continue
		}
		l := s.newLoss(t, tensor.Float64)
		p := gen.gen(l.Settings(), l.Geometry(), 5, false)
		set := 0
		for i := range p.b {
			row := p.S[i*p.c : (i+1)*p.c]
			r := refLogQCorrectedRow(&p.s, p.st, row, i, p.c)
			if len(r.neg) == 0 {
				continue
			}
			// ŝ does not read the positive's score: move f_ip so that
			// x_i = log Σ e^{ŝ} − log k' − f_ip is the target.
			pos := refPos(p.st, i)
			lse := r.loss + row[pos]/p.s.Temperature
			x := 19 + 1.5*float64(i)/float64(p.b)
			row[pos] = p.s.Temperature * (lse - math.Log(float64(len(r.neg))) - x)
			r = refLogQCorrectedRow(&p.s, p.st, row, i, p.c)
			if got := r.loss - math.Log(float64(len(r.neg))); math.Abs(got-x) > 1e-9 {
				t.Fatalf("%s: row %d: ℓ − log k' = %g, want %g", name(s), i, got, x)
			}
			set++
		}
		if set == 0 {
			t.Fatalf("%s: no row with negatives", name(s))
		}
		got, g := mustRun(t, l, p.st, p.b, p.c, true, p.S)
		want, gWant := refLoss(&p.s, p.st, p.S, p.b, p.c)
		checkClose(t, name(s)+" large loss", got, want, g, gWant, 1e-9)
	}
}
