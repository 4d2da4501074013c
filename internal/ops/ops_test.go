package ops

import (
	"math"
	"testing"

	"gorgonia.org/tensor"
)

// TestOutOwnership: an op's output is its own and is valid until the op's next execution. A
// normal build hands out the same tensor again (a value kept past the next execution holds the
// newer numbers); a checked build (race detector, opdebug tag) hands out a new one and fills the
// one handed out before with NaN, so that such a read shows.
func TestOutOwnership(t *testing.T) {
	var o Out
	first := o.Get(tensor.Float32, 2, 3)
	first.Data().([]float32)[4] = 7
	second := o.Get(tensor.Float32, 2, 3)
	if Checked {
		if first == second {
			t.Fatal("checked build: the same tensor twice")
		}
		for k, v := range first.Data().([]float32) {
			if !math.IsNaN(float64(v)) {
				t.Fatalf("checked build: the output handed out before holds %v at %d, want NaN", v, k)
			}
		}
	} else if first != second || second.Data().([]float32)[4] != 7 {
		t.Fatal("the op did not keep its output")
	}
	if third := o.Get(tensor.Float64, 3, 2); third.Dtype() != tensor.Float64 || !third.Shape().Eq(tensor.Shape{3, 2}) {
		t.Errorf("another dtype and shape: got %v %v", third.Dtype(), third.Shape())
	}
}

// TestBase: an op's identity is its name: equal names hash alike, different ones (one parameter
// apart) not.
func TestBase(t *testing.T) {
	a, b, c := Base{Name: "Dense{q.0,relu=true}"}, Base{Name: "Dense{q.0,relu=true}"}, Base{Name: "Dense{q.0,relu=false}"}
	if a.Hashcode() != b.Hashcode() || a.Hashcode() == c.Hashcode() || a.String() != a.Name {
		t.Errorf("hashes %x %x %x", a.Hashcode(), b.Hashcode(), c.Hashcode())
	}
	if a.ReturnsPtr() || a.CallsExtern() || a.OverwritesInput() != -1 {
		t.Error("an op returns its own output, calls nothing external and overwrites no input")
	}
}
