package losses

import (
	"gorgonia.org/gorgonia"

	"github.com/samplingbias/workbench/internal/prob"
)

// Inputs are the graph nodes a loss is built on.
type Inputs struct {
	// Scores is the R×C matrix of raw scores <u_i, v_j>, not divided by τ
	// (the loss applies τ). Its dtype must be the Loss's.
	Scores *gorgonia.Node
	// U (R×d) and V (item rows×d) are the query and candidate embeddings. No variant
	// reads them: mse_gramian computes its Gramian term <UᵀU, VᵀV> = ‖UVᵀ‖²_F
	// exactly from the scores, and its gradient reaches U and V through them.
	U, V *gorgonia.Node
	// LogTemperature is the learnable scalar log τ of learn_temperature
	// (required with it, and only with it): every expression then uses
	// τ = exp(LogTemperature) instead of Settings.Temperature, and the loss's
	// gradient flows into it. Its dtype must be the Loss's.
	LogTemperature *gorgonia.Node
}

// NegativeCount is the convention for the number of negatives m of a row of an
// R×C score matrix: every column except the row's positive, m = C-1 (masked
// columns that are draws, accidental hits and dedupe's copies, still count). It is the m of
// Rawat et al.'s weights 1/m, 1/(m·q) and π_y'/(m·q·π_y) and of expected_count's Q = m·q. A
// shared column without an item under a padded diagonal geometry (a padding row's positive, or a
// memory column holding one) is no draw: the loss counts C less those columns (at least 2), which
// change from step to step.
func NegativeCount(cols int) int { return cols - 1 }

// DrawProb converts a batch-inclusion probability p of an item over n
// independent draws into the per-draw probability q = 1-(1-p)^(1/n), the
// inverse of InclusionProb. It returns NaN unless 0 ≤ p ≤ 1 and n ≥ 1.
//
// The inversion is ill-conditioned as p → 1, and p = 1 gives q = 1, the exact
// inverse only of an exact p: an estimate p̂ that saturated at 1 (or was
// rounded to it) says only that the item is in every step, whatever its q. A
// caller that needs q must treat p̂ = 1 as an error (the trainer does, naming
// the item) or take q from elsewhere (loss.q_source = "counts").
func DrawProb(p float64, n int) float64 { return prob.Draw(p, n) }

// InclusionProb is the probability p = 1-(1-q)^n that an item of per-draw
// probability q appears at least once in n independent draws. It returns NaN
// unless 0 ≤ q ≤ 1 and n ≥ 0.
func InclusionProb(q float64, n int) float64 { return prob.Inclusion(q, n) }

// MixedDrawProb is the per-draw probability of an item under the mixed
// sampler, whose C-1 = inBatch+uniform negative draws are inBatch draws from
// the data distribution (per-draw probability qData) and uniform draws from a
// corpus of corpus items: q = (inBatch·qData + uniform/corpus)/(inBatch+uniform),
// so that m·q is the item's expected count among the negatives. It returns NaN
// for invalid arguments.
func MixedDrawProb(qData float64, inBatch, uniform, corpus int) float64 {
	return prob.Mixed(qData, inBatch, uniform, corpus)
}
