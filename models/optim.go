package models

import "math"

// optimizer applies SGD, momentum, Adagrad or Adam (PyTorch's update rules) to dense parameters
// and, lazily, to the touched rows of embedding tables: a row's weights and optimiser state
// change only at steps whose batch uses the row, and the work is proportional to the rows
// touched. Adam's bias correction uses the global step count t for every row (as PyTorch's
// SparseAdam and TensorFlow's LazyAdam do), so a row touched at every step follows dense Adam
// exactly: both paths run the same per-element update (update).
type optimizer[T float] struct {
	s     TrainSettings
	t     int               // completed steps
	state map[*param][2][]T // per parameter: Adam's two moments, Adagrad's accumulator or the velocity

	// per-step scalars
	lr, stepSize, invSqrtBC2 T
}

// newOptimizer allocates the (zero) state of every parameter of ps.
func newOptimizer[T float](s TrainSettings, ps []*param) *optimizer[T] {
	o := &optimizer[T]{s: s, state: map[*param][2][]T{}}
	for _, p := range ps {
		var st [2][]T
		switch s.Optimizer {
		case OptimizerAdam:
			st = [2][]T{make([]T, p.size()), make([]T, p.size())}
		case OptimizerAdagrad, OptimizerMomentum:
			st[0] = make([]T, p.size())
		}
		for _, a := range st {
			touchPages(a)
		}
		o.state[p] = st
	}
	return o
}

// touchPages writes to every memory page of a freshly allocated (zero) array, so that the
// operating system maps its pages now rather than at the first training steps that reach them:
// a lazily updated table's state is otherwise faulted in a few rows at a time, and the steps
// pay for it.
func touchPages[T float](a []T) {
	const stride = 4096 / 4
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
	st := o.state[p]
	o.update(values[T](p), g, st[0], st[1], scale)
}

// rows updates the touched rows of the table p with their gradients scaled by scale.
func (o *optimizer[T]) rows(p *param, rg *rowGrad[T], scale T) {
	st := o.state[p]
	w := values[T](p)
	d := rg.dim
	for i, r := range rg.rows {
		lo, hi := int(r)*d, int(r+1)*d
		var s0, s1 []T
		if st[0] != nil {
			s0 = st[0][lo:hi]
		}
		if st[1] != nil {
			s1 = st[1][lo:hi]
		}
		o.update(w[lo:hi], rg.grad[i*d:(i+1)*d], s0, s1, scale)
	}
}

// update applies one step to the aligned slices w (weights), g (gradient), s0, s1 (state).
func (o *optimizer[T]) update(w, g, s0, s1 []T, scale T) {
	lr := o.lr
	switch o.s.Optimizer {
	case OptimizerSGD:
		for i, gi := range g {
			w[i] -= lr * (scale * gi)
		}
	case OptimizerMomentum:
		mu := T(o.s.Momentum)
		for i, gi := range g {
			v := mu*s0[i] + scale*gi
			s0[i] = v
			w[i] -= lr * v
		}
	case OptimizerAdagrad:
		eps := T(o.s.Epsilon)
		for i, gi := range g {
			gi *= scale
			a := s0[i] + gi*gi
			s0[i] = a
			w[i] -= lr * gi / (T(math.Sqrt(float64(a))) + eps)
		}
	case OptimizerAdam:
		b1, b2 := T(o.s.Beta1), T(o.s.Beta2)
		eps := T(o.s.Epsilon)
		for i, gi := range g {
			gi *= scale
			m := b1*s0[i] + (1-b1)*gi
			v := b2*s1[i] + (1-b2)*gi*gi
			s0[i], s1[i] = m, v
			w[i] -= o.stepSize * m / (T(math.Sqrt(float64(v)))*o.invSqrtBC2 + eps)
		}
	}
}
