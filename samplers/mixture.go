package samplers

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/samplingbias/workbench/internal/distinct"
)

// mixture is KindMixture: the columns of two samplers side by side (generalising mixed, Yang et al.
// 2020), drawn in that order with the run's random source: the first's positives and shared rows,
// the second's shared rows, then each row's own draws, the first's then the second's (Shape.Row).
// At most one component has Layout Diagonal (the mixture's layout is then Diagonal, else First);
// Layout Corpus is not a component; the mixture draws per row if a component does (Khrylchenko
// et al. 2025: in_batch_unique shared by all rows and uniform_per_row). A row's negatives are
// n_A + n_B draws, n_X = C_X − 1 the component's negatives per row, independent across the
// components, so the mixture's per-draw probability and inclusion probability of item j are
//
//	q_j = (n_A·q_A(j) + n_B·q_B(j)) / (n_A + n_B),   p_j = 1 − (1 − p_A(j))(1 − p_B(j)),
//
// exact where the components' declarations are (docs/samplers.md §3: mixed is in_batch + uniform).
// A component's law of every distinct item of the step is read from its ItemLaw where it has one,
// else from its declaration of that item as a positive (Columns.PosLogQ and PosLogP under Layout
// First) or as a column (Layout Diagonal), the item's law being that of its first row (a law that
// depends on the item only, as the estimator's and every built-in's does). A component that draws
// per row must have an ItemLaw.
type mixture struct {
	a, b      Sampler
	sa, sb, s Shape // the components' shapes and the mixture's

	rowsA, rowsB []int32 // the components' own item rows
	items        []int32 // the step's distinct items, in the order of their first rows
	first        []int   // the first row of each of items
	of           []int32 // per row: its item's index in items
	lister       distinct.Lister
	scratch      []int32   // the rows a component declares to give the law of items
	ca, cb       Columns   // the components' declarations of items
	la, lb       []float64 // per item of items: log q of each component, then of the mixture
	pa, pb       []float64 // per item of items: log p of each component, then of the mixture
}

// newMixture checks the components' layouts.
func newMixture(a, b Sampler) (*mixture, error) {
	sa, sb := a.Shape(), b.Shape()
	switch {
	case sa.Layout == LayoutCorpus || sb.Layout == LayoutCorpus:
		return nil, errors.New("of: a mixture's components cannot score the whole corpus (full)")
	case sa.Memory > 0 || sb.Memory > 0:
		return nil, errors.New("of: memory cannot be a mixture's component")
	case sb.Layout == LayoutDiagonal:
		return nil, errors.New("of: the second component must have Layout First (shared draws after each row's positive); put the in-batch one first")
	}
	for i, x := range [2]Sampler{a, b} {
		if _, ok := x.(ItemLaw); x.Shape().PerRow > 0 && !ok {
			return nil, fmt.Errorf("of[%d]: a component that draws per row must declare its law of any item (samplers.ItemLaw)", i)
		}
	}
	s := Shape{Layout: sa.Layout, Extra: sa.Extra + sb.Extra, PerRow: sa.PerRow + sb.PerRow,
		PositiveLaw: sa.PositiveLaw || sb.PositiveLaw}
	return &mixture{a: a, b: b, sa: sa, sb: sb, s: s}, nil
}

func (x *mixture) Shape() Shape { return x.s }

func (x *mixture) Draw(rng *rand.Rand, d *Data, pos, rows []int32) {
	bsz, sa, sb := len(pos), x.sa, x.sb
	x.rowsA = grow32(x.rowsA, sa.Rows(bsz, d.Items))
	x.rowsB = grow32(x.rowsB, sb.Rows(bsz, d.Items))
	x.a.Draw(rng, d, pos, x.rowsA)
	x.b.Draw(rng, d, pos, x.rowsB)
	sharedA, sharedB := bsz+sa.Extra, bsz+sb.Extra
	copy(rows, x.rowsA[:sharedA])
	copy(rows[sharedA:], x.rowsB[bsz:sharedB])
	if x.s.PerRow == 0 {
		return
	}
	own := rows[sharedA+sb.Extra:] // each row's own draws, the first component's then the second's
	for i := range bsz {
		dst := own[i*x.s.PerRow:]
		copy(dst, x.rowsA[sharedA+i*sa.PerRow:sharedA+(i+1)*sa.PerRow])
		copy(dst[sa.PerRow:], x.rowsB[sharedB+i*sb.PerRow:sharedB+(i+1)*sb.PerRow])
	}
}

// grow32 returns s with length n, reallocated when too short.
func grow32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

// lawOf fills lq and lp (len(x.items)) with component smp's log q and log p of each distinct item
// of the step, law giving the positives' law of the step's rows.
func (x *mixture) lawOf(smp Sampler, sh Shape, d *Data, pos []int32, law Law, c *Columns, lq, lp []float64) error {
	n, b := len(x.items), len(pos)
	if il, ok := smp.(ItemLaw); ok {
		il.ItemLaw(d, x.items, lq, lp)
		return nil
	}
	// sub is law for declared rows whose items are x.items from row `from` on (each read at its
	// first row), the rows before `from` being the step's own.
	sub := func(from int) Law {
		if law == nil {
			return nil
		}
		return func(j int) (float64, float64, bool, error) {
			if j >= from {
				j = x.first[min(j-from, n-1)]
			}
			return law(j)
		}
	}
	if sh.Layout == LayoutDiagonal {
		// A Diagonal component declares every row it is given, positives first: the positives,
		// then the items.
		x.scratch = append(append(x.scratch[:0], pos...), x.items...)
		*c = newColumns(b+n, b, c)
		if err := smp.Declare(d, pos, x.scratch, sub(b), c); err != nil {
			return err
		}
		copy(lq, c.LogQ[b:])
		copy(lp, c.LogP[b:])
		return nil
	}
	// A First component declares each positive's law: declare the items as positives. The
	// component's own columns (past them) are discarded; they read the first item's law.
	x.scratch = grow32(x.scratch, n+sh.Extra)
	copy(x.scratch, x.items)
	*c = newColumns(1+sh.Extra, n, c)
	if err := smp.Declare(d, x.items, x.scratch, sub(0), c); err != nil {
		return err
	}
	copy(lq, c.PosLogQ)
	copy(lp, c.PosLogP)
	return nil
}

// newColumns returns c's buffers resized to cols columns and b rows.
func newColumns(cols, b int, c *Columns) Columns {
	g := func(s []float64, n int) []float64 {
		if cap(s) < n {
			return make([]float64, n)
		}
		return s[:n]
	}
	items := c.Items
	if cap(items) < cols {
		items = make([]int64, cols)
	}
	return Columns{Items: items[:cols], LogQ: g(c.LogQ, cols), LogP: g(c.LogP, cols), PosLogQ: g(c.PosLogQ, b), PosLogP: g(c.PosLogP, b)}
}

func (x *mixture) Declare(d *Data, pos, rows []int32, law Law, c *Columns) error {
	bsz := len(pos)
	x.of = grow32(x.of, len(rows))
	x.items = x.lister.List(rows, d.Items, x.items[:0], x.of)
	n := len(x.items)
	x.first = x.first[:0]
	for r, k := range x.of[:len(rows)] { // items are listed in the order of their first rows
		if int(k) == len(x.first) {
			x.first = append(x.first, r)
		}
	}
	grow := func(s []float64) []float64 {
		if cap(s) < n {
			return make([]float64, n)
		}
		return s[:n]
	}
	x.la, x.lb, x.pa, x.pb = grow(x.la), grow(x.lb), grow(x.pa), grow(x.pb)
	if err := x.lawOf(x.a, x.sa, d, pos, law, &x.ca, x.la, x.pa); err != nil {
		return fmt.Errorf("mixture's first component: %w", err)
	}
	if err := x.lawOf(x.b, x.sb, d, pos, law, &x.cb, x.lb, x.pb); err != nil {
		return fmt.Errorf("mixture's second component: %w", err)
	}
	na, nb := float64(x.sa.Cols(bsz, d.Items)-1), float64(x.sb.Cols(bsz, d.Items)-1)
	for k := range x.items { // the mixture's law of each item, into la and pa
		missA, missB := -math.Expm1(x.pa[k]), -math.Expm1(x.pb[k]) // 1 − p = −expm1(log p)
		x.la[k] = math.Log((na*math.Exp(x.la[k]) + nb*math.Exp(x.lb[k])) / (na + nb))
		x.pa[k] = math.Log1p(-missA * missB)
	}
	c.Estimated = x.ca.Estimated || x.cb.Estimated
	for i := range pos {
		c.PosLogQ[i], c.PosLogP[i] = x.la[x.of[i]], x.pa[x.of[i]]
	}
	cols, perRow := len(c.Items), 1
	if x.s.PerRow > 0 {
		cols, perRow = cols/bsz, bsz
	}
	for i := range perRow {
		for j := range cols {
			k, r := i*cols+j, x.s.Row(i, j, bsz)
			c.Items[k], c.LogQ[k], c.LogP[k] = int64(rows[r]), x.la[x.of[r]], x.pa[x.of[r]]
			if j == 0 && x.s.Layout == LayoutFirst {
				c.Items[k] = -1 // each row's own positive
			}
		}
	}
	return nil
}
