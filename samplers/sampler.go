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
	// PerRow is the number of items drawn for each row alone (Layout Diagonal and First): the
	// last item rows are B blocks of PerRow, row i's at Rows − (B − i)·PerRow, and they are the
	// last PerRow columns of row i only. A shape with PerRow > 0 declares per row: Columns'
	// column slices hold B·C entries. It excludes Memory.
	PerRow int
	// PositiveLaw says that Declare reads the positives' law (Law): the probabilities of the
	// batch's own items, which the trainer takes from the estimator. A sampler without it needs
	// no estimator.
	PositiveLaw bool
}

// Rows is the number of item rows of a step with batch size b over a corpus of m items.
func (s Shape) Rows(b, m int) int {
	if s.Layout == LayoutCorpus {
		return m
	}
	return b + s.Extra + s.Memory*b + s.PerRow*b
}

// Constant is the number of trailing item rows held constant (Memory batches of b).
func (s Shape) Constant(b int) int { return s.Memory * b }

// Cols is the number of score columns C of a step with batch size b over a corpus of m items.
func (s Shape) Cols(b, m int) int {
	switch s.Layout {
	case LayoutCorpus:
		return m
	case LayoutFirst:
		return 1 + s.Extra + s.PerRow
	}
	return b + s.Extra + s.Memory*b + s.PerRow
}

// Entries is the length of Columns' column slices for batch size b over m items: C, or B·C when
// the shape draws per row.
func (s Shape) Entries(b, m int) int {
	if s.PerRow > 0 {
		return b * s.Cols(b, m)
	}
	return s.Cols(b, m)
}

// Row is the item row of column j of row i at batch size b (Layout Diagonal and First): the
// positives, the shared rows and the memory rows in their order, then row i's own PerRow. Column
// 0 of Layout First is row i's own positive, item row i.
func (s Shape) Row(i, j, b int) int {
	shared := b + s.Extra + s.Memory*b // the item rows every row scores
	first := 0                         // the column of item row 0
	if s.Layout == LayoutFirst {
		if j == 0 {
			return i
		}
		shared, first = b+s.Extra, b-1
	}
	r := j + first
	if r < shared {
		return r
	}
	return shared + i*s.PerRow + r - shared
}

// Pos is the column of row i's positive (Layout Diagonal and First).
func (s Shape) Pos(i int) int {
	if s.Layout == LayoutFirst {
		return 0
	}
	return i
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
// (C columns, or B·C entries for a shape that draws per row; B rows) and a sampler overwrites
// them at every step. Under PerRow, entry i·C + j is column j of row i, and p is the probability
// that the item is among row i's candidates (the step's candidates, for shared columns).
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

// ItemLaw is implemented by a sampler whose per-draw probability q and inclusion probability p of
// an item depend neither on the row nor on the step (uniform, uniform_per_row, popularity, and any
// sampler declaring sampler.declare = "unigram"). A mixture reads a component's law of the other
// component's items through it; a component that draws per row must implement it.
type ItemLaw interface {
	// ItemLaw fills logQ[k] and logP[k] with log q and log p of items[k] (p among a row's
	// candidates).
	ItemLaw(d *Data, items []int32, logQ, logP []float64)
}
