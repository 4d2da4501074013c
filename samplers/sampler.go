package samplers

import "math/rand/v2"

// Layout says how a sampler's columns sit in the B×C score matrix; it is the column shape the
// loss reads (package losses' Layout of the same name).
type Layout int

const (
	// LayoutDiagonal: the item rows are the batch's B positives, then Shape.Extra drawn items;
	// every row scores every item row (C = B + Extra), and row i's positive is column i.
	LayoutDiagonal Layout = iota
	// LayoutFirst: the item rows are the B positives, then Shape.Extra drawn items shared by all
	// rows; row i scores its own positive (column 0) and the shared items (C = 1 + Extra).
	LayoutFirst
	// LayoutCorpus: the item rows are the whole corpus, column j = item j (C = M).
	LayoutCorpus
)

// Shape is the column shape of a sampler's steps.
type Shape struct {
	Layout Layout
	// Extra is the number of drawn item rows after the B positives (LayoutDiagonal, LayoutFirst).
	Extra int
	// Memory is the number of earlier batches whose B positives follow the drawn rows under
	// LayoutDiagonal (memory), held constant: no gradient flows into their embeddings. They are
	// negatives like the others.
	Memory int
	// PositiveLaw says that Declare reads the positives' law (Law): the probabilities of the
	// batch's own items, which the trainer takes from the estimator. A sampler without it needs
	// no estimator.
	PositiveLaw bool
}

// Rows is the number of item rows of a step with batch size b over a corpus of m items.
func (s Shape) Rows(b, m int) int {
	switch s.Layout {
	case LayoutCorpus:
		return m
	case LayoutFirst:
		return b + s.Extra
	}
	return b + s.Extra + s.Memory*b
}

// Constant is the number of trailing item rows held constant (Memory batches of b).
func (s Shape) Constant(b int) int { return s.Memory * b }

// Cols is the number of score columns C of a step with batch size b over a corpus of m items.
func (s Shape) Cols(b, m int) int {
	switch s.Layout {
	case LayoutCorpus:
		return m
	case LayoutFirst:
		return 1 + s.Extra
	}
	return b + s.Extra + s.Memory*b
}

// Data is what a sampler knows of the training data: fixed for a run.
type Data struct {
	Items  int     // the corpus size M
	Batch  int     // the batch size B
	Counts []int64 // the training count of each item
	N      int     // the number of training interactions, Σ Counts
}

// Law gives, for item row j among the batch's positives (j < B) or any item row under
// LayoutDiagonal, the per-draw probability q that one positive of a batch is the row's item and
// the probability p that the batch holds it at least once; estimated says that they come from an
// estimator (Yi et al.'s p̂) rather than a closed form.
type Law func(row int) (q, p float64, estimated bool, err error)

// Columns receives a step's declarations. The trainer allocates every slice with its final length
// (C columns, B rows) and a sampler overwrites them at every step.
type Columns struct {
	// Items is the item of each column (-1 for column 0 under LayoutFirst, each row's own
	// positive).
	Items []int64
	// LogQ is log q of each column, its per-draw probability; (C−1)·q is the expected number of
	// copies of the column's item among a row's C−1 negatives.
	LogQ []float64
	// LogP is log p of each column, the probability that its item is among the step's
	// candidates at least once.
	LogP []float64
	// PosLogQ and PosLogP are the same for each row's positive.
	PosLogQ, PosLogP []float64
	// PosCol is the column of each row's positive under LayoutCorpus (nil otherwise).
	PosCol []int
	// Estimated says that some of the step's declarations come from an estimator.
	Estimated bool
}

// Sampler draws a step's candidate columns and declares their probabilities. Draw is called first
// at every step, then Declare with the same rows; every random draw comes from rng. A Sampler
// that keeps state between steps (memory) implements encoding.BinaryMarshaler and
// encoding.BinaryUnmarshaler, so that a checkpoint saves it and a resumed run draws what an
// uninterrupted one would.
type Sampler interface {
	// Shape is the sampler's column shape; it does not change.
	Shape() Shape
	// Draw fills rows (len Shape().Rows(B, M)) with the step's item rows, given the batch's
	// positive items pos (len B).
	Draw(rng *rand.Rand, d *Data, pos, rows []int32)
	// Declare fills c for the rows Draw filled. law is nil unless Shape().PositiveLaw.
	Declare(d *Data, pos, rows []int32, law Law, c *Columns) error
}
