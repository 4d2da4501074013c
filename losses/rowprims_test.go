package losses

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/internal/tape"
)

// rowPrimGraph is a float64 graph L = Σ_i v_i·y_i of a row primitive y = f(x, a) (B×1) of a B×C
// input x and a scalar input a, with fixed weights v, and its gradients in x and a.
type rowPrimGraph struct {
	x, a, loss, dx, da *gorgonia.Node
	vm                 gorgonia.VM
	b, c               int
}

func newRowPrimGraph(t *testing.T, b, c int, f func(x, a *gorgonia.Node) *gorgonia.Node) *rowPrimGraph {
	t.Helper()
	g := gorgonia.NewGraph()
	h := &rowPrimGraph{b: b, c: c}
	h.x = gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(b, c), gorgonia.WithName("x"))
	h.a = gorgonia.NewScalar(g, tensor.Float64, gorgonia.WithName("a"))
	v := make([]float64, b)
	for i := range v {
		v[i] = 1 + float64(i%3)
	}
	weights := gorgonia.NewConstant(tensor.New(tensor.WithShape(b, 1), tensor.WithBacking(v)), gorgonia.In(g))
	h.loss = gorgonia.Must(gorgonia.Sum(gorgonia.Must(gorgonia.HadamardProd(f(h.x, h.a), weights))))
	grads, err := gorgonia.Grad(h.loss, h.x, h.a)
	if err != nil {
		t.Fatal(err)
	}
	h.dx, h.da = grads[0], grads[1]
	if h.vm, err = tape.Machine(g, h.loss, h.dx, h.da); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.vm.Close() })
	return h
}

func (h *rowPrimGraph) run(x []float64, a float64) (loss float64, dx []float64, da float64, err error) {
	if err := gorgonia.Let(h.x, dense(tensor.Float64, x, h.b, h.c)); err != nil {
		return 0, nil, 0, err
	}
	if err := gorgonia.Let(h.a, a); err != nil {
		return 0, nil, 0, err
	}
	defer h.vm.Reset()
	if err := h.vm.RunAll(); err != nil {
		return 0, nil, 0, err
	}
	return values(h.loss.Value())[0], values(h.dx.Value()), values(h.da.Value())[0], nil
}

// check compares the loss with want (relative tol) and the gradients with central differences.
func (h *rowPrimGraph) check(t *testing.T, what string, x []float64, a, want, tol float64, skip func(k int) bool) {
	t.Helper()
	got, dx, da, err := h.run(x, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if math.Abs(got-want) > tol*math.Abs(want) {
		t.Errorf("%s: %.17g, want %.17g", what, got, want)
	}
	const eps = 1e-6
	value := func(x []float64, a float64) float64 {
		v, _, _, err := h.run(x, a)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	y := append([]float64(nil), x...)
	for k := range y {
		if skip != nil && skip(k) {
			continue
		}
		y[k] = x[k] + eps
		up := value(y, a)
		y[k] = x[k] - eps
		down := value(y, a)
		y[k] = x[k]
		if fd := (up - down) / (2 * eps); math.Abs(dx[k]-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
			t.Errorf("%s: ∂/∂x[%d] = %.12g, central difference %.12g", what, k, dx[k], fd)
			return
		}
	}
	if fd := (value(x, a+eps) - value(x, a-eps)) / (2 * eps); math.Abs(da-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
		t.Errorf("%s: ∂/∂a = %.12g, central difference %.12g", what, da, fd)
	}
}

// TestRowPrimitives: RowSoftplusSum and LogSumPow against their definitions summed term by term in
// float64, and their gradients against central differences.
func TestRowPrimitives(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 5))
	const b, c = 4, 9
	mask := make([]float64, b*c)
	for k := range mask {
		mask[k] = float64(rng.IntN(3) % 2)
	}
	maskNode := func(x *gorgonia.Node) *gorgonia.Node {
		return gorgonia.NewConstant(dense(tensor.Float64, mask, b, c), gorgonia.In(x.Graph()))
	}
	softplus := func(z float64) float64 { return math.Max(z, 0) + math.Log1p(math.Exp(-math.Abs(z))) }

	// RowSoftplusSum, with some logits far in either tail; a is not read (its gradient is 0).
	z := make([]float64, b*c)
	for k := range z {
		z[k] = 3 * rng.NormFloat64()
	}
	z[2], z[13] = 700, -700
	want := 0.0
	for k, v := range z {
		want += (1 + float64(k/c%3)) * mask[k] * softplus(v)
	}
	h := newRowPrimGraph(t, b, c, func(x, a *gorgonia.Node) *gorgonia.Node {
		return gorgonia.Must(gorgonia.Add(RowSoftplusSum(x, maskNode(x)), gorgonia.Must(gorgonia.Mul(a, constLike(a, 0)))))
	})
	h.check(t, "RowSoftplusSum", z, 1, want, 1e-14, nil)

	// A row long enough for the running products to pass 1e150 and be folded into the sum.
	long := make([]float64, 2400)
	want = 0
	for k := range long {
		long[k] = 0.5 * rng.NormFloat64()
		want += softplus(long[k])
	}
	ones := make([]float64, len(long))
	for k := range ones {
		ones[k] = 1
	}
	out, err := runRowPrim(long, ones, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := out[0]; math.Abs(got-want) > 1e-13*want {
		t.Errorf("RowSoftplusSum of 2400 terms: %.17g, want %.17g", got, want)
	}

	// LogSumPow at an integer exponent (squaring) and at others above and below 1, on x ≥ 0 with
	// zeros (not differentiated below exponent 1, where the slope at 0 is infinite).
	x := make([]float64, b*c)
	for k := range x {
		x[k] = rng.Float64() * 3
		if k%7 == 3 {
			x[k] = 0
		}
	}
	x[5] = 1e-200
	for _, a := range []float64{20, 3, 1.7, 0.6} {
		want := 0.0
		for i := range b {
			terms := []float64{}
			for j := range c {
				if k := i*c + j; mask[k] == 1 && x[k] > 0 {
					terms = append(terms, a*math.Log(x[k]))
				}
			}
			want += (1 + float64(i%3)) * refLogSumExp(terms)
		}
		h := newRowPrimGraph(t, b, c, func(x, a *gorgonia.Node) *gorgonia.Node { return LogSumPow(x, maskNode(x), a) })
		h.check(t, fmt.Sprintf("LogSumPow a=%g", a), x, a, want, 1e-14, func(k int) bool { return x[k] < 1e-5 })
	}
}

// TestRowPrimitiveErrors: a mask entry other than 0 and 1, a negative entry and an exponent ≤ 0
// are errors when the node runs.
func TestRowPrimitiveErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		x, m     []float64
		a        float64
		pow      bool
		contains string
	}{
		{"softplus mask", []float64{1, 2}, []float64{1, 0.5}, 1, false, "the mask has an entry other than 0 and 1"},
		{"pow mask", []float64{1, 2}, []float64{2, 1}, 2, true, "the mask has an entry other than 0 and 1"},
		{"pow negative", []float64{1, -2}, []float64{1, 1}, 2, true, "entry 1 of row 0 is -2, not ≥ 0"},
		{"pow exponent", []float64{1, 2}, []float64{1, 1}, 0, true, "the exponent must be finite and > 0, got 0"},
	} {
		if _, err := runRowPrim(tc.x, tc.m, tc.a, tc.pow); err == nil || !strings.Contains(err.Error(), tc.contains) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.contains)
		}
	}
}

// runRowPrim returns RowSoftplusSum(x, m), or LogSumPow(x, m, a) with pow, of one row.
func runRowPrim(x, m []float64, a float64, pow bool) ([]float64, error) {
	g := gorgonia.NewGraph()
	xn := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(1, len(x)), gorgonia.WithName("x"),
		gorgonia.WithValue(dense(tensor.Float64, x, 1, len(x))))
	mn := gorgonia.NewConstant(dense(tensor.Float64, m, 1, len(m)), gorgonia.In(g))
	out := RowSoftplusSum(xn, mn)
	if pow {
		out = LogSumPow(xn, mn, gorgonia.NewConstant(a, gorgonia.In(g)))
	}
	vm, err := tape.Machine(g, out)
	if err != nil {
		return nil, err
	}
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		return nil, err
	}
	return values(out.Value()), nil
}
