package samplers

import (
	"math/rand/v2"

	"github.com/samplingbias/workbench/candidates"
)

// Shape is what a sampler is: its geometry (candidates.Geometry: the layout of its columns, its
// drawn, constant and per-row item rows) and whether its declarations read the positives' law.
type Shape struct {
	candidates.Geometry
	// PositiveLaw says that Declare reads the positives' law (Law): the probabilities of the
	// batch's own items, which the trainer takes from the estimator. A sampler without it needs
	// no estimator.
	PositiveLaw bool
	// Seen says that Draw reads each query's training items (Data.Seen), which the trainer then
	// lists.
	Seen bool
	// FillsWithPositive says that the sampler may fill a row's columns it has no candidate for
	// with copies of the row's positive item, which a loss must mask as accidental hits: the
	// trainer requires loss.remove_accidental_hits = true.
	FillsWithPositive bool
}

// Data is what a sampler knows of the training data, fixed for a run, and of the step: the
// rows' queries (Queries, whose values the trainer overwrites at every step) and the current
// model (Towers).
type Data struct {
	Items int // the corpus size M
	// Batch is the batch size B: the rows with a positive of a step (with padding, such as the
	// positions of a sequence's windows, their mean number per step).
	Batch  int
	Counts []int64 // the training count of each item
	N      int     // the number of training interactions, Σ Counts
	// Seen lists each query's training items, sorted and distinct
	// (datasets.Dataset.TrainPositives), for a sampler whose Shape says Seen; nil otherwise.
	Seen [][]int32
	// Queries are the queries of the step's score rows (len R), overwritten at every step before
	// Draw.
	Queries []int32
	// Towers runs the current model's towers without gradient, for the samplers that rank
	// candidates by the model's scores (hard, sce); nil where there is no model.
	Towers Towers
}

// Towers gives a sampler the current model's towers, run without gradient: the embeddings u of
// queries and v of items whose inner products ⟨u, v⟩ are the scores the loss divides by its
// temperature.
type Towers interface {
	// Dim is the embedding dimension d.
	Dim() int
	// Queries returns the query tower's outputs of ids, len(ids)·d row-major, valid until the
	// next call of Queries.
	Queries(ids []int32) ([]float32, error)
	// Items returns the item tower's outputs of ids, len(ids)·d row-major, valid until the next
	// call of Items.
	Items(ids []int32) ([]float32, error)
	// Temperature is the loss's temperature τ at the step: the logits are ⟨u, v⟩/τ.
	Temperature() float64
}

// Checker is implemented by a sampler whose settings must agree with the data: Check returns an
// error naming the key (sampler.negatives, ...) when they do not. The trainer calls it once,
// before the first step.
type Checker interface {
	Check(d *Data) error
}

// Law gives, for item row j among the rows' positives (j < R) or any item row under layout
// Diagonal, the per-draw probability q that one positive of a batch is the row's item and the
// probability p that the batch holds it at least once; estimated says that they come from an
// estimator (Yi et al.'s p̂) rather than a closed form. A padding row's law is q = p = 1.
type Law func(row int) (q, p float64, estimated bool, err error)

// Sampler draws a step's candidate columns and declares their probabilities. Draw is called first
// at every step, then Declare with the same rows; every random draw comes from rng. A Sampler
// that keeps state between steps (memory) implements encoding.BinaryMarshaler and
// encoding.BinaryUnmarshaler, so that a checkpoint saves it and a resumed run draws what an
// uninterrupted one would.
type Sampler interface {
	// Shape is the sampler's geometry and needs; it does not change.
	Shape() Shape
	// Draw fills rows (len Shape().ItemRows(R, M)) with the step's item rows, given the batch's
	// positive items pos (len B, one per example). Under layouts Diagonal and First the first R
	// item rows are the rows' positives: pos itself when each example has one row, else the
	// sampler's choice, NoItem for a padding row.
	Draw(rng *rand.Rand, d *Data, pos, rows []int32)
	// Declare fills c for the rows Draw filled: each column's item (c.ColItem; c.PosCol under
	// layout Corpus), and the side inputs candidates.LogQ and candidates.LogP of the columns and
	// of the rows' positives pos (len R: rows[:R] under Diagonal and First; none when the
	// geometry's QUndefined says the sampler has no law), and any further side input it declares
	// (SideDeclarer). c holds the trainer's allocations (c.Geometry is the
	// sampler's); every slice has its final length (C columns, or R·C for a geometry with
	// columns of each row's own, row i's at i·C), and p is the probability that the item is among
	// row i's candidates (the step's, for shared columns). law is nil unless Shape().PositiveLaw.
	Declare(d *Data, pos, rows []int32, law Law, c *candidates.Step) error
}

// DeclareSides declares on st the side inputs smp fills: candidates.LogQ and candidates.LogP
// (none for a sampler whose probabilities are undefined, candidates.Geometry.QUndefined), and
// those it declares besides (SideDeclarer), each by "sampler <name>" (st.Geometry.Sampler).
func DeclareSides(smp Sampler, st *candidates.Step) error {
	by := "sampler " + st.Geometry.Sampler
	var sides []candidates.Side
	if !st.Geometry.QUndefined {
		sides = []candidates.Side{{Name: candidates.LogQ, By: by}, {Name: candidates.LogP, By: by}}
	}
	if d, ok := smp.(SideDeclarer); ok {
		for _, sd := range d.Sides() {
			sd.By = by
			sides = append(sides, sd)
		}
	}
	for _, sd := range sides {
		if err := st.Declare(sd); err != nil {
			return err
		}
	}
	return nil
}

// SideDeclarer is implemented by a sampler that declares side inputs besides candidates.LogQ and
// candidates.LogP, which its Declare fills (c.Col and c.Row of each name) and a loss reads by
// name (losses.Expr.Side).
type SideDeclarer interface {
	Sides() []candidates.Side
}

// positives is the number of the rows' positives that are items: every row's, less the padding
// rows' (NoItem), whose positive is no other row's negative.
func positives(pos []int32) int {
	n := 0
	for _, it := range pos {
		if it != candidates.NoItem {
			n++
		}
	}
	return n
}

// negatives is the number of a row's negatives under shape sh for the rows' positives pos over
// d's corpus: C − 1, the columns of the rows with a positive (positives) less the row's own.
func negatives(sh Shape, pos []int32, d *Data) int { return sh.Cols(positives(pos), d.Items) - 1 }

// ItemLaw is implemented by a sampler whose per-draw probability q and inclusion probability p of
// an item depend neither on the row nor on the step (uniform, uniform_per_row, popularity, and any
// sampler declaring sampler.declare = "unigram"). A mixture reads a component's law of the other
// component's items through it; a component that draws per row must implement it.
type ItemLaw interface {
	// ItemLaw fills logQ[k] and logP[k] with log q and log p of items[k] (p among a row's
	// candidates).
	ItemLaw(d *Data, items []int32, logQ, logP []float64)
}
