package models

import (
	"math"

	"github.com/samplingbias/workbench/internal/simd"
)

// optimizer applies SGD, momentum, Adagrad or Adam (PyTorch's update rules) to dense parameters
// and, lazily, to the touched rows of embedding tables: a row's weights and optimiser state
// change only at steps whose batch uses the row, and the work is proportional to the rows
// touched. Adam's bias correction uses the global step count t for every row (as PyTorch's
// SparseAdam and TensorFlow's LazyAdam do), so a row touched at every step follows dense Adam
// exactly: both paths run the same per-element update (update).
type optimizer[T float] struct {
	s     TrainSettings
	t     int            // completed steps
	width int            // state values per parameter element: 2 (Adam), 1 (Adagrad, momentum), 0 (SGD)
	state map[*param][]T // per parameter, interleaved by element: Adam's (m, v), Adagrad's accumulator or the velocity

	// per-step scalars
	lr, stepSize, invSqrtBC2 T
}

// newOptimizer allocates the (zero) state of every parameter of ps. The state of element i is
// state[width·i : width·(i+1)], so that a table row's state is one contiguous block, read with its
// row.
func newOptimizer[T float](s TrainSettings, ps []*param) *optimizer[T] {
	o := &optimizer[T]{s: s, state: map[*param][]T{}, width: s.Optimizer.stateWidth()}
	for _, p := range ps {
		if o.width == 0 {
			continue
		}
		st := make([]T, o.width*p.size())
		adviseHugePages(st)
		touchPages(st)
		o.state[p] = st
	}
	return o
}

// stateWidth is the number of state values the optimiser keeps per parameter value: Adam's two
// moments, Adagrad's sum of squares, the momentum's velocity, none for SGD.
func (o Optimizer) stateWidth() int {
	switch o {
	case OptimizerAdam:
		return 2
	case OptimizerAdagrad, OptimizerMomentum:
		return 1
	}
	return 0
}

// release drops the optimiser's state; the optimiser must not update again.
func (o *optimizer[T]) release() { o.state = nil }

// touchPages writes to every memory page of a freshly allocated (zero) array, so that the
// operating system maps its pages now rather than at the first training steps that reach them:
// a lazily updated table's state is otherwise faulted in a few rows at a time, and the steps
// pay for it.
func touchPages[T float](a []T) {
	stride := 4096 / 4
	if _, ok := any(a).([]float64); ok {
		stride = 4096 / 8
	}
	for i := 0; i < len(a); i += stride {
		a[i] = 0
	}
}

// begin starts step t+1: it computes the step's scalars.
func (o *optimizer[T]) begin() {
	o.t++
	o.lr = T(o.s.LearningRate)
	if o.s.Optimizer == OptimizerAdam {
		bc1 := 1 - math.Pow(o.s.Beta1, float64(o.t))
		bc2 := 1 - math.Pow(o.s.Beta2, float64(o.t))
		o.stepSize = T(o.s.LearningRate / bc1)
		o.invSqrtBC2 = T(1 / math.Sqrt(bc2))
	}
}

// dense updates every element of p with gradient g scaled by scale.
func (o *optimizer[T]) dense(p *param, g []T, scale T) {
	o.update(values[T](p), g, o.state[p], scale)
}

// rows updates the touched rows of the table p with their gradients scaled by scale, in parallel
// over blocks of rows (rows are distinct, so the blocks write disjoint memory).
func (o *optimizer[T]) rows(p *param, rg *rowGrad[T], scale T) {
	st := o.state[p]
	w := values[T](p)
	d, k := rg.dim, o.width
	parallelRows(len(rg.rows), 4*d, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			r := int(rg.rows[i])
			var s []T
			if k > 0 {
				s = st[r*d*k : (r+1)*d*k]
			}
			o.update(w[r*d:(r+1)*d], rg.grad[i*d:(i+1)*d], s, scale)
		}
	})
}

// update applies one step to the weights w with gradient g and the interleaved state st.
func (o *optimizer[T]) update(w, g, st []T, scale T) {
	lr := o.lr
	switch o.s.Optimizer {
	case OptimizerSGD:
		for i, gi := range g {
			w[i] -= lr * (scale * gi)
		}
	case OptimizerMomentum:
		mu := T(o.s.Momentum)
		st = st[:len(g)]
		for i, gi := range g {
			v := mu*st[i] + scale*gi
			st[i] = v
			w[i] -= lr * v
		}
	case OptimizerAdagrad:
		eps := T(o.s.Epsilon)
		st = st[:len(g)]
		for i, gi := range g {
			gi *= scale
			a := st[i] + gi*gi
			st[i] = a
			w[i] -= lr * gi / (T(math.Sqrt(float64(a))) + eps)
		}
	case OptimizerAdam:
		b1, b2 := T(o.s.Beta1), T(o.s.Beta2)
		eps := T(o.s.Epsilon)
		if w, ok := any(w).([]float32); ok {
			// The same loop, eight elements at a time where the processor has AVX2.
			simd.Adam(w, any(g).([]float32), any(st).([]float32), simd.AdamStep{Scale: float32(scale),
				B1: float32(b1), B2: float32(b2), Eps: float32(eps), StepSize: float32(o.stepSize), InvSqrtBC2: float32(o.invSqrtBC2)})
			return
		}
		st = st[:2*len(g)]
		for i, gi := range g {
			gi *= scale
			m := b1*st[2*i] + (1-b1)*gi
			v := b2*st[2*i+1] + (1-b2)*gi*gi
			st[2*i], st[2*i+1] = m, v
			w[i] -= o.stepSize * m / (T(math.Sqrt(float64(v)))*o.invSqrtBC2 + eps)
		}
	}
}
