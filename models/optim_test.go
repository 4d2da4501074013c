package models

import (
	"math"
	"math/rand/v2"
	"testing"
)

// refOptimizer is a float64 reference of the update rules, written from their definitions
// (PyTorch's SGD, SGD with momentum, Adagrad and Adam).
type refOptimizer struct {
	s    TrainSettings
	t    int
	m, v []float64
}

func (r *refOptimizer) step(w, g []float64) {
	if r.m == nil {
		r.m, r.v = make([]float64, len(w)), make([]float64, len(w))
	}
	r.t++
	lr := r.s.LearningRate
	for i, gi := range g {
		switch r.s.Optimizer {
		case OptimizerSGD:
			w[i] -= lr * gi
		case OptimizerMomentum: // v ← μv + g; w ← w − lr·v
			r.m[i] = r.s.Momentum*r.m[i] + gi
			w[i] -= lr * r.m[i]
		case OptimizerAdagrad: // G ← G + g²; w ← w − lr·g/(√G + ε)
			r.m[i] += gi * gi
			w[i] -= lr * gi / (math.Sqrt(r.m[i]) + r.s.Epsilon)
		case OptimizerAdam: // m̂ = m/(1−β1^t), v̂ = v/(1−β2^t), w ← w − lr·m̂/(√v̂ + ε)
			r.m[i] = r.s.Beta1*r.m[i] + (1-r.s.Beta1)*gi
			r.v[i] = r.s.Beta2*r.v[i] + (1-r.s.Beta2)*gi*gi
			mh := r.m[i] / (1 - math.Pow(r.s.Beta1, float64(r.t)))
			vh := r.v[i] / (1 - math.Pow(r.s.Beta2, float64(r.t)))
			w[i] -= lr * mh / (math.Sqrt(vh) + r.s.Epsilon)
		}
	}
}

// TestSparseMatchesDense: when every row of a table is touched at every step (in a shuffled
// order), the row-sparse update equals the dense update bit for bit, and both follow the float64
// reference of the optimiser.
func TestSparseMatchesDense(t *testing.T) {
	const rows, dim, steps = 6, 4, 5
	for _, name := range []Optimizer{OptimizerSGD, OptimizerMomentum, OptimizerAdagrad, OptimizerAdam} {
		t.Run(string(name), func(t *testing.T) {
			ts := TrainSettings{Optimizer: name, LearningRate: 0.05}
			if err := ts.Resolve(); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			sparse := &param{name: "sparse", shape: []int{rows, dim}, data: make([]float32, rows*dim)}
			dense := &param{name: "dense", shape: []int{rows, dim}, data: make([]float32, rows*dim)}
			ref := make([]float64, rows*dim)
			for i := range ref {
				v := float32(rng.NormFloat64())
				values[float32](sparse)[i], values[float32](dense)[i], ref[i] = v, v, float64(v)
			}
			os := newOptimizer[float32](ts, []*param{sparse})
			od := newOptimizer[float32](ts, []*param{dense})
			or := &refOptimizer{s: ts}
			rg := newRowGrad[float32](rows, dim)
			for range steps {
				g := make([]float32, rows*dim)
				g64 := make([]float64, rows*dim)
				for i := range g {
					g[i] = float32(rng.NormFloat64())
					g64[i] = float64(g[i])
				}
				for _, r := range rng.Perm(rows) {
					copy(rg.row(int32(r)), g[r*dim:(r+1)*dim])
				}
				os.begin()
				os.rows(sparse, rg, 1)
				rg.reset()
				od.begin()
				od.dense(dense, g, 1)
				or.step(ref, g64)
			}
			for i, w := range values[float32](sparse) {
				if d := values[float32](dense)[i]; w != d {
					t.Fatalf("element %d: sparse %v, dense %v", i, w, d)
				}
				if math.Abs(float64(w)-ref[i]) > 1e-5*(1+math.Abs(ref[i])) {
					t.Fatalf("element %d: %v, reference %v", i, w, ref[i])
				}
			}
		})
	}
}

// TestLazyRows: rows a step does not touch keep their weights and optimiser state.
func TestLazyRows(t *testing.T) {
	ts := TrainSettings{}
	if err := ts.Resolve(); err != nil {
		t.Fatal(err)
	}
	p := &param{name: "table", shape: []int{5, 2}, data: []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}
	o := newOptimizer[float32](ts, []*param{p})
	rg := newRowGrad[float32](5, 2)
	copy(rg.row(3), []float32{0.5, -1})
	copy(rg.row(1), []float32{2, 0})
	g := rg.row(3) // touching again accumulates into the same row
	g[0] += 0.5
	o.begin()
	o.rows(p, rg, 1)
	w := values[float32](p)
	for _, r := range []int{0, 2, 4} {
		if w[2*r] != float32(2*r+1) || w[2*r+1] != float32(2*r+2) {
			t.Errorf("untouched row %d changed: %v", r, w[2*r:2*r+2])
		}
		if st := o.state[p][4*r : 4*r+4]; st[0] != 0 || st[1] != 0 || st[2] != 0 || st[3] != 0 {
			t.Errorf("untouched row %d has optimiser state", r)
		}
	}
	// Adam's first step moves every element with a nonzero gradient by lr·sign(g) (ε aside).
	want := map[int]float32{2: 3 - 0.001, 3: 4, 6: 7 - 0.001, 7: 8 + 0.001}
	for i, v := range want {
		if math.Abs(float64(w[i]-v)) > 1e-6 {
			t.Errorf("element %d = %v, want %v", i, w[i], v)
		}
	}
}
