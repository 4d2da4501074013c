package samplers

import (
	"math"
	"math/rand/v2"
)

// full is KindFull: every item of the corpus is a column at every step (the full softmax, Yi et
// al. 2019 eq. 3 over the corpus; Layout Corpus, C = M): p = 1 and, as a uniform proposal, q = 1/M.
type full struct{}

func (full) Shape() Shape { return Shape{Layout: LayoutCorpus} }

func (full) Draw(_ *rand.Rand, _ *Data, _, rows []int32) {
	for j := range rows {
		rows[j] = int32(j)
	}
}

func (full) Declare(d *Data, pos, rows []int32, _ Law, c *Columns) error {
	logQ := -math.Log(float64(d.Items))
	c.Estimated = false
	for j := range c.Items {
		c.Items[j], c.LogP[j], c.LogQ[j] = int64(j), 0, logQ
	}
	for i, item := range pos {
		c.PosCol[i], c.PosLogP[i], c.PosLogQ[i] = int(item), 0, logQ
	}
	return nil
}
