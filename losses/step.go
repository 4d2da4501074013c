package losses

import (
	"gorgonia.org/gorgonia"

	"github.com/samplingbias/workbench/internal/prob"
)

// Layout says where each row's positive sits in the B×C score matrix.
type Layout int

const (
	// Diagonal: the positive of row i is column i (in-batch B×B; the mixed
	// sampler appends its m uniform columns: B×(B+m)).
	Diagonal Layout = iota
	// First: the positive of every row is column 0 (each row's own positive
	// item); columns 1..m are sampled negatives shared by all rows (B×(1+m)).
	First
	// Indexed: the positive of row i is column Step.PosCol[i] (full corpus:
	// B×M, column j = item j).
	Indexed
)

// String returns the layout's name.
func (l Layout) String() string {
	switch l {
	case Diagonal:
		return "diagonal"
	case First:
		return "first"
	case Indexed:
		return "indexed"
	}
	return "unknown"
}

// Step is the per-step side information of a loss node. The trainer owns one
// *Step per graph and overwrites its contents (same slices, same lengths)
// before every run of the tape machine; the fused loss op reads it when it
// executes, and an expression's binding copies it into the expression's
// input nodes (Expr) before the expression runs. All log-probabilities are natural logs. A field a variant does not
// use may be nil; the ones it uses are checked (length, finiteness) at every
// execution.
type Step struct {
	// Layout must equal Loss.Layout().
	Layout Layout
	// PosCol (len B, Indexed only) is the column of each row's positive.
	PosCol []int
	// RowItem (len B) is the item id of each row's positive; ColItem (len C)
	// the item id of each column (-1 for column 0 under First). Both are read
	// only when accidental hits are removed.
	RowItem []int64
	ColItem []int64
	// LogP (len C) is log p̂_j, the estimated probability that the column's
	// item is in the candidate set of a step at least once (Yi et al.'s p̂, at
	// most 1 however many copies the step holds); the Q(y|x) of logq, nce and
	// sampled_logistic with logq_probability = inclusion or dedupe.
	LogP []float64
	// LogQ (len C) is log q_j, the sampler's per-draw probability of the
	// column's item (Rawat et al.'s q; importance, relative, tail; m·q_j, m =
	// C−1, is the expected number of copies of the item among a row's m
	// negative draws, the Q of logq_probability = expected_count; mse_gramian's
	// column weights 1/(M·q_j)).
	LogQ []float64
	// LogPrior (len C) is log π_j, the training label prior (tail,
	// logit_adjusted). -Inf (π_j = 0) is allowed: the column then gets weight 0.
	LogPrior []float64
	// PosLogP, PosLogQ, PosLogPrior (len B) are the same three quantities
	// for each row's positive item. The positive's column always uses these,
	// never the column arrays.
	PosLogP, PosLogQ, PosLogPrior []float64
	// Rewards (len B) are the per-example rewards r_i of Yi et al. eq. (4);
	// nil means all 1. A negative reward is an error.
	Rewards []float64
	// Items is the corpus size M. mse_gramian reads it under Layout Diagonal,
	// where it weights Gramian column j by 1/(M·q_j) (q_j from LogQ).
	Items int
}

// Inputs are the graph nodes a loss is built on.
type Inputs struct {
	// Scores is the B×C matrix of raw scores <u_i, v_j>, not divided by τ
	// (the loss applies τ). Its dtype must be the Loss's.
	Scores *gorgonia.Node
	// U (B×d) and V (C×d) are the query and candidate embeddings. No variant
	// reads them: mse_gramian computes its Gramian term <UᵀU, VᵀV> = ‖UVᵀ‖²_F
	// exactly from the scores, and its gradient reaches U and V through them.
	U, V *gorgonia.Node
	// LogTemperature is the learnable scalar log τ of learn_temperature
	// (required with it, and only with it): every expression then uses
	// τ = exp(LogTemperature) instead of Settings.Temperature, and the loss's
	// gradient flows into it. Its dtype must be the Loss's.
	LogTemperature *gorgonia.Node
}

// NegativeCount is the convention for the number of negatives m of a row of a
// B×C score matrix: every column except the row's positive, m = C-1 (masked
// accidental hits still count as draws). It is the m of Rawat et al.'s
// weights 1/m, 1/(m·q) and π_y'/(m·q·π_y).
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
