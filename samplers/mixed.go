package samplers

import (
	"math"
	"math/rand/v2"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/prob"
)

// mixed is KindMixed: the batch's positives, then m items drawn uniformly with replacement and
// shared by every row (Yang et al. 2020, "Mixed Negative Sampling"; Layout Diagonal, C = B+m). A
// row's B−1+m negative draws are B−1 draws of the positives' law q̂ and m uniform draws, so
// q = ((B−1)·q̂ + m/M)/(B−1+m) and p = 1 − (1 − p̂)(1 − 1/M)^m.
type mixed struct{ m int }

func (s mixed) Shape() Shape {
	return Shape{Geometry: candidates.Geometry{Layout: candidates.Diagonal, Extra: s.m, Uniform: true}, PositiveLaw: true}
}

func (s mixed) Draw(rng *rand.Rand, d *Data, pos, rows []int32) {
	copy(rows, pos)
	drawUniform(rng, d.Items, rows[len(pos):])
}

func (s mixed) Declare(d *Data, pos, rows []int32, law Law, c *candidates.Step) error {
	b, items := positives(pos), d.Items                // a padding row's positive is no row's negative
	miss := math.Pow(1-1/float64(items), float64(s.m)) // (1 − 1/M)^m
	return declareDiagonal(rows, law, c, func(q, p float64) (float64, float64) {
		return prob.Mixed(q, b-1, s.m, items), 1 - (1-p)*miss
	})
}
