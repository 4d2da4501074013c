package candidates

import (
	"fmt"
	"strings"
)

// The side inputs every training step has, by name.
const (
	// LogQ is log q of each column's item and each row's positive: the sampler's per-draw
	// probability (Rawat et al.'s q; (C−1)·q is the expected number of copies of the item among a
	// row's C−1 negative draws). Declared by the sampler.
	LogQ = "log_q"
	// LogP is log p: the probability that the item is among the step's candidates at least once
	// (among the row's, for columns of each row's own). Declared by the sampler.
	LogP = "log_p"
	// LogPrior is log π, the training label prior of the item (its add-one smoothed training
	// frequency). Declared by the data.
	LogPrior = "log_prior"
	// Rewards are the rewards r_i of the rows' examples (Yi et al. eq. 4), ≥ 0; a padding row's
	// is 0. Declared by the data.
	Rewards = "rewards"
	// Positives marks the known positives of each row among its columns (PerEntry): 1 at every
	// column whose item is one of the training items of the row's query (the row's own positive
	// column included), 0 elsewhere. Declared by the data, for the losses of several positives
	// per query (losses' login and logout), which count these columns as positives rather than
	// negatives.
	Positives = "positives"
)

// Kind says what a side input has a value for.
type Kind int

const (
	// PerItem: a value for the item of each column (Step.Col: C values, or R·C with columns of
	// each row's own) and for each row's positive (Step.Row: R values).
	PerItem Kind = iota
	// PerRow: a value for each row (Step.Row: R values).
	PerRow
	// PerEntry: a value for some entries (i, j) of the R×C score matrix, 0 at every other, held
	// sparsely (Step.Entries: the entries' flat indices i·C + j, ascending, and their values),
	// since most entries are 0 and C may be the whole corpus.
	PerEntry
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case PerRow:
		return "per row"
	case PerEntry:
		return "per entry"
	}
	return "per item"
}

// Side declares a named side input.
type Side struct {
	// Name is lower-case snake_case, e.g. "log_q".
	Name string
	Kind Kind
	// By names the producer, e.g. "sampler uniform" or "data": messages name it.
	By string
}

// Step is one training step's candidates: the geometry, each row's and each column's item, and
// the named side inputs. The producers of a step declare its side inputs once (Declare), and
// overwrite the step's contents, same slices and same lengths, before every run of the training
// graph; the loss reads it when the graph runs. A sampler writes ColItem, PosCol, Estimated and
// the side inputs it declares; the trainer writes RowItem and the data's side inputs.
type Step struct {
	Geometry Geometry
	// Items is the corpus size M.
	Items int
	// PosCol (R, layout Corpus only) is the column of each row's positive.
	PosCol []int
	// RowItem (R) is the item of each row's positive (NoItem for a padding row).
	RowItem []int64
	// ColItem (C, or R·C with columns of each row's own, row i's at i·C) is the item of each
	// column: NoItem for column 0 under layout First (each row's own positive, RowItem), for
	// the column of a padding row's positive and for an empty drawn column (Geometry.Unfilled).
	ColItem []int64
	// Estimated says that some of the sampler's declarations come from an estimator.
	Estimated bool

	sides []vectors
}

// vectors are the values of one side input: per column and per row, or (PerEntry) the flat
// indices of its entries and their values.
type vectors struct {
	Side
	col, row []float64
	idx      []int
}

// NewStep returns a step of geometry g for a batch of b examples over a corpus of m items, with
// its item slices allocated (PosCol under layout Corpus) and no side input.
func NewStep(g Geometry, b, m int) *Step {
	r := g.Rows(b)
	s := &Step{Geometry: g, Items: m, RowItem: make([]int64, r), ColItem: make([]int64, g.Entries(r, m))}
	if g.Layout == Corpus {
		s.PosCol = make([]int, r)
	}
	return s
}

// Declare adds the side input sd with vectors of the step's lengths (len(ColItem) and
// len(RowItem)), zeroed; a PerEntry side input starts with no entries. A name already declared
// is an error naming both producers.
func (s *Step) Declare(sd Side) error {
	if err := checkName(sd.Name); err != nil {
		return err
	}
	if k := s.find(sd.Name); k >= 0 {
		return fmt.Errorf("candidates: side input %s is declared by %s and by %s", sd.Name, s.sides[k].By, sd.By)
	}
	v := vectors{Side: sd}
	switch sd.Kind {
	case PerItem:
		v.col, v.row = make([]float64, len(s.ColItem)), make([]float64, len(s.RowItem))
	case PerRow:
		v.row = make([]float64, len(s.RowItem))
	}
	s.sides = append(s.sides, v)
	return nil
}

// Entries returns the entries of the PerEntry side input name: their flat indices i·C + j in
// the R×C score matrix, ascending, and their values (nil if there is none). The slices are the
// step's: its producer overwrites them at every step.
func (s *Step) Entries(name string) (idx []int, val []float64) {
	if k := s.find(name); k >= 0 {
		return s.sides[k].idx, s.sides[k].col
	}
	return nil, nil
}

// SetEntries replaces the entries of the PerEntry side input name, declared before: their flat
// indices (ascending, each in [0, R·C)) and values, of equal lengths. The step keeps the slices.
func (s *Step) SetEntries(name string, idx []int, val []float64) error {
	k := s.find(name)
	switch {
	case k < 0:
		return fmt.Errorf("candidates: side input %s is not declared", name)
	case s.sides[k].Kind != PerEntry:
		return fmt.Errorf("candidates: side input %s has a value %v, not per entry", name, s.sides[k].Kind)
	case len(idx) != len(val):
		return fmt.Errorf("candidates: side input %s: %d entries and %d values", name, len(idx), len(val))
	}
	s.sides[k].idx, s.sides[k].col = idx, val
	return nil
}

// Set declares the side input sd with the given vectors, or replaces the vectors of the side
// input of that name: col (nil for PerRow) and row. Their lengths are checked where they are
// read.
func (s *Step) Set(sd Side, col, row []float64) {
	v := vectors{Side: sd, col: col, row: row}
	if k := s.find(sd.Name); k >= 0 {
		s.sides[k] = v
		return
	}
	s.sides = append(s.sides, v)
}

// checkName requires a lower-case snake_case name.
func checkName(name string) error {
	ok := name != "" && name[0] >= 'a' && name[0] <= 'z'
	for _, r := range name {
		ok = ok && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_')
	}
	if !ok {
		return fmt.Errorf("candidates: side input name %q is not lower-case snake_case", name)
	}
	return nil
}

func (s *Step) find(name string) int {
	for k := range s.sides {
		if s.sides[k].Name == name {
			return k
		}
	}
	return -1
}

// Lookup returns the declaration of the side input name.
func (s *Step) Lookup(name string) (Side, bool) {
	if k := s.find(name); k >= 0 {
		return s.sides[k].Side, true
	}
	return Side{}, false
}

// Col returns the per-column values of the side input name (PerItem), nil if there is none.
func (s *Step) Col(name string) []float64 {
	if k := s.find(name); k >= 0 && s.sides[k].Kind == PerItem {
		return s.sides[k].col
	}
	return nil
}

// Row returns the per-row values of the side input name: each row's own (PerRow), or those of
// each row's positive item (PerItem); nil if there is none.
func (s *Step) Row(name string) []float64 {
	if k := s.find(name); k >= 0 {
		return s.sides[k].row
	}
	return nil
}

// Sides returns the declarations of the step's side inputs, in the order they were declared.
func (s *Step) Sides() []Side {
	out := make([]Side, len(s.sides))
	for k, v := range s.sides {
		out[k] = v.Side
	}
	return out
}

// Describe lists the step's side inputs with their producers, for messages: "log_q, log_p
// (sampler uniform); rewards (data)".
func (s *Step) Describe() string {
	if len(s.sides) == 0 {
		return "none"
	}
	var parts []string
	for k := 0; k < len(s.sides); {
		by := s.sides[k].By
		var names []string
		for ; k < len(s.sides) && s.sides[k].By == by; k++ {
			names = append(names, s.sides[k].Name)
		}
		part := strings.Join(names, ", ")
		if by != "" {
			part += " (" + by + ")"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "; ")
}

// Padding reports whether row i is padding: the geometry is Padded and the row's positive is
// NoItem.
func (s *Step) Padding(i int) bool { return s.Geometry.Padded && s.RowItem[i] == NoItem }
