package samplers

import (
	"math/rand/v2"

	"github.com/samplingbias/workbench/candidates"
)

// uniformPerRow is KindUniformPerRow: m items drawn uniformly with replacement for each row
// alone, each row's own positive in column 0 (the sampled softmax of Jean et al. 2015 and
// Bengio and Senécal 2008 with a uniform proposal drawn per example; Khrylchenko et al. 2025
// draw their uniform negatives so; Layout First with PerRow = m, C = 1+m): q = 1/M and, among a
// row's candidates, p = 1 − (1 − 1/M)^m for every item, exactly. A step scores B·m drawn items
// where uniform scores m.
type uniformPerRow struct{ m int }

func (s uniformPerRow) Shape() Shape {
	return Shape{Geometry: candidates.Geometry{Layout: candidates.First, PerRow: s.m, Uniform: true}}
}

// Draw draws each row's m items in turn; a padding row (positive NoItem) draws none, its item
// rows NoItem: it has no loss, and the rows with a positive draw what they would without it.
func (s uniformPerRow) Draw(rng *rand.Rand, d *Data, pos, rows []int32) {
	copy(rows, pos)
	own := rows[len(pos):]
	for i, item := range pos {
		row := own[i*s.m : (i+1)*s.m]
		if item == candidates.NoItem {
			for j := range row {
				row[j] = candidates.NoItem
			}
			continue
		}
		drawUniform(rng, d.Items, row)
	}
}

func (s uniformPerRow) Declare(d *Data, pos, rows []int32, _ Law, c *candidates.Step) error {
	declareEach(s.Shape(), pos, rows, c, s.uniformLaw(d))
	return nil
}

// ItemLaw declares every item's q = 1/M and p = 1 − (1 − 1/M)^m.
func (s uniformPerRow) ItemLaw(d *Data, items []int32, logQ, logP []float64) {
	itemLaw(items, logQ, logP, s.uniformLaw(d))
}

// uniformLaw is the law of m uniform draws from d's corpus.
func (s uniformPerRow) uniformLaw(d *Data) func(int32) (float64, float64) {
	return uniform{m: s.m}.uniformLaw(d)
}
