package losses

import (
	"fmt"
	"math"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// composedNode builds the same loss from stock Gorgonia ops (LogSoftMax,
// Softplus, Square, HadamardProd, Sum) for cross-checking and benchmarking
// the fused op. The per-entry corrections, masks and weights come from the
// reference's formulas and are baked into the graph as constants, so the
// graph is valid for the Step contents at build time only.
func composedNode(s *Settings, st *Step, scores *gorgonia.Node, b, c int) (*gorgonia.Node, error) {
	dt := scores.Dtype()
	constant := func(x []float64) *gorgonia.Node {
		return gorgonia.NewConstant(dense(dt, x, b, c))
	}
	scalar := func(x float64) *gorgonia.Node {
		if dt == tensor.Float32 {
			return gorgonia.NewConstant(float32(x))
		}
		return gorgonia.NewConstant(x)
	}
	scale := 1.0
	if s.Reduction == ReduceMean {
		scale = 1 / float64(b)
	}
	off := make([]float64, b*c)  // additive logit correction
	wPos := make([]float64, b*c) // r_i·scale at the positive
	wNeg := make([]float64, b*c) // r_i·scale·w_ij on the negatives (logistic family)
	gram := make([]float64, b*c) // Gramian coefficient (mse_gramian)
	zero := make([]float64, c)
	for i := range b {
		r := 1.0
		if st.Rewards != nil {
			r = st.Rewards[i]
		}
		p := refPos(st, i)
		wPos[i*c+p] = r * scale
		isNeg := make([]bool, c)
		for _, j := range refNegatives(s, st, i, c) {
			isNeg[j] = true
		}
		for j := range c {
			k := i*c + j
			switch {
			case isRawat(s.Variant) && s.Form == FormDecoupled:
				if isNeg[j] {
					wNeg[k] = r * scale * refWeight(s, st, i, j, c-1)
				}
			case isRawat(s.Variant):
				if isNeg[j] {
					off[k] = correct(s, 0, math.Log(refWeight(s, st, i, j, c-1)))
				}
			default:
				off[k] = correctedLogit(s, st, zero, i, j, p)
				if isNeg[j] {
					wNeg[k] = r * scale
				}
			}
			if !isNeg[j] && j != p {
				off[k] = -1e30 // masked accidental hit
			}
			if s.Variant == MSEGramian && (st.Layout != First || j > 0) {
				ncol := c
				if st.Layout == First {
					ncol = c - 1
				}
				gram[k] = scale * s.GramianWeight / float64(ncol) * refGramWeight(st, j)
			}
		}
	}
	if s.Variant == MSEGramian {
		d, err := gorgonia.Sub(scores, scalar(1))
		if err != nil {
			return nil, err
		}
		mse := gorgonia.Must(gorgonia.Sum(gorgonia.Must(gorgonia.HadamardProd(gorgonia.Must(gorgonia.Square(d)), constant(wPos)))))
		g := gorgonia.Must(gorgonia.Sum(gorgonia.Must(gorgonia.HadamardProd(gorgonia.Must(gorgonia.Square(scores)), constant(gram)))))
		return gorgonia.Add(mse, g)
	}
	z, err := gorgonia.Mul(scores, scalar(1/s.Temperature))
	if err != nil {
		return nil, err
	}
	if z, err = gorgonia.Add(z, constant(off)); err != nil {
		return nil, err
	}
	switch s.Variant {
	case Plain, Full, LogQ, LogitAdjusted:
		return softmaxComposed(z, constant(wPos))
	}
	if isRawat(s.Variant) && s.Form != FormDecoupled {
		return softmaxComposed(z, constant(wPos))
	}
	pos := gorgonia.Must(gorgonia.HadamardProd(gorgonia.Must(gorgonia.Softplus(gorgonia.Must(gorgonia.Neg(z)))), constant(wPos)))
	neg := gorgonia.Must(gorgonia.HadamardProd(gorgonia.Must(gorgonia.Softplus(z)), constant(wNeg)))
	return gorgonia.Sum(gorgonia.Must(gorgonia.Add(pos, neg)))
}

// softmaxComposed is −Σ W ⊙ LogSoftMax(z).
func softmaxComposed(z, w *gorgonia.Node) (*gorgonia.Node, error) {
	ls, err := gorgonia.LogSoftMax(z)
	if err != nil {
		return nil, err
	}
	return gorgonia.Neg(gorgonia.Must(gorgonia.Sum(gorgonia.Must(gorgonia.HadamardProd(ls, w)))))
}

// runComposed evaluates the composed loss and its gradient at S.
func runComposed(t testing.TB, p problem, dt tensor.Dtype) (float64, []float64) {
	t.Helper()
	g := gorgonia.NewGraph()
	scores := gorgonia.NewMatrix(g, dt, gorgonia.WithShape(p.b, p.c), gorgonia.WithName("scores"),
		gorgonia.WithValue(dense(dt, p.S, p.b, p.c)))
	loss, err := composedNode(&p.s, p.st, scores, p.b, p.c)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := gorgonia.Grad(loss, scores)
	if err != nil {
		t.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return values(loss.Value())[0], values(gs[0].Value())
}

// TestFusedEqualsComposed: the fused op and the composed Gorgonia graph agree
// on value and gradient for every variant and option.
func TestFusedEqualsComposed(t *testing.T) {
	gen := newCaseGen(8, 9)
	for _, s := range allSettings(t) {
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			l := mustNew(t, s, dt)
			p := gen.gen(l.Settings(), l.Layout(), 5, false)
			want, gWant := runComposed(t, p, dt)
			got, gGot, err := newHarness(t, l, p.st, p.b, p.c, true).run(p.S)
			if err != nil {
				t.Fatal(err)
			}
			tol := 1e-9
			if dt == tensor.Float32 {
				tol = 1e-4
			}
			checkClose(t, fmt.Sprintf("fused vs composed %s %v", name(s), dt), got, want, gGot, gWant, tol)
		}
	}
}
