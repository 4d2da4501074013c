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
	logFactor := math.Log(factor)
	return Spoiled(smp, func(c *candidates.Step) {
		for _, side := range [][2][]float64{{c.Col(candidates.LogQ), c.Col(candidates.LogP)}, {c.Row(candidates.LogQ), c.Row(candidates.LogP)}} {
			logQ, logP := side[0], side[1]
			for j := range logQ {
				logQ[j] += logFactor
				logP[j] = math.Min(logP[j]+logFactor, 0)
			}
		}
	})
}

// Spoiled is smp with every step's declarations changed by spoil after smp declared them: a
// sampler whose declaration is wrong in a way of the test's choosing (a row's positive left
// undeclared, a NaN p), to check that an audit, samplerstest's or a run's, catches it.
func Spoiled(smp samplers.Sampler, spoil func(c *candidates.Step)) samplers.Sampler {
	return spoiled{smp, spoil}
}

type spoiled struct {
	samplers.Sampler
	spoil func(c *candidates.Step)
}

func (s spoiled) Declare(d *samplers.Data, pos, rows []int32, law samplers.Law, c *candidates.Step) error {
	if err := s.Sampler.Declare(d, pos, rows, law, c); err != nil {
		return err
	}
	s.spoil(c)
	return nil
}

// Audit runs steps steps of smp, with a random source seeded by seed, on batches of d.Batch
// positives drawn i.i.d. with probability count/N (IIDLaw), records them in a samplers.Audit, as
// a run with sampler.audit = true does, and returns its verdict (samplers.Audit.Check): an error
// naming the first step whose declarations are no probabilities, or the first item and quantity
// outside the tolerance (see the package comment), or the step at which smp declared an error or
// drew an item outside the corpus.
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
	rows := make([]int32, sh.ItemRows(r, d.Items))
	pos := make([]int32, r)
	c, err := NewStep(smp, sh.Geometry, b, d.Items) // b examples of length rows each
	if err != nil {
		return err
	}
	cdf := make([]float64, d.Items)
	var sum float64
	for j, n := range d.Counts {
		sum += float64(n)
		cdf[j] = sum
	}
	audit := samplers.NewAudit(d.Items)
	law := IIDLaw(d, rows)
	for step := 1; step <= steps; step++ {
		for i := range pos {
			pos[i] = candidates.NoItem
			if i%length >= pad {
				u := rng.Float64() * sum
				pos[i] = int32(sort.Search(len(cdf), func(k int) bool { return cdf[k] > u }))
			}
			c.RowItem[i] = int64(pos[i])
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
		}
		audit.Observe(sh, c)
	}
	if err := audit.Check(); err != nil {
		return fmt.Errorf("samplerstest: %w", err)
	}
	return nil
}
