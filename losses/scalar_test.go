package losses

import (
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestScalar checks which values Scalar reads: float32 and float64 scalars, as Gorgonia
// primitives, scalar tensors or one-element tensors, and nothing else.
func TestScalar(t *testing.T) {
	f32, f64 := gorgonia.F32(1.5), gorgonia.F64(-2.25)
	for _, c := range []struct {
		name string
		v    gorgonia.Value
		want float64
		ok   bool
	}{
		{"F32", &f32, 1.5, true},
		{"F64", &f64, -2.25, true},
		{"scalar tensor", tensor.New(tensor.FromScalar(float32(0.5))), 0.5, true},
		{"one-element float64 tensor", tensor.New(tensor.WithShape(1), tensor.WithBacking([]float64{3})), 3, true},
		{"one-element float32 tensor", tensor.New(tensor.WithShape(1, 1), tensor.WithBacking([]float32{4})), 4, true},
		{"two elements", tensor.New(tensor.WithShape(2), tensor.WithBacking([]float64{1, 2})), 0, false},
		{"integer", tensor.New(tensor.FromScalar(7)), 0, false},
		{"nil", nil, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Scalar(c.v)
			if got != c.want || ok != c.ok {
				t.Errorf("Scalar = %v, %v; want %v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}
