package samplers

import (
	"math"
	"math/rand/v2"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/prob"
)

// uniform is KindUniform: m items drawn uniformly with replacement and shared by every row, each
// row's own positive in column 0 (the sampled softmax of Bengio and Senécal 2008 with a uniform
// proposal; Layout First, C = 1+m): q = 1/M and p = 1 − (1 − 1/M)^m for every item, exactly.
type uniform struct{ m int }

func (s uniform) Shape() Shape {
	return Shape{Geometry: candidates.Geometry{Layout: candidates.First, Extra: s.m, Uniform: true}}
}

func (s uniform) Draw(rng *rand.Rand, d *Data, pos, rows []int32) {
	copy(rows, pos)
	drawUniform(rng, d.Items, rows[len(pos):])
}

// drawUniform fills rows with items drawn uniformly from [0, items), in order.
func drawUniform(rng *rand.Rand, items int, rows []int32) {
	for j := range rows {
		rows[j] = int32(rng.IntN(items))
	}
}

func (s uniform) Declare(d *Data, pos, rows []int32, _ Law, c *candidates.Step) error {
	declareEach(s.Shape(), pos, rows, c, s.uniformLaw(d))
	return nil
}

// ItemLaw declares every item's q = 1/M and p = 1 − (1 − 1/M)^m.
func (s uniform) ItemLaw(d *Data, items []int32, logQ, logP []float64) {
	itemLaw(items, logQ, logP, s.uniformLaw(d))
}

// uniformLaw is the law of m uniform draws from d's corpus: (log q, log p) of any item.
func (s uniform) uniformLaw(d *Data) func(int32) (float64, float64) {
	logM := math.Log(float64(d.Items))
	logP := math.Log(prob.Inclusion(1/float64(d.Items), s.m))
	return func(int32) (float64, float64) { return -logM, logP }
}

// declareEach fills c for the rows of a sampler of shape sh whose items have the
// log-probabilities f(item) = (log q, log p), one entry per column, or per row and column when sh
// draws per row. Column 0 of layout First (each row's own positive, read through the rows'
// values) is item NoItem with the values of its row's positive (of the first row's, for shared
// columns). A padding row's positive (NoItem) and its own draws (none) have log q = log p = 0,
// which no loss reads.
func declareEach(sh Shape, pos, rows []int32, c *candidates.Step, law func(item int32) (logQ, logP float64)) {
	f := func(item int32) (float64, float64) {
		if item == candidates.NoItem {
			return 0, 0
		}
		return law(item)
	}
	logQ, logP := c.Col(candidates.LogQ), c.Col(candidates.LogP)
	r, cols, n := len(pos), len(c.ColItem), 1
	if sh.PerRow > 0 {
		cols, n = cols/r, r
	}
	c.Estimated = false
	for i := range n {
		for j := range cols {
			k := i*cols + j
			if j == 0 && sh.Layout == candidates.First {
				c.ColItem[k] = candidates.NoItem
				logQ[k], logP[k] = f(pos[i])
				continue
			}
			item := rows[sh.Row(i, j, r)]
			c.ColItem[k] = int64(item)
			logQ[k], logP[k] = f(item)
		}
	}
	posQ, posP := c.Row(candidates.LogQ), c.Row(candidates.LogP)
	for i, item := range pos {
		posQ[i], posP[i] = f(item)
	}
}

// itemLaw fills logQ and logP with f of each item.
func itemLaw(items []int32, logQ, logP []float64, f func(item int32) (logQ, logP float64)) {
	for k, item := range items {
		logQ[k], logP[k] = f(item)
	}
}
