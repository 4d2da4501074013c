package samplers

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/prob"
	"github.com/samplingbias/workbench/internal/reuse"
)

// AuditHead is the number of most frequent training items whose worst relative error
// Audit.Summary reports.
const AuditHead = 10

// Audit accumulates, over the steps of a run, what a sampler declared and what it drew: per item,
// the declared inclusion probability p and expected copies among a row's negatives (C−1)·q, and
// the empirical frequency of the item being a column and its mean number of copies among a row's
// negatives. The declared values are averaged over the steps at which the item was a column (they
// are the same at every step for an exact law; for an estimate, the values the loss subtracted).
// It also checks every step's declarations, and Check judges them (see Check).
type Audit struct {
	steps      int
	declared   []float64 // steps at which the item was a column (row-steps/B under PerRow)
	declP      []float64 // Σ declared p over those steps
	declCopies []float64 // Σ declared (C−1)·q over those steps
	copies     []float64 // Σ over steps of the item's mean copies among a row's negatives
	incl2      []float64 // Σ over steps of the square of the step's share of declared
	copies2    []float64 // Σ over steps of the square of the step's share of copies
	lastSeen   []int     // the last step at which the item was counted (1-based)
	// The current step's share of declared and copies, of the items in stepItems; inStep is the
	// step at which each item was last added to stepItems, colAt its first column then.
	stepIncl, stepCopies []float64
	stepItems            []int64
	inStep, colAt        []int
	// perRow and layout are the shape's: the tolerance of the inclusion and whether copies are
	// compared (Check).
	perRow bool
	layout candidates.Layout
	// invalid is the first declaration of a step that is no probability (checkStep).
	invalid error
	// undefined says that the sampler has no law (candidates.Geometry.QUndefined): the audit
	// counts the draws and has no declaration to compare them with.
	undefined bool
	zeros     []float64 // the declarations' stand-in when undefined
}

// NewAudit returns an empty audit of a corpus of items items.
func NewAudit(items int) *Audit {
	f := func() []float64 { return make([]float64, items) }
	return &Audit{declared: f(), declP: f(), declCopies: f(), copies: f(), incl2: f(), copies2: f(),
		stepIncl: f(), stepCopies: f(), lastSeen: make([]int, items), inStep: make([]int, items), colAt: make([]int, items)}
}

// Observe adds one step: the columns c a sampler of shape sh declared. Under PerRow, an item's
// inclusion is counted per row (the fraction of the step's rows whose columns hold it) and its
// declarations are averaged over those rows. Padding rows (and their columns) are left out.
func (a *Audit) Observe(sh Shape, c *candidates.Step) {
	a.steps++
	a.undefined = a.undefined || sh.QUndefined
	a.perRow, a.layout = sh.PerRow > 0, sh.Layout
	defer a.endStep()
	b := len(c.RowItem)
	valid := b
	for i := range b {
		if c.Padding(i) {
			valid--
		}
	}
	if valid == 0 {
		return
	}
	logQ, logP := c.Col(candidates.LogQ), c.Col(candidates.LogP)
	if a.undefined { // no declaration: zeros stand for it, never read
		a.zeros = reuse.Grow(a.zeros, len(c.ColItem))
		logQ, logP = a.zeros, a.zeros
	}
	if sh.PerRow > 0 {
		a.observeRows(sh, c, logQ, logP, valid)
	} else {
		a.observeShared(sh, c, logQ, logP, valid)
	}
	if !a.undefined && a.invalid == nil {
		a.invalid = a.checkStep(sh, c)
	}
}

// observeShared is Observe for a shape whose columns every row shares, over its valid rows.
func (a *Audit) observeShared(sh Shape, c *candidates.Step, logQ, logP []float64, valid int) {
	b := len(c.RowItem)
	m := float64(len(c.ColItem) - 1)
	if masked(sh) {
		m = negativesAmong(sh, c.ColItem)
	}
	perRow := 1 / float64(valid)
	for j, item := range c.ColItem {
		if item < 0 {
			continue
		}
		a.stepCopies[item]++ // a negative of every row, less its own positive's rows (below)
		a.declare(item, j, a.steps, 1, m, logP[j], logQ[j])
	}
	for i := range b {
		var item int64 = candidates.NoItem
		switch sh.Layout {
		case candidates.Diagonal:
			item = c.ColItem[i]
		case candidates.Corpus:
			item = c.ColItem[c.PosCol[i]]
		}
		if item >= 0 {
			a.stepCopies[item] -= perRow
		}
	}
}

// observeRows is Observe for a shape that declares per row, over its valid rows.
func (a *Audit) observeRows(sh Shape, c *candidates.Step, logQ, logP []float64, valid int) {
	b := len(c.RowItem)
	cols := len(c.ColItem) / b
	m, w := float64(cols-1), 1/float64(valid)
	for i := range b {
		if c.Padding(i) {
			continue
		}
		if masked(sh) {
			m = negativesAmong(sh, c.ColItem[i*cols:(i+1)*cols])
		}
		stamp := (a.steps-1)*b + i + 1 // this row of this step, distinct from every other
		for j := range cols {
			k, item := i*cols+j, c.ColItem[i*cols+j]
			if item < 0 {
				continue
			}
			if j != sh.Pos(i) {
				a.stepCopies[item] += w
			}
			a.declare(item, k, stamp, w, m, logP[k], logQ[k])
		}
	}
}

// masked reports whether some of a step's columns under shape sh may hold no item: empty drawn
// ones, or under layout diagonal a padding row's positive.
func masked(sh Shape) bool { return sh.Unfilled || sh.Padded && sh.Layout == candidates.Diagonal }

// negativesAmong is the number of a row's negatives among the columns items when some may be
// masked (padding columns, empty drawn ones): the columns with an item, less the row's own
// positive under layout diagonal (under first its column has no item).
func negativesAmong(sh Shape, items []int64) float64 {
	m := 0.0
	for _, item := range items {
		if item >= 0 {
			m++
		}
	}
	if sh.Layout == candidates.Diagonal {
		m--
	}
	return m
}

// declare adds, with weight w, item's declared p and copies m·q the first time it is seen under
// stamp (a step, or a row of a step under PerRow); k is its column.
func (a *Audit) declare(item int64, k, stamp int, w, m, logP, logQ float64) {
	if a.inStep[item] != a.steps {
		a.inStep[item], a.colAt[item] = a.steps, k
		a.stepItems = append(a.stepItems, item)
	}
	if a.lastSeen[item] == stamp {
		return
	}
	a.lastSeen[item] = stamp
	a.stepIncl[item] += w
	if a.undefined {
		return
	}
	a.declP[item] += w * math.Exp(logP)
	a.declCopies[item] += w * m * math.Exp(logQ)
}

// endStep adds the step's shares of declared and copies, and their squares, to the sums.
func (a *Audit) endStep() {
	for _, item := range a.stepItems {
		incl, copies := a.stepIncl[item], a.stepCopies[item]
		a.declared[item] += incl
		a.incl2[item] += incl * incl
		a.copies[item] += copies
		a.copies2[item] += copies * copies
		a.stepIncl[item], a.stepCopies[item] = 0, 0
	}
	a.stepItems = a.stepItems[:0]
}

// Steps is the number of steps observed.
func (a *Audit) Steps() int { return a.steps }

// item is one item's audit: declared and empirical inclusion and copies.
type item struct {
	declP, empP, declCopies, empCopies float64
}

func (a *Audit) item(j int) item {
	n := float64(a.steps)
	it := item{empP: a.declared[j] / n, empCopies: a.copies[j] / n}
	if a.declared[j] > 0 {
		it.declP = a.declP[j] / a.declared[j]
		it.declCopies = a.declCopies[j] / a.declared[j]
	}
	return it
}

// AuditSummary is Audit.Summary's digest of a run's audit.
type AuditSummary struct {
	// TV is the total-variation distance between the declared and the empirical distributions
	// of copies over the items (each normalised to sum 1), ½·Σ_j |d_j/Σd − e_j/Σe|. Items never
	// drawn count with declared 0.
	TV float64
	// Floor is the TV that sampling noise alone gives: the expected total variation between the
	// declared distribution d and the empirical frequencies of Draws independent draws from it,
	// ½·Σ_j E|X_j − n·d_j|/n with X_j ~ Binomial(n, d_j) (prob.BinomialMAD). A sampler that
	// draws i.i.d. from its declaration shows TV ≈ Floor; one that draws without replacement
	// (in-batch positives over an epoch, distinct items) shows less; a TV well above Floor is a
	// law the sampler does not follow.
	Floor float64
	// Draws is n: the negatives of a row summed over the steps, Σ_j e_j rounded.
	Draws int
	// HeadWorst is the worst relative error |d_j/e_j − 1| of the declared copies among the
	// AuditHead items with the most training interactions (counts).
	HeadWorst float64
	// Mass is Σd/Σe, the copies the declarations sum to over the drawn items against the copies
	// drawn (a row's negatives). TV compares the two distributions each normalised to sum 1, so
	// it cannot see a declaration off by a constant factor (q = 2/M for uniform draws), nor one
	// that puts mass on items never drawn (q = 1/M for draws from a subset of the corpus): Mass
	// does. An exact law gives Mass ≤ 1, short of 1 by the declared mass of the items no step
	// drew.
	Mass float64
	// QUndefined says that the sampler has no probability law (candidates.Geometry.QUndefined):
	// there is no declaration, and TV, Floor, HeadWorst and Mass are 0.
	QUndefined bool
}

// Summary digests the audit; counts are the items' training interactions, which select the head.
func (a *Audit) Summary(counts []int64) AuditSummary {
	var sd, se float64
	for j := range a.declared {
		it := a.item(j)
		sd += it.declCopies
		se += it.empCopies
	}
	var s AuditSummary
	s.Draws = int(math.Round(se * float64(a.steps)))
	if a.undefined {
		s.QUndefined = true
		return s
	}
	n := float64(s.Draws)
	for j := range a.declared {
		it := a.item(j)
		s.TV += math.Abs(it.declCopies/sd - it.empCopies/se)
		if s.Draws > 0 {
			s.Floor += prob.BinomialMAD(s.Draws, min(it.declCopies/sd, 1)) / n
		}
	}
	s.TV /= 2
	s.Floor /= 2
	if se > 0 {
		s.Mass = sd / se
	}
	for _, j := range head(counts) {
		if it := a.item(j); it.empCopies > 0 {
			s.HeadWorst = math.Max(s.HeadWorst, math.Abs(it.declCopies/it.empCopies-1))
		}
	}
	return s
}

// head returns the AuditHead items with the most training interactions, most first (ties by id).
func head(counts []int64) []int {
	idx := make([]int, len(counts))
	for j := range idx {
		idx[j] = j
	}
	slices.SortStableFunc(idx, func(x, y int) int { return int(counts[y] - counts[x]) })
	return idx[:min(AuditHead, len(idx))]
}

// WriteCSV writes the audit, one line per item with its training count: item, count, declared_p,
// empirical_p, declared_copies, empirical_copies; the declared columns say "undefined" for a
// sampler without a law (candidates.Geometry.QUndefined).
func (a *Audit) WriteCSV(w io.Writer, counts []int64) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"item", "count", "declared_p", "empirical_p", "declared_copies", "empirical_copies"}); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
	for j := range a.declared {
		it := a.item(j)
		declP, declCopies := f(it.declP), f(it.declCopies)
		if a.undefined {
			declP, declCopies = "undefined", "undefined"
		}
		if err := cw.Write([]string{strconv.Itoa(j), strconv.FormatInt(counts[j], 10), declP, f(it.empP),
			declCopies, f(it.empCopies)}); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("sampler_audit.csv: %w", err)
	}
	return nil
}
