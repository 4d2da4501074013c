package lossestest

import (
	"fmt"
	"math"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/losses"
)

// recorder is a testing.TB that records the failures of a check instead of failing the test.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

var inBatch = candidates.Geometry{Sampler: "in_batch", Layout: candidates.Diagonal}

// softmaxRef is the in-batch softmax cross-entropy at τ = 1 (Yi et al. eq. 3): the mean over the
// rows of log Σ_j e^{s_ij} − s_ii.
func softmaxRef(S []float64) float64 {
	const n = 3
	total := 0.0
	for i := range n {
		sum := 0.0
		for j := range n {
			sum += math.Exp(S[i*n+j])
		}
		total += math.Log(sum) - S[i*n+i]
	}
	return total / n
}

var scores = []float64{0.3, -0.2, 0.5, 0.1, 0.9, -0.4, -0.7, 0.2, 0.4}

// TestChecksPass: the built-in plain variant, fused and as an expression, float64 and float32,
// agrees with the reference written from its equation and with its finite differences.
func TestChecksPass(t *testing.T) {
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		for _, im := range []losses.Impl{losses.ImplFused, losses.ImplExpression} {
			l, err := losses.New(losses.Settings{Temperature: 1, Impl: im}, inBatch, dt)
			if err != nil {
				t.Fatal(err)
			}
			st := &candidates.Step{Geometry: inBatch}
			tol := 1e-12
			if dt == tensor.Float32 {
				tol = 1e-6
			}
			Value(t, l, st, scores, 3, 3, softmaxRef, tol)
			Gradient(t, l, st, scores, 3, 3, softmaxRef, 1e-6, 1e-6)
			if dt == tensor.Float64 {
				Gradient(t, l, st, scores, 3, 3, nil, 1e-6, 1e-7)
			}
		}
	}
}

// TestChecksFail: a value 1% off its reference and a gradient that misses a term (a variant
// whose positive's logit is a stop-gradient) fail their checks.
func TestChecksFail(t *testing.T) {
	if err := losses.Register("no_positive_gradient", losses.Custom{Expr: func(e *losses.Expr) (*gorgonia.Node, error) {
		f := e.Logits()
		return e.Reduce(losses.SoftmaxLoss(losses.StopGradient(e.AtPos(f)), losses.AddEach(f, e.NegLog()))), nil
	}}); err != nil {
		t.Fatal(err)
	}
	st := &candidates.Step{Geometry: inBatch}
	plain, err := losses.New(losses.Settings{Temperature: 1}, inBatch, tensor.Float64)
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Value(r, plain, st, scores, 3, 3, func(S []float64) float64 { return 1.01 * softmaxRef(S) }, 1e-6)
	if len(r.errors) != 1 {
		t.Errorf("a reference 1%% off: %d failures, want 1", len(r.errors))
	}
	broken, err := losses.New(losses.Settings{Variant: "no_positive_gradient", Temperature: 1}, inBatch, tensor.Float64)
	if err != nil {
		t.Fatal(err)
	}
	r = &recorder{TB: t}
	Value(r, broken, st, scores, 3, 3, softmaxRef, 1e-12) // the value is plain's
	Gradient(r, broken, st, scores, 3, 3, nil, 1e-6, 1e-6)
	if len(r.errors) != 1 {
		t.Errorf("a gradient missing the positive's term: %v, want one failure of the gradient", r.errors)
	}
}

// TestCentralDifferences: the differences of a quadratic are its gradient to rounding.
func TestCentralDifferences(t *testing.T) {
	g := CentralDifferences(func(x []float64) float64 { return 3*x[0]*x[0] - x[0]*x[1] }, []float64{2, 5}, 1e-4)
	if math.Abs(g[0]-7) > 1e-8 || math.Abs(g[1]+2) > 1e-8 {
		t.Errorf("gradient of 3x² − xy at (2, 5): %v, want [7 −2]", g)
	}
}

// known are the entries of three in-batch rows whose queries know, besides their positives (the diagonal),
// the items of entries (0, 2) and (2, 1): the side input positives of a data set with several
// positives per query (the diagonal entries are marked too, as the data marks them).
var known = []int{0, 2, 4, 7, 8}

// multiRef is login (in) or logout at τ = 1 over the rows of S: row i's positives P_i, its
// diagonal and its known negatives, and the rest R_i, as probabilities in the linear domain:
// login −log(Σ_P e^s / Σ_{P∪R} e^s), logout the mean over p ∈ P of −log(e^{s_p}/(e^{s_p} + Σ_R e^s)).
func multiRef(in bool) func(S []float64) float64 {
	return func(S []float64) float64 {
		const n = 3
		total := 0.0
		for i := range n {
			var pos, rest []float64
			for j := range n {
				isKnown := false
				for _, k := range known {
					isKnown = isKnown || k == i*n+j
				}
				if j == i || isKnown {
					pos = append(pos, math.Exp(S[i*n+j]))
				} else {
					rest = append(rest, math.Exp(S[i*n+j]))
				}
			}
			sp, sr := 0.0, 0.0
			for _, x := range pos {
				sp += x
			}
			for _, x := range rest {
				sr += x
			}
			if in {
				total -= math.Log(sp / (sp + sr))
				continue
			}
			for _, x := range pos {
				total -= math.Log(x/(x+sr)) / float64(len(pos))
			}
		}
		return total / n
	}
}

// TestMultiPositiveChecks: login and logout, float64 and float32, agree with their equations
// written in the linear domain, and their gradients with the equations' finite differences.
func TestMultiPositiveChecks(t *testing.T) {
	for _, v := range []losses.Variant{losses.VariantLogIn, losses.VariantLogOut} {
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			l, err := losses.New(losses.Settings{Variant: v, Temperature: 1}, inBatch, dt)
			if err != nil {
				t.Fatal(err)
			}
			st := &candidates.Step{Geometry: inBatch, RowItem: []int64{0, 1, 2}, ColItem: []int64{0, 1, 2}}
			st.Set(candidates.Side{Name: candidates.Positives, Kind: candidates.PerEntry, By: "test"}, nil, nil)
			if err := st.SetEntries(candidates.Positives, known, []float64{1, 1, 1, 1, 1}); err != nil {
				t.Fatal(err)
			}
			tol := 1e-12
			if dt == tensor.Float32 {
				tol = 1e-6
			}
			ref := multiRef(v == losses.VariantLogIn)
			Value(t, l, st, scores, 3, 3, ref, tol)
			Gradient(t, l, st, scores, 3, 3, ref, 1e-6, 1e-6)
		}
	}
}
