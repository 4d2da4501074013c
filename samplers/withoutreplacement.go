package samplers

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/prob"
)

// withoutReplacement is KindUniformWithoutReplacement and KindPopularityWithoutReplacement: m
// distinct items drawn by successive sampling, each draw one of the items not drawn yet with
// probability proportional to its weight (count^β for popularity_without_replacement, 1 for
// uniform_without_replacement), shared by every row, each row's own positive in column 0
// (Layout First, C = 1 + m).
//
// An item is among the m at most once, so its inclusion probability π_j is also its expected
// number of copies among a row's negatives. π is not the weights' m·w_j/Σw: the heavy items are
// taken early and the later draws spread over the light ones (for a heavy item m·w_j/Σw can
// exceed 1). The sampler computes π exactly once per run (prob.SuccessiveInclusion; m/M for every
// item when uniform) and declares
//
//	p_j = π_j,   q_j = π_j/m,
//
// so that the expected count (C − 1)·q_j of logq_probability = "expected_count" is π_j, as is the
// inclusion probability of "inclusion" and "dedupe": no per-draw q exists (the k-th draw's law
// moves toward the light items as k grows), and q is the draws' average law, the convention of
// every sampler (n_j = (C − 1)·q_j). docs/samplers.md §5c derives it. A draw of more items than
// have a positive weight is an error naming sampler.negatives (Check).
type withoutReplacement struct {
	m       int
	beta    float64
	uniform bool
	w       []float64 // each item's weight, from the first Data seen
	pi      []float64 // each item's inclusion probability
	tree    fenwick   // the weights, from which a step's draws remove the items drawn
	drawn   []int     // per item: the last step (1-based) it was drawn at
	step    int
}

// newWithoutReplacement returns the sampler of m draws; uniform says that every weight is 1.
func newWithoutReplacement(m int, beta float64, uniform bool) *withoutReplacement {
	return &withoutReplacement{m: m, beta: beta, uniform: uniform}
}

// Shape is Layout First with m drawn columns, uniform draws when the weights are equal (each
// draw, marginally, any item with probability 1/M).
func (s *withoutReplacement) Shape() Shape {
	return Shape{Geometry: candidates.Geometry{Layout: candidates.First, Extra: s.m, Uniform: s.uniform || s.beta == 0}}
}

// weights sets the items' weights, their tree and their inclusion probabilities from d, once.
func (s *withoutReplacement) weights(d *Data) error {
	if s.w != nil {
		return nil
	}
	w := make([]float64, d.Items)
	for j := range w {
		w[j] = 1
		if !s.uniform {
			w[j] = math.Pow(float64(d.Counts[j]), s.beta)
		}
	}
	pi, err := prob.SuccessiveInclusion(w, s.m)
	if err != nil {
		return s.tooMany(w)
	}
	s.w, s.pi, s.tree, s.drawn = w, pi, newFenwick(w), make([]int, d.Items)
	return nil
}

// tooMany is the error of m draws from fewer items of positive weight.
func (s *withoutReplacement) tooMany(w []float64) error {
	positive := 0
	for _, v := range w {
		if v > 0 {
			positive++
		}
	}
	if s.uniform {
		return fmt.Errorf("negatives: %d distinct items drawn without replacement from a corpus of %d items; lower sampler.negatives", s.m, len(w))
	}
	return fmt.Errorf("negatives: %d distinct items drawn without replacement, and %d of the corpus's %d items have a positive weight count^β (β = %v); lower sampler.negatives",
		s.m, positive, len(w), s.beta)
}

// Check refuses a draw of more items than have a positive weight.
func (s *withoutReplacement) Check(d *Data) error { return s.weights(d) }

func (s *withoutReplacement) Draw(rng *rand.Rand, d *Data, pos, rows []int32) {
	copy(rows, pos)
	if s.weights(d) != nil {
		return // Declare reports it
	}
	s.step++
	s.tree.draw(rng, s.w, s.drawn, s.step, rows[len(pos):])
}

func (s *withoutReplacement) Declare(d *Data, pos, rows []int32, _ Law, c *candidates.Step) error {
	if err := s.weights(d); err != nil {
		return err
	}
	declareEach(s.Shape(), pos, rows, c, s.law)
	return nil
}

// ItemLaw declares every item's q = π/m and p = π.
func (s *withoutReplacement) ItemLaw(d *Data, items []int32, logQ, logP []float64) {
	if s.weights(d) != nil {
		for k := range items {
			logQ[k], logP[k] = math.NaN(), math.NaN()
		}
		return
	}
	itemLaw(items, logQ, logP, s.law)
}

// law is (log q, log p) = (log(π/m), log π) of an item.
func (s *withoutReplacement) law(item int32) (float64, float64) {
	logPi := math.Log(s.pi[item])
	return logPi - math.Log(float64(s.m)), logPi
}

// fenwick is a Fenwick tree of item weights (tree[k], 1-based, holds the sum of the weights of
// the items (k − lowbit(k), k]): a weighted draw in O(log M), and a draw without replacement by
// removing the items drawn, the nodes they touched restored from base after the step.
type fenwick struct {
	tree, base []float64
	touched    []int
}

func newFenwick(w []float64) fenwick {
	f := fenwick{tree: make([]float64, len(w)+1)}
	for i, v := range w {
		f.tree[i+1] += v
		if up := i + 1 + (i+1)&-(i+1); up <= len(w) {
			f.tree[up] += f.tree[i+1]
		}
	}
	f.base = append([]float64(nil), f.tree...)
	return f
}

// left is the weight of the items not removed: the tree's prefix sum over every item.
func (f *fenwick) left() float64 {
	s := 0.0
	for k := len(f.tree) - 1; k > 0; k -= k & -k {
		s += f.tree[k]
	}
	return s
}

// find returns the item whose cumulative weight interval holds u ∈ [0, total): the largest
// prefix whose sum is ≤ u, as an item index (len(w) when rounding puts u past the end).
func (f *fenwick) find(u float64) int {
	n := len(f.tree) - 1
	step := 1
	for step*2 <= n {
		step *= 2
	}
	pos := 0
	for ; step > 0; step /= 2 {
		if next := pos + step; next <= n && f.tree[next] <= u {
			pos = next
			u -= f.tree[next]
		}
	}
	return pos
}

// remove subtracts item i's weight v from the tree, remembering the nodes it changes.
func (f *fenwick) remove(i int, v float64) {
	for k := i + 1; k < len(f.tree); k += k & -k {
		f.tree[k] -= v
		f.touched = append(f.touched, k)
	}
}

// restore puts back every node remove changed, exactly.
func (f *fenwick) restore() {
	for _, k := range f.touched {
		f.tree[k] = f.base[k]
	}
	f.touched = f.touched[:0]
}

// draw fills out with len(out) distinct items drawn by successive sampling from the weights w:
// each draw takes one of the items not drawn yet with probability proportional to its weight.
// drawn marks each item drawn at this step with stamp. A draw that rounding lands on an item
// already drawn, of weight 0 or past the end is drawn again.
func (f *fenwick) draw(rng *rand.Rand, w []float64, drawn []int, stamp int, out []int32) {
	for k := range out {
		left := f.left()
		for {
			i := f.find(rng.Float64() * left)
			if i >= len(w) || drawn[i] == stamp || w[i] == 0 {
				continue
			}
			drawn[i] = stamp
			f.remove(i, w[i])
			out[k] = int32(i)
			break
		}
	}
	f.restore()
}
