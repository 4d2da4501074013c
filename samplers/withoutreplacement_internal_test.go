package samplers

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFenwickDraw: the Fenwick tree's draws of a whole corpus without replacement are a
// permutation, and its tree is restored exactly after each step.
func TestFenwickDraw(t *testing.T) {
	w := []float64{3, 0.5, 1e-9, 7, 2, 0.25, 1}
	f := newFenwick(w)
	base := append([]float64(nil), f.tree...)
	rng := rand.New(rand.NewPCG(2, 2))
	drawn := make([]int, len(w))
	out := make([]int32, len(w))
	for step := 1; step <= 100; step++ {
		f.draw(rng, w, drawn, step, out)
		got := make([]bool, len(w))
		for _, it := range out {
			got[it] = true
		}
		for j, ok := range got {
			if !ok {
				t.Fatalf("step %d: item %d not drawn in %v", step, j, out)
			}
		}
		for k := range base {
			if f.tree[k] != base[k] {
				t.Fatalf("step %d: node %d is %v after the step, %v before", step, k, f.tree[k], base[k])
			}
		}
	}
	if got, want := f.left(), 3+0.5+1e-9+7+2+0.25+1; math.Abs(got-want) > 1e-12 {
		t.Errorf("total weight %v, want %v", got, want)
	}
}
