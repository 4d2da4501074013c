package samplers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/prob"
)

// unconsumed is KindUnconsumed: m items drawn uniformly with replacement for each row alone,
// among the items its query has not consumed (every item but the query's training items,
// Data.Seen), each row's own positive in column 0 (Layout First with PerRow = m, C = 1 + m): the
// negatives of implicit-feedback recommenders, which never contrast a user with an item it
// chose. For row i of a query with S_i training items, each draw is any of the M − |S_i| other
// items with probability 1/(M − |S_i|), so, exactly,
//
//	q_ij = 1/(M − |S_i|),   p_ij = 1 − (1 − q_ij)^m   (j ∉ S_i; an item of S_i is never drawn).
//
// The law is the row's: a correction is a constant within each row, which cancels in its
// softmax. Column 0, the row's positive (an item of S_i, whose q is 0 strictly), and the rows'
// values declare the row's q and p, so that no correction gives the positive an infinite logit.
// A query whose training items are the whole corpus has nothing to draw: Check refuses it.
type unconsumed struct {
	m   int
	err error // the step's error: a row without an unconsumed item
}

func (s *unconsumed) Shape() Shape {
	return Shape{Geometry: candidates.Geometry{Layout: candidates.First, PerRow: s.m}, Seen: true}
}

// Check refuses a query that consumed every item.
func (s *unconsumed) Check(d *Data) error {
	for u, seen := range d.Seen {
		if len(seen) >= d.Items {
			return s.exhausted(d, u)
		}
	}
	return nil
}

// exhausted is the error of query u, whose training items are the whole corpus.
func (s *unconsumed) exhausted(d *Data, u int) error {
	return fmt.Errorf("kind: sampler unconsumed: query %d has all %d items of the corpus among its training items, so no unconsumed item is left to draw", u, d.Items)
}

func (s *unconsumed) Draw(rng *rand.Rand, d *Data, pos, rows []int32) {
	copy(rows, pos)
	r := len(pos)
	s.err = nil
	for i := range r {
		u := d.Queries[i]
		seen := d.Seen[u]
		free := d.Items - len(seen)
		if free <= 0 {
			s.err = s.exhausted(d, int(u))
			return
		}
		for k := range s.m {
			rows[r+i*s.m+k] = unseenItem(seen, rng.IntN(free))
		}
	}
}

// unseenItem is the item of rank x (0-based) among the items that are not in seen (sorted,
// distinct): x plus the number of seen items before it, the largest k with seen[k] − k ≤ x.
func unseenItem(seen []int32, x int) int32 {
	k := sort.Search(len(seen), func(k int) bool { return int(seen[k])-k > x })
	return int32(x + k)
}

func (s *unconsumed) Declare(d *Data, pos, rows []int32, _ Law, c *candidates.Step) error {
	if s.err != nil {
		return s.err
	}
	sh := s.Shape()
	r := len(pos)
	cols := len(c.ColItem) / r
	logQ, logP, posQ, posP := c.Col(candidates.LogQ), c.Col(candidates.LogP), c.Row(candidates.LogQ), c.Row(candidates.LogP)
	c.Estimated = false
	for i := range r {
		q := 1 / float64(d.Items-len(d.Seen[d.Queries[i]]))
		lq, lp := math.Log(q), math.Log(prob.Inclusion(q, s.m))
		posQ[i], posP[i] = lq, lp
		for j := range cols {
			k := i*cols + j
			c.ColItem[k] = candidates.NoItem
			if j > 0 {
				c.ColItem[k] = int64(rows[sh.Row(i, j, r)])
			}
			logQ[k], logP[k] = lq, lp
		}
	}
	return nil
}
