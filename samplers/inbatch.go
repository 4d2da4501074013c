package samplers

import (
	"math"
	"math/rand/v2"
)

// inBatch is KindInBatch: the batch's positives, duplicates kept, are every row's candidates (Yi
// et al. 2019, §3; Layout Diagonal, C = B). q and p are the positives' law: q = count/N exactly
// (or inverted from p̂, loss.q_source), p = the estimator's p̂ (Yi et al.'s Algorithm 2).
type inBatch struct{}

func (inBatch) Shape() Shape { return Shape{Layout: LayoutDiagonal, PositiveLaw: true} }

func (inBatch) Draw(_ *rand.Rand, _ *Data, pos, rows []int32) { copy(rows, pos) }

func (inBatch) Declare(d *Data, pos, rows []int32, law Law, c *Columns) error {
	return declareDiagonal(rows, law, c, nil)
}

// declareDiagonal fills c for Layout Diagonal rows from the positives' law, each column's (q, p)
// mapped by extra when it is not nil, and copies the positives' columns to the Pos* fields.
func declareDiagonal(rows []int32, law Law, c *Columns, extra func(q, p float64) (float64, float64)) error {
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
		c.Items[j] = int64(item)
		c.LogP[j] = math.Log(p)
		c.LogQ[j] = math.Log(q)
	}
	b := len(c.PosLogP)
	copy(c.PosLogP, c.LogP[:b])
	copy(c.PosLogQ, c.LogQ[:b])
	return nil
}
