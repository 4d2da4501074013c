package samplers

import (
	"math"
	"math/rand/v2"

	"github.com/samplingbias/workbench/candidates"
)

// inBatch is KindInBatch: the batch's positives, duplicates kept, are every row's candidates (Yi
// et al. 2019, §3; Layout Diagonal, C = B). q and p are the positives' law: q = count/N exactly
// (or inverted from p̂, loss.q_source), p = the estimator's p̂ (Yi et al.'s Algorithm 2).
type inBatch struct{}

func (inBatch) Shape() Shape {
	return Shape{Geometry: candidates.Geometry{Layout: candidates.Diagonal}, PositiveLaw: true}
}

func (inBatch) Draw(_ *rand.Rand, _ *Data, pos, rows []int32) { copy(rows, pos) }

func (inBatch) Declare(d *Data, pos, rows []int32, law Law, c *candidates.Step) error {
	return declareDiagonal(rows, law, c, nil)
}

// declareDiagonal fills c for layout Diagonal rows from the positives' law, each column's (q, p)
// mapped by extra when it is not nil, and copies the positives' columns to the rows' values.
func declareDiagonal(rows []int32, law Law, c *candidates.Step, extra func(q, p float64) (float64, float64)) error {
	logQ, logP := c.Col(candidates.LogQ), c.Col(candidates.LogP)
	c.Estimated = false
	for j, item := range rows {
		q, p, est, err := law(j)
		if err != nil {
			return err
		}
		if extra != nil {
			q, p = extra(q, p)
		}
		c.Estimated = c.Estimated || est
		c.ColItem[j] = int64(item)
		logP[j] = math.Log(p)
		logQ[j] = math.Log(q)
	}
	r := len(c.RowItem)
	copy(c.Row(candidates.LogP), logP[:r])
	copy(c.Row(candidates.LogQ), logQ[:r])
	return nil
}
