package losses

import (
	"math"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
)

// tauHarness is a float64 graph (scores, log τ) → loss → gradients.
type tauHarness struct {
	scores, logTau, loss, dS, dLogTau *gorgonia.Node
	vm                                gorgonia.VM
	b, c                              int
}

func newTauHarness(t *testing.T, l *Loss, st *candidates.Step, b, c int) *tauHarness {
	t.Helper()
	g := gorgonia.NewGraph()
	h := &tauHarness{b: b, c: c}
	h.scores = gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(b, c), gorgonia.WithName("scores"))
	h.logTau = gorgonia.NewScalar(g, tensor.Float64, gorgonia.WithName("logTau"))
	var err error
	if h.loss, err = l.Node(Inputs{Scores: h.scores, LogTemperature: h.logTau}, st); err != nil {
		t.Fatal(err)
	}
	gs, err := gorgonia.Grad(h.loss, h.scores, h.logTau)
	if err != nil {
		t.Fatal(err)
	}
	h.dS, h.dLogTau = gs[0], gs[1]
	h.vm = gorgonia.NewTapeMachine(g)
	t.Cleanup(func() { h.vm.Close() })
	return h
}

func (h *tauHarness) run(t *testing.T, S []float64, logTau float64) (loss float64, dS []float64, dLogTau float64) {
	t.Helper()
	if err := gorgonia.Let(h.scores, dense(tensor.Float64, S, h.b, h.c)); err != nil {
		t.Fatal(err)
	}
	if err := gorgonia.Let(h.logTau, logTau); err != nil {
		t.Fatal(err)
	}
	defer h.vm.Reset()
	if err := h.vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return values(h.loss.Value())[0], values(h.dS.Value()), values(h.dLogTau.Value())[0]
}

// TestLearnedTemperature: with learn_temperature, τ = exp(LogTemperature):
// at log τ = log 0.7 the loss and its gradient in the scores equal those of
// the fixed τ = 0.7, and ∂L/∂log τ equals the central difference of the loss
// in log τ, for every variant with a temperature (logq_corrected, whose row
// weight is a stop-gradient, only for the first two).
func TestLearnedTemperature(t *testing.T) {
	gen := newCaseGen(11, 9)
	for _, s := range allSettings(t) {
		if s.Variant == VariantMSEGramian {
			continue
		}
		fixed := withImpl(s, ImplExpression).newLoss(t, tensor.Float64)
		ls := s
		ls.LearnTemperature = true
		learned := ls.newLoss(t, tensor.Float64)
		if learned.Fused() {
			t.Fatalf("%s: learn_temperature with impl auto must be the expression", name(s))
		}
		// A problem whose every row lost its negatives to the masks has a loss flat in τ; such
		// a draw is replaced, so that ∂L/∂log τ ≠ 0 is asserted on one where τ matters.
		for try := 0; ; try++ {
			if try == 10 {
				t.Fatalf("%s: ten draws in a row with a loss flat in τ", name(s))
			}
			p := gen.gen(fixed.Settings(), fixed.Geometry(), 4, false)
			want, gWant := mustRun(t, fixed, p.st, p.b, p.c, true, p.S)
			h := newTauHarness(t, learned, p.st, p.b, p.c)
			logTau := math.Log(s.Temperature)
			got, gGot, dLogTau := h.run(t, p.S, logTau)
			checkClose(t, "learned τ vs fixed "+name(s), got, want, gGot, gWant, 1e-12)
			if s.Variant == VariantLogQCorrected {
				break
			}
			fd := centralDifferences(func(x []float64) float64 {
				v, _, _ := h.run(t, p.S, x[0])
				return v
			}, []float64{logTau}, 1e-6)[0]
			if fd == 0 && dLogTau == 0 {
				continue
			}
			if math.Abs(dLogTau-fd) > 1e-6*math.Max(1, math.Abs(fd)) || dLogTau == 0 {
				t.Errorf("%s: ∂L/∂log τ = %.12g, central difference %.12g", name(s), dLogTau, fd)
			}
			break
		}
	}
}

// TestLearnedTemperatureErrors: learn_temperature needs the LogTemperature
// input and has no fused kernel; the input without the option is an error.
func TestLearnedTemperatureErrors(t *testing.T) {
	s := Settings{Variant: VariantLogQ, LearnTemperature: true, Impl: ImplFused}
	if err := s.Resolve(); err == nil || err.Error() != "impl: fused has no learned temperature; use auto or expression with learn_temperature" {
		t.Errorf("impl fused with learn_temperature: %v", err)
	}
	s = Settings{Variant: VariantMSEGramian, LearnTemperature: true}
	if err := s.Resolve(); err == nil {
		t.Error("mse_gramian accepted learn_temperature")
	}
	g := gorgonia.NewGraph()
	scores := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(2, 2), gorgonia.WithName("s"))
	logTau := gorgonia.NewScalar(g, tensor.Float64, gorgonia.WithName("logTau"))
	step := stepOf(inBatchG, nil, nil, sides{LogP: []float64{-1, -1}, PosLogP: []float64{-1, -1}})
	learned := mustNew(t, Settings{Variant: VariantLogQ, LearnTemperature: true}, tensor.Float64)
	if _, err := learned.Node(Inputs{Scores: scores}, step); err == nil {
		t.Error("learn_temperature without Inputs.LogTemperature accepted")
	}
	fixed := mustNew(t, Settings{Variant: VariantLogQ}, tensor.Float64)
	if _, err := fixed.Node(Inputs{Scores: scores, LogTemperature: logTau}, step); err == nil {
		t.Error("Inputs.LogTemperature without learn_temperature accepted")
	}
}
