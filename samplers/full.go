package samplers

import (
	"math"
	"math/rand/v2"

	"github.com/samplingbias/workbench/candidates"
)

// full is KindFull: every item of the corpus is a column at every step (the full softmax, Yi et
// al. 2019 eq. 3 over the corpus; Layout Corpus, C = M): p = 1 and, as a uniform proposal, q = 1/M.
type full struct{}

func (full) Shape() Shape { return Shape{Geometry: candidates.Geometry{Layout: candidates.Corpus}} }

func (full) Draw(_ *rand.Rand, _ *Data, _, rows []int32) {
	for j := range rows {
		rows[j] = int32(j)
	}
}

func (full) Declare(d *Data, pos, rows []int32, _ Law, c *candidates.Step) error {
	logQ := -math.Log(float64(d.Items))
	colQ, colP, posQ, posP := c.Col(candidates.LogQ), c.Col(candidates.LogP), c.Row(candidates.LogQ), c.Row(candidates.LogP)
	c.Estimated = false
	for j := range c.ColItem {
		c.ColItem[j], colP[j], colQ[j] = int64(j), 0, logQ
	}
	for i, item := range pos {
		c.PosCol[i], posP[i], posQ[i] = max(int(item), 0), 0, logQ // a padding row's (NoItem) is any column
	}
	return nil
}
