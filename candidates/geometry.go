package candidates

import (
	"errors"
	"fmt"
)

// NoItem is the item of a padding row (Geometry.Padded): its positive among a sampler's item rows
// and in Step.RowItem. In Step.ColItem it also marks column 0 under layout First, each row's own
// positive, whose item is the row's, and an empty drawn column (Geometry.Unfilled), in its item
// row too.
const NoItem = -1

// Layout says where each row's positive sits among a step's columns, and which item rows the
// columns are.
type Layout int

const (
	// Diagonal: the item rows are the R rows' positives, then Extra drawn items and Memory·R
	// constant items, all shared by every row (column j is item row j), then each row's own
	// PerRow items, the last PerRow columns of that row. Row i's positive is column i (in-batch
	// negatives: the other rows' positives are a row's candidates).
	Diagonal Layout = iota
	// First: the item rows are the R rows' positives, then Extra drawn items shared by every row,
	// then each row's own PerRow items. Row i scores its own positive (item row i) in column 0,
	// then the shared items and its own.
	First
	// Corpus: the item rows are the whole corpus, column j is item j; row i's positive is column
	// Step.PosCol[i].
	Corpus
)

// String returns the layout's name.
func (l Layout) String() string {
	switch l {
	case Diagonal:
		return "diagonal"
	case First:
		return "first"
	case Corpus:
		return "corpus"
	}
	return fmt.Sprintf("Layout(%d)", int(l))
}

// Geometry is the shape of a training step's score matrix: R rows (Rows) by C columns (Cols)
// over the step's item rows (ItemRows). The sizes below are in rows R, the step's score rows; a
// batch of b examples has R = Rows(b).
//
// Item rows are what the item tower embeds: the rows' positives, then the shared drawn items,
// then the constant ones, then each row's own, in that order (Row maps a column to its item row).
// The query tower embeds one row per score row, the query of the row's example.
type Geometry struct {
	// Sampler names the sampler whose geometry it is; messages about the geometry name it.
	Sampler string
	// Layout is where each row's positive sits (Diagonal, First, Corpus).
	Layout Layout
	// Extra is the number of drawn item rows every row scores, after the rows' positives
	// (Diagonal, First).
	Extra int
	// Memory is the number of earlier steps whose R positives follow the drawn item rows
	// (Diagonal only, without PerRow), held constant: no gradient flows into their embeddings.
	// They are negatives like the others; with padding, a memory row holding an earlier step's
	// padding row (NoItem) is masked as that row's column was.
	Memory int
	// PerRow is the number of items drawn for each row alone (Diagonal, First): the last R·PerRow
	// item rows, row i's at Shared + i·PerRow, and the last PerRow columns of row i only. The
	// per-column side inputs of such a geometry hold R·C entries, row i's at i·C.
	PerRow int
	// PerExample is the number of score rows of each example of the batch (0 means 1): row r
	// belongs to example r / PerExample, whose query it scores. A sequence trained at every
	// position has one row per position.
	PerExample int
	// Padded says that some rows may be padding: their positive is NoItem. A padding row has no
	// loss and is left out of the mean's denominator, and its positive is no other row's
	// candidate (under Diagonal its column is masked; under Corpus its Step.PosCol is any
	// column).
	Padded bool
	// Unfilled says that some shared drawn columns may have no item at a step (NoItem, their
	// item rows too): a sampler with fewer items to draw than it has columns leaves the rest
	// empty (in_batch_unique when the batch has fewer distinct items than its negatives, as
	// Khrylchenko et al.'s code takes every distinct item then). An empty column is masked from
	// every row and is no row's negative; its item row gets no gradient.
	Unfilled bool
	// Uniform says that the drawn items (Extra and PerRow) are drawn uniformly from the corpus:
	// each draw is any of the M items with probability 1/M. Under layout First a row's negatives
	// are then uniform draws, which a loss calibrated for uniform sampling (gbce) requires.
	Uniform bool
	// QUndefined says that the sampler's draws have no probability law a correction could
	// subtract: they depend on the model's current scores (hard negatives, buckets of random
	// projections), so that no per-draw q, inclusion probability p or expected count exists for
	// an item. Such a sampler declares neither log_q nor log_p, a loss that needs them refuses it
	// (losses.Settings.ResolveFor) and its audit reports "Q undefined".
	QUndefined bool
}

// perExample is the number of score rows per example.
func (g Geometry) perExample() int { return max(g.PerExample, 1) }

// Rows is the number R of score rows of a step over a batch of b examples.
func (g Geometry) Rows(b int) int { return b * g.perExample() }

// Examples is the number of examples of a step of r score rows, r/PerExample.
func (g Geometry) Examples(r int) int { return r / g.perExample() }

// Example is the example of score row i.
func (g Geometry) Example(i int) int { return i / g.perExample() }

// ItemRows is the number of item rows of a step of r score rows over a corpus of m items.
func (g Geometry) ItemRows(r, m int) int {
	if g.Layout == Corpus {
		return m
	}
	return g.Shared(r) + g.PerRow*r
}

// Shared is the number of item rows before the rows' own (Diagonal, First): the rows' positives,
// the drawn items every row scores and the constant ones.
func (g Geometry) Shared(r int) int { return r + g.Extra + g.Memory*r }

// Constant is the number of item rows held constant, the trailing rows before the rows' own.
func (g Geometry) Constant(r int) int { return g.Memory * r }

// Cols is the number of score columns C of a step of r rows over a corpus of m items.
func (g Geometry) Cols(r, m int) int {
	switch g.Layout {
	case Corpus:
		return m
	case First:
		return 1 + g.Extra + g.PerRow
	}
	return g.Shared(r) + g.PerRow
}

// Entries is the length of a per-column side input of a step of r rows over m items: C, or R·C
// when each row has columns of its own (PerRow).
func (g Geometry) Entries(r, m int) int {
	if g.PerRow > 0 {
		return r * g.Cols(r, m)
	}
	return g.Cols(r, m)
}

// Row is the item row of column j of row i in a step of r rows (Diagonal, First): the positives,
// the shared rows and the constant rows in their order, then row i's own. Column 0 under First is
// row i's own positive, item row i.
func (g Geometry) Row(i, j, r int) int {
	shared, first := g.Shared(r), 0 // the item rows every row scores; the column of item row 0
	if g.Layout == First {
		if j == 0 {
			return i
		}
		shared, first = r+g.Extra, r-1
	}
	k := j + first
	if k < shared {
		return k
	}
	return shared + i*g.PerRow + k - shared
}

// Pos is the column of row i's positive under Diagonal (i) and First (0); under Corpus it is
// Step.PosCol[i], and Pos returns -1.
func (g Geometry) Pos(i int) int {
	switch g.Layout {
	case Diagonal:
		return i
	case First:
		return 0
	}
	return -1
}

// Check reports a geometry whose parts do not go together.
func (g Geometry) Check() error {
	var err error
	switch {
	case g.Layout < Diagonal || g.Layout > Corpus:
		err = fmt.Errorf("unknown layout %d", int(g.Layout))
	case g.Extra < 0 || g.Memory < 0 || g.PerRow < 0 || g.PerExample < 0:
		err = fmt.Errorf("negative counts (extra %d, memory %d, per row %d, per example %d)", g.Extra, g.Memory, g.PerRow, g.PerExample)
	case g.Memory > 0 && (g.Layout != Diagonal || g.PerRow > 0):
		err = errors.New("memory rows need layout diagonal without rows of each row's own")
	case g.Layout == Corpus && (g.Extra > 0 || g.PerRow > 0):
		err = errors.New("layout corpus scores the corpus and draws no items")
	}
	if err != nil {
		return fmt.Errorf("the geometry of sampler %s: %w", g.name(), err)
	}
	return nil
}

// name is the sampler's name, or a placeholder when the geometry has none.
func (g Geometry) name() string {
	if g.Sampler == "" {
		return "(unnamed)"
	}
	return g.Sampler
}

// String describes the geometry in the words of messages: the sampler, its layout and columns.
func (g Geometry) String() string {
	s := fmt.Sprintf("sampler %s (layout %v", g.name(), g.Layout)
	if g.Extra > 0 {
		s += fmt.Sprintf(", %d shared drawn columns", g.Extra)
	}
	if g.Memory > 0 {
		s += fmt.Sprintf(", %d memory batches", g.Memory)
	}
	if g.PerRow > 0 {
		s += fmt.Sprintf(", %d columns of each row's own", g.PerRow)
	}
	if g.perExample() > 1 {
		s += fmt.Sprintf(", %d rows per example", g.PerExample)
	}
	if g.Padded {
		s += ", padded"
	}
	if g.Unfilled {
		s += ", unfilled"
	}
	if g.QUndefined {
		s += ", Q undefined"
	}
	return s + ")"
}
