package losses

import "github.com/samplingbias/workbench/candidates"

// StepBytes estimates the memory of a loss's training step over the candidates of geometry g for
// a batch of b examples over a corpus of m items, in bytes of elem-byte values: three R×C
// matrices, the scores, their gradient and the fused kernel's working representation of it (an
// expression keeps more intermediates).
func StepBytes(g candidates.Geometry, b, m int, elem float64) float64 {
	r := g.Rows(b)
	return 3 * float64(r) * float64(g.Cols(r, m)) * elem
}
