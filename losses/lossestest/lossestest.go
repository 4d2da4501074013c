// Package lossestest checks a loss variant the way package losses checks its built-in ones: its
// value against an independent plain-Go float64 reference written from the paper's equation,
// and its gradient against central finite differences (gonum's diff/fd). A researcher's variant,
// registered with losses.Register, is checked in its own test:
//
//	l, _ := losses.New(losses.Settings{Variant: "my_loss"}, geometry, tensor.Float64)
//	lossestest.Value(t, l, step, scores, rows, cols, myReference, 1e-12)
//	lossestest.Gradient(t, l, step, scores, rows, cols, nil, 1e-6, 1e-7)
//
// The loss runs as the trainer runs it: a Gorgonia tape machine over the scores, the loss node
// and its gradient with respect to the scores, bound to the step (candidates.Step) whose
// geometry the loss was made for. A step filled as a sampler fills it comes from
// samplerstest.NewStep (the step of the sampler's geometry with every side input it declares),
// then the sampler's Draw and Declare (examples/side-input's test does this).
package lossestest

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/tape"
	"github.com/samplingbias/workbench/losses"
)

// Machine is the loss l on r×c scores for the step st, compiled once: Run evaluates it at any
// scores.
type Machine struct {
	dt           tensor.Dtype
	r, c         int
	scores, loss *gorgonia.Node
	grad         *gorgonia.Node
	vm           gorgonia.VM
}

// New builds l's node on an r×c matrix of scores and its gradient with respect to them.
func New(l *losses.Loss, st *candidates.Step, r, c int) (*Machine, error) {
	m := &Machine{dt: l.Dtype(), r: r, c: c}
	g := gorgonia.NewGraph()
	m.scores = gorgonia.NewMatrix(g, m.dt, gorgonia.WithShape(r, c), gorgonia.WithName("scores"))
	var err error
	if m.loss, err = l.Node(losses.Inputs{Scores: m.scores}, st); err != nil {
		return nil, err
	}
	gs, err := gorgonia.Grad(m.loss, m.scores)
	if err != nil {
		return nil, err
	}
	m.grad = gs[0]
	if m.vm, err = tape.Machine(g, m.loss, m.grad); err != nil {
		return nil, err
	}
	return m, nil
}

// Close releases the machine.
func (m *Machine) Close() error { return m.vm.Close() }

// Run evaluates the loss at the scores S (row-major, r·c values; a float32 loss sees them
// rounded to float32) and returns its value and ∂L/∂S, copied out of the machine.
func (m *Machine) Run(S []float64) (float64, []float64, error) {
	if len(S) != m.r*m.c {
		return 0, nil, fmt.Errorf("lossestest: %d scores for %d×%d", len(S), m.r, m.c)
	}
	var v *tensor.Dense
	if m.dt == tensor.Float32 {
		s := make([]float32, len(S))
		for k, x := range S {
			s[k] = float32(x)
		}
		v = tensor.New(tensor.WithShape(m.r, m.c), tensor.WithBacking(s))
	} else {
		v = tensor.New(tensor.WithShape(m.r, m.c), tensor.WithBacking(append([]float64(nil), S...)))
	}
	if err := gorgonia.Let(m.scores, v); err != nil {
		return 0, nil, err
	}
	defer m.vm.Reset()
	if err := m.vm.RunAll(); err != nil {
		return 0, nil, err
	}
	value, ok := losses.Scalar(m.loss.Value())
	if !ok {
		return 0, nil, fmt.Errorf("lossestest: the loss is %v, not a scalar", m.loss.Value())
	}
	grad := make([]float64, m.r*m.c)
	switch g := m.grad.Value().Data().(type) {
	case []float32:
		for k, x := range g {
			grad[k] = float64(x)
		}
	case []float64:
		copy(grad, g)
	}
	return value, grad, nil
}

// Run evaluates the loss l at the r×c scores S for the step st: its value and ∂L/∂S.
func Run(l *losses.Loss, st *candidates.Step, S []float64, r, c int) (float64, []float64, error) {
	m, err := New(l, st, r, c)
	if err != nil {
		return 0, nil, err
	}
	defer m.Close()
	return m.Run(S)
}

// CentralDifferences are (f(x + h·e_k) − f(x − h·e_k))/(2h) for every k: the gradient of f at x
// to O(h²).
func CentralDifferences(f func([]float64) float64, x []float64, h float64) []float64 {
	return fd.Gradient(nil, f, x, &fd.Settings{Formula: fd.Central, Step: h})
}

// Value checks the value of the loss l at the r×c scores S for the step st against ref(S), a
// plain-Go float64 computation of the variant's formula: |value − ref| ≤ tol·|ref|. For a float32
// loss, ref is given S rounded to float32, the scores the loss sees.
func Value(t testing.TB, l *losses.Loss, st *candidates.Step, S []float64, r, c int, ref func(S []float64) float64, tol float64) {
	t.Helper()
	got, _, err := Run(l, st, S, r, c)
	if err != nil {
		t.Fatal(err)
	}
	if l.Dtype() == tensor.Float32 {
		S = rounded(S)
	}
	if want := ref(S); !(math.Abs(got-want) <= tol*math.Abs(want)) {
		t.Errorf("loss %s: value %.17g, reference %.17g (relative error %.3g, tolerance %g)", l.Settings().Variant, got, want,
			math.Abs(got-want)/math.Abs(want), tol)
	}
}

// Gradient checks the gradient of the loss l at the r×c scores S for the step st against the
// central differences, with step h, of f: the reference's value (a float64 function of the
// scores), or, with f nil, the loss's own value, which needs a float64 loss. Every entry must be
// within tol·‖differences‖∞ + 1e-12 of its difference.
func Gradient(t testing.TB, l *losses.Loss, st *candidates.Step, S []float64, r, c int, f func(S []float64) float64, h, tol float64) {
	t.Helper()
	m, err := New(l, st, r, c)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	_, grad, err := m.Run(S)
	if err != nil {
		t.Fatal(err)
	}
	if f == nil {
		if l.Dtype() != tensor.Float64 {
			t.Fatalf("loss %s: the finite differences of a %v loss's own value are its rounding; give a float64 reference", l.Settings().Variant, l.Dtype())
		}
		f = func(x []float64) float64 {
			v, _, err := m.Run(x)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	want := CentralDifferences(f, S, h)
	scale := 0.0
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	for k := range want {
		if bound := tol*scale + 1e-12; !(math.Abs(grad[k]-want[k]) <= bound) {
			t.Errorf("loss %s: ∂L/∂s[%d] = %.12g, central difference %.12g (tolerance %.3g)", l.Settings().Variant, k, grad[k], want[k], bound)
			return
		}
	}
}

// rounded is x rounded to float32.
func rounded(x []float64) []float64 {
	y := make([]float64, len(x))
	for k, v := range x {
		y[k] = float64(float32(v))
	}
	return y
}
