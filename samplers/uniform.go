package samplers

import (
	"math"
	"math/rand/v2"

	"github.com/samplingbias/workbench/internal/prob"
)

// uniform is KindUniform: m items drawn uniformly with replacement and shared by every row, each
// row's own positive in column 0 (the sampled softmax of Bengio and Senécal 2008 with a uniform
// proposal; Layout First, C = 1+m): q = 1/M and p = 1 − (1 − 1/M)^m for every item, exactly.
type uniform struct{ m int }

func (s uniform) Shape() Shape { return Shape{Layout: LayoutFirst, Extra: s.m} }

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

func (s uniform) Declare(d *Data, pos, rows []int32, _ Law, c *Columns) error {
	logM := math.Log(float64(d.Items))
	logP := math.Log(prob.Inclusion(1/float64(d.Items), s.m))
	declareShared(pos, rows, c, func(int32) (float64, float64) { return -logM, logP })
	return nil
}

// declareShared fills c for Layout First rows whose items have the log-probabilities f(item) =
// (log q, log p); column 0 (each row's own positive, read through the Pos* fields) takes the
// values of the first row's positive.
func declareShared(pos, rows []int32, c *Columns, f func(item int32) (logQ, logP float64)) {
	b := len(pos)
	c.Estimated = false
	c.Items[0] = -1
	c.LogQ[0], c.LogP[0] = f(pos[0])
	for j := 1; j < len(c.Items); j++ {
		item := rows[b+j-1]
		c.Items[j] = int64(item)
		c.LogQ[j], c.LogP[j] = f(item)
	}
	for i, item := range pos {
		c.PosLogQ[i], c.PosLogP[i] = f(item)
	}
}
