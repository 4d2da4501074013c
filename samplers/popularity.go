package samplers

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/prob"
)

// popularity is KindPopularity: m items drawn with replacement with q_j ∝ count_j^β and shared by
// every row, each row's own positive in column 0 (Mikolov et al. 2013's unigram^0.75 sampler at
// β = 0.75; β = 1 is the unigram, β = 0 the uniform; Layout First, C = 1+m): q_j = count_j^β/Σ_k
// count_k^β and p_j = 1 − (1 − q_j)^m exactly. An item without training interactions has q = 0
// for β > 0 and is never drawn.
type popularity struct {
	m    int
	beta float64
	w    []float64 // count^β of each item, built from the first Data seen
	cdf  []float64 // cumulative sums of w
}

// Shape is Layout First with m drawn columns, uniform draws at β = 0 (count^0 = 1 for every item,
// an unseen one included).
func (s *popularity) Shape() Shape {
	return Shape{Geometry: candidates.Geometry{Layout: candidates.First, Extra: s.m, Uniform: s.beta == 0}}
}

// weights builds the cumulative weights of d's counts once.
func (s *popularity) weights(d *Data) []float64 {
	if s.cdf == nil {
		s.w, s.cdf = make([]float64, d.Items), make([]float64, d.Items)
		var sum float64
		for j, c := range d.Counts {
			s.w[j] = math.Pow(float64(c), s.beta)
			sum += s.w[j]
			s.cdf[j] = sum
		}
	}
	return s.cdf
}

func (s *popularity) Draw(rng *rand.Rand, d *Data, pos, rows []int32) {
	cdf := s.weights(d)
	total := cdf[len(cdf)-1]
	copy(rows, pos)
	for j := len(pos); j < len(rows); j++ {
		u := rng.Float64() * total
		rows[j] = int32(sort.Search(len(cdf), func(i int) bool { return cdf[i] > u }))
	}
}

func (s *popularity) Declare(d *Data, pos, rows []int32, _ Law, c *candidates.Step) error {
	declareEach(s.Shape(), pos, rows, c, s.law(d))
	return nil
}

// ItemLaw declares every item's q_j = count_j^β/Σ_k count_k^β and p_j = 1 − (1 − q_j)^m.
func (s *popularity) ItemLaw(d *Data, items []int32, logQ, logP []float64) {
	itemLaw(items, logQ, logP, s.law(d))
}

// law is (log q, log p) of an item.
func (s *popularity) law(d *Data) func(int32) (float64, float64) {
	cdf := s.weights(d)
	total := cdf[len(cdf)-1]
	return func(item int32) (float64, float64) {
		q := s.w[item] / total
		return math.Log(q), math.Log(prob.Inclusion(q, s.m))
	}
}
