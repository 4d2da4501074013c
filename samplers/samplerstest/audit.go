package samplerstest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/prob"
	"github.com/samplingbias/workbench/samplers"
)

// SkewedData is a small skewed corpus for batches of b positives: M = 20 items with Zipf-like
// training counts 60/(j+1), so that the head is drawn several times per batch (B·q > 1) and the
// tail rarely.
func SkewedData(b int) *samplers.Data {
	d := &samplers.Data{Items: 20, Batch: b, Counts: make([]int64, 20)}
	for j := range d.Counts {
		d.Counts[j] = int64(60 / (j + 1))
		d.N += int(d.Counts[j])
	}
	return d
}

// IIDLaw is the positives' law of batches of d.Batch positives drawn i.i.d. from the training
// frequency, as Audit draws them, for the item rows rows: q = count/N and p = 1 − (1 − q)^B. A
// padding row's (NoItem) is q = p = 0.5: it has no loss, any law will do.
func IIDLaw(d *samplers.Data, rows []int32) samplers.Law {
	return func(j int) (float64, float64, bool, error) {
		if rows[j] == candidates.NoItem {
			return 0.5, 0.5, false, nil
		}
		q := float64(d.Counts[rows[j]]) / float64(d.N)
		return q, prob.Inclusion(q, d.Batch), false, nil
	}
}

// NewStep returns the step a trainer gives smp under the geometry g (smp's own, or its own with
// the rows of sequences) for a batch of b examples over a corpus of items items: its item slices
// allocated and the side inputs smp fills declared (samplers.DeclareSides).
func NewStep(smp samplers.Sampler, g candidates.Geometry, b, items int) (*candidates.Step, error) {
	st := candidates.NewStep(g, b, items)
	if err := samplers.DeclareSides(smp, st); err != nil {
		return nil, err
	}
	return st, nil
}

// Overstated is smp declaring every column's and every row's positive's q and p factor times its
// own (p at most 1): a sampler whose declaration is wrong, which the audit of smp must fail for
// factor 1.1.
func Overstated(smp samplers.Sampler, factor float64) samplers.Sampler {
	return overstated{smp, math.Log(factor)}
}

type overstated struct {
	samplers.Sampler
	logFactor float64
}

func (s overstated) Declare(d *samplers.Data, pos, rows []int32, law samplers.Law, c *candidates.Step) error {
	if err := s.Sampler.Declare(d, pos, rows, law, c); err != nil {
		return err
	}
	for _, side := range [][2][]float64{{c.Col(candidates.LogQ), c.Col(candidates.LogP)}, {c.Row(candidates.LogQ), c.Row(candidates.LogP)}} {
		logQ, logP := side[0], side[1]
		for j := range logQ {
			logQ[j] += s.logFactor
			logP[j] = math.Min(logP[j]+s.logFactor, 0)
		}
	}
	return nil
}

// Audit runs steps steps of smp, with a random source seeded by seed, on batches of d.Batch
// positives drawn i.i.d. with probability count/N (IIDLaw), and compares, for every item the
// steps declared with p ≥ 0.05, the empirical frequency of the step including the item with the
// declared p (of a row including it, for a sampler that draws per row), and the mean number of
// copies of the item among a row's negatives with the declared (C−1)·q, within five standard
// errors (see the package comment). It returns an error naming the first item and quantity
// outside the tolerance, or naming the step at which smp declared an error or drew an item
// outside the corpus.
func Audit(smp samplers.Sampler, d *samplers.Data, steps int, seed uint64) error {
	return AuditPositions(smp, d, d.Batch, 1, 0, steps, seed)
}

// AuditPositions is Audit on the rows of sequences trained at every position: each step has b
// windows of length positions (candidates.Geometry.PerExample = length, Padded), the first pad
// positions of each window padding (a NoItem positive) and the others rows whose positives are
// drawn i.i.d. with probability count/N, d.Batch of them (b·(length − pad)); "the batch" is
// those positives. A padding row is no row: it draws nothing, and its column (layout diagonal)
// is no row's negative, so a row's negatives and the declared copies m·q count the columns that
// hold an item. With length 1 and pad 0 it is Audit.
func AuditPositions(smp samplers.Sampler, d *samplers.Data, b, length, pad, steps int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 1))
	sh := smp.Shape()
	if sh.QUndefined {
		return errors.New("samplerstest: the sampler has no probability law (Q undefined): there is no declaration to audit")
	}
	if length > 1 || pad > 0 {
		sh.PerExample, sh.Padded = length, true
	}
	r := b * length
	if d.Batch != b*(length-pad) {
		return fmt.Errorf("samplerstest: d.Batch = %d, want the %d rows with a positive", d.Batch, b*(length-pad))
	}
	valid := float64(d.Batch)
	rows := make([]int32, sh.ItemRows(r, d.Items))
	pos := make([]int32, r)
	cols, units := sh.Cols(r, d.Items), 1 // units: the declarations' rows, R under PerRow
	if sh.PerRow > 0 {
		units = r
	}
	c, err := NewStep(smp, sh.Geometry, b, d.Items) // b examples of length rows each
	if err != nil {
		return err
	}
	logQ, logP := c.Col(candidates.LogQ), c.Col(candidates.LogP)
	cdf := make([]float64, d.Items)
	var sum float64
	for j, n := range d.Counts {
		sum += float64(n)
		cdf[j] = sum
	}
	type tally struct {
		declP, declCount float64 // declared, summed over the steps (rows) that declared the item
		declared         int
		incl, incl2      float64 // per-step fraction of the units including the item, and its square
		count, count2    float64 // per-step mean copies among a row's negatives, and its square
	}
	items := make([]tally, d.Items)
	perStep, inclStep := make([]float64, d.Items), make([]float64, d.Items)
	law := IIDLaw(d, rows)
	for step := range steps {
		for i := range pos {
			pos[i] = candidates.NoItem
			if i%length >= pad {
				u := rng.Float64() * sum
				pos[i] = int32(sort.Search(len(cdf), func(k int) bool { return cdf[k] > u }))
			}
		}
		smp.Draw(rng, d, pos, rows)
		for j, item := range rows {
			if item == candidates.NoItem && (sh.Padded || sh.Unfilled) {
				continue
			}
			if item < 0 || int(item) >= d.Items {
				return fmt.Errorf("samplerstest: step %d: item row %d drawn is item %d, outside the corpus [0, %d)", step, j, item, d.Items)
			}
		}
		if err := smp.Declare(d, pos, rows, law, c); err != nil {
			return fmt.Errorf("samplerstest: step %d: Declare: %w", step, err)
		}
		for j, item := range c.ColItem {
			if item < candidates.NoItem || item >= int64(d.Items) {
				return fmt.Errorf("samplerstest: step %d: column %d declared is item %d, outside the corpus [0, %d)", step, j, item, d.Items)
			}
			if item >= 0 {
				if err := checkLogProbs(step, "column", j, logQ[j], logP[j], true); err != nil {
					return err
				}
			}
		}
		if err := checkPositives(step, sh, pos, c); err != nil {
			return err
		}
		clear(perStep)
		clear(inclStep)
		// A row's negatives: the columns with an item but its positive's (under layout diagonal,
		// not a padding row's column, nor a memory column holding one).
		m := float64(cols - 1)
		if sh.Layout == candidates.Diagonal {
			m = -1
			for j := range cols - sh.PerRow {
				if c.ColItem[j] >= 0 {
					m++
				}
			}
			m += float64(sh.PerRow)
		}
		for u := range units {
			if units > 1 && pos[u] == candidates.NoItem {
				continue
			}
			seen := map[int64]bool{}
			for j := range cols {
				k, item := u*cols+j, c.ColItem[u*cols+j]
				if item < 0 {
					continue
				}
				if !seen[item] {
					seen[item] = true
					t := &items[item]
					t.declared++
					inclStep[item] += 1 / math.Min(float64(units), valid)
					t.declP += math.Exp(logP[k])
					t.declCount += m * math.Exp(logQ[k])
				}
				if units > 1 {
					if !isPositiveColumn(sh.Layout, u, j, c.PosCol) {
						perStep[item] += 1 / valid
					}
					continue
				}
				for i := range r {
					if pos[i] != candidates.NoItem && !isPositiveColumn(sh.Layout, i, j, c.PosCol) {
						perStep[item] += 1 / valid
					}
				}
			}
		}
		for j := range items {
			t := &items[j]
			t.incl += inclStep[j]
			t.incl2 += inclStep[j] * inclStep[j]
			t.count += perStep[j]
			t.count2 += perStep[j] * perStep[j]
		}
	}
	n := float64(steps)
	sd := func(sum, sum2 float64) float64 { return math.Sqrt(math.Max(sum2/n-(sum/n)*(sum/n), 0)) }
	for j, t := range items {
		if t.declared == 0 {
			continue
		}
		p, count := t.declP/float64(t.declared), t.declCount/float64(t.declared)
		freq, sdIncl := t.incl/n, math.Sqrt(p*(1-p))
		if p < 0.05 && freq < 0.05 {
			continue
		}
		if units > 1 {
			sdIncl = sd(t.incl, t.incl2)
		}
		if tol := 5*sdIncl/math.Sqrt(n) + 1e-9; math.Abs(freq-p) > tol {
			return fmt.Errorf("samplerstest: item %d: inclusion probability p declared %.4f, empirical %.4f of the steps (tolerance %.4f)", j, p, freq, tol)
		}
		if sh.Layout == candidates.Corpus {
			continue // the corpus's columns are not draws: q = 1/M is the uniform proposal's convention
		}
		mean := t.count / n
		if tol := 5*sd(t.count, t.count2)/math.Sqrt(n) + 1e-9; math.Abs(mean-count) > tol {
			return fmt.Errorf("samplerstest: item %d: copies among a row's negatives (C−1)·q declared %.4f, empirical %.4f (tolerance %.4f)", j, count, mean, tol)
		}
	}
	return nil
}

// checkLogProbs requires the log q and log p declared for a column or a row (what, its index k)
// to be log-probabilities: not NaN, at most 0, and, for a drawn item (drawn), finite: an item the
// sampler drew has a positive probability of being drawn.
func checkLogProbs(step int, what string, k int, logQ, logP float64, drawn bool) error {
	for _, v := range []struct {
		name  string
		value float64
	}{{"log q", logQ}, {"log p", logP}} {
		zeroDrawn := drawn && math.IsInf(v.value, -1)
		if !zeroDrawn && !math.IsNaN(v.value) && v.value <= 1e-12 {
			continue
		}
		of := ""
		if zeroDrawn {
			of = " of an item drawn"
		}
		return fmt.Errorf("samplerstest: step %d: %s %d declares %s = %v, not the log of a probability%s", step, what, k, v.name, v.value, of)
	}
	return nil
}

// checkPositives checks the probabilities declared for the rows' own positives under layout
// first, whose column holds no item, so that the columns' checks never see them: each must be a
// log-probability, and a row whose positive is also a drawn column of the step (shared columns)
// must declare that column's q and p, which are the item's, whichever row holds it.
func checkPositives(step int, sh samplers.Shape, pos []int32, c *candidates.Step) error {
	if sh.Layout != candidates.First {
		return nil
	}
	rowQ, rowP := c.Row(candidates.LogQ), c.Row(candidates.LogP)
	colQ, colP := c.Col(candidates.LogQ), c.Col(candidates.LogP)
	at := map[int64]int{} // a drawn shared column of each item
	if sh.PerRow == 0 {
		for j, item := range c.ColItem {
			if item >= 0 {
				at[item] = j
			}
		}
	}
	same := func(a, b float64) bool { return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }
	for i, item := range pos {
		if item == candidates.NoItem {
			continue
		}
		if err := checkLogProbs(step, "row", i, rowQ[i], rowP[i], false); err != nil {
			return err
		}
		if j, ok := at[int64(item)]; ok && (!same(rowQ[i], colQ[j]) || !same(rowP[i], colP[j])) {
			return fmt.Errorf("samplerstest: step %d: row %d's positive, item %d, is declared q = %.4g, p = %.4g, and as column %d q = %.4g, p = %.4g: the probabilities are the item's, the same in both",
				step, i, item, math.Exp(rowQ[i]), math.Exp(rowP[i]), j, math.Exp(colQ[j]), math.Exp(colP[j]))
		}
	}
	return nil
}

// isPositiveColumn reports whether column j is row i's positive under layout l.
func isPositiveColumn(l candidates.Layout, i, j int, posCol []int) bool {
	switch l {
	case candidates.First:
		return j == 0
	case candidates.Corpus:
		return j == posCol[i]
	}
	return j == i
}
