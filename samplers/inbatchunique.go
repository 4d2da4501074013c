package samplers

import (
	"math"
	"math/rand/v2"

	"github.com/samplingbias/workbench/candidates"
)

// inBatchUnique is KindInBatchUnique: k = negatives of the batch's distinct items, chosen
// uniformly without replacement and shared by every row, each row's own positive in column 0
// (Khrylchenko et al. 2025's in-batch negatives, which take the batch's distinct items; Layout
// First, C = 1+k). A batch with D < k distinct items gives all D and leaves the other k − D
// columns empty (Geometry.Unfilled: masked, no row's negatives), as their code does (a random
// permutation of the distinct items cut at k).
//
// Given a batch with D distinct items, each of them is a column with probability min(k, D)/D, at
// most once, among min(k, D) draws, so its expected copies equal its inclusion probability and
// q = p/min(k, D). Unconditionally p_j = E[[j ∈ batch]·min(k, D)/D], which has no closed form:
// the sampler declares the estimate p_j ≈ p̂_j·min(k, D_t)/D_t, with p̂_j the positives' law (the
// estimator's inclusion probability) and D_t this step's number of distinct items
// (candidates.Step.Estimated).
type inBatchUnique struct {
	k        int
	distinct []int32 // the step's distinct items
	stamp    []int   // per item: the last step (1-based) it was seen at
	step     int
}

func (s *inBatchUnique) Shape() Shape {
	return Shape{Geometry: candidates.Geometry{Layout: candidates.First, Extra: s.k, Unfilled: true}, PositiveLaw: true}
}

func (s *inBatchUnique) Draw(rng *rand.Rand, d *Data, pos, rows []int32) {
	if len(s.stamp) != d.Items {
		s.stamp = make([]int, d.Items)
	}
	s.step++
	s.distinct = s.distinct[:0]
	for _, item := range pos {
		if item != candidates.NoItem && s.stamp[item] != s.step { // a padding row has no item
			s.stamp[item] = s.step
			s.distinct = append(s.distinct, item)
		}
	}
	n := len(s.distinct)
	for i := 0; i < min(s.k, n); i++ { // a partial Fisher–Yates shuffle: k of the n, uniformly
		j := i + rng.IntN(n-i)
		s.distinct[i], s.distinct[j] = s.distinct[j], s.distinct[i]
	}
	copy(rows, pos)
	for j := range s.k {
		rows[len(pos)+j] = candidates.NoItem
		if j < n {
			rows[len(pos)+j] = s.distinct[j]
		}
	}
}

func (s *inBatchUnique) Declare(d *Data, pos, rows []int32, law Law, c *candidates.Step) error {
	b, drawn := len(pos), min(s.k, len(s.distinct))
	frac := 1.0 // a step without distinct items has only padding rows, whose law no loss reads
	if drawn > 0 {
		frac = float64(drawn) / float64(len(s.distinct))
	}
	drawn = max(drawn, 1)
	decl := func(row int) (logQ, logP float64, est bool, err error) {
		_, p, est, err := law(row)
		if err != nil {
			return 0, 0, est, err
		}
		p *= frac
		return math.Log(p / float64(drawn)), math.Log(p), est, nil
	}
	logQ, logP, posQ, posP := c.Col(candidates.LogQ), c.Col(candidates.LogP), c.Row(candidates.LogQ), c.Row(candidates.LogP)
	c.Estimated = true
	c.ColItem[0] = candidates.NoItem
	var err error
	if logQ[0], logP[0], _, err = decl(0); err != nil {
		return err
	}
	for j := 1; j < len(c.ColItem); j++ {
		c.ColItem[j] = int64(rows[b+j-1])
		if c.ColItem[j] == candidates.NoItem { // an empty column: log 1, which no loss reads
			logQ[j], logP[j] = 0, 0
			continue
		}
		if logQ[j], logP[j], _, err = decl(b + j - 1); err != nil {
			return err
		}
	}
	for i := range pos {
		if posQ[i], posP[i], _, err = decl(i); err != nil {
			return err
		}
	}
	return nil
}
