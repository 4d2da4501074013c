package samplers

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/internal/distinct"
	"github.com/samplingbias/workbench/internal/reuse"
)

// mixture is KindMixture: the columns of two samplers side by side (generalising mixed, Yang et al.
// 2020), drawn in that order with the run's random source: the first's positives and shared rows,
// the second's shared rows, then each row's own draws, the first's then the second's (candidates.Geometry.Row).
// At most one component has Layout Diagonal (the mixture's layout is then Diagonal, else First);
// Layout Corpus is not a component; the mixture draws per row if a component does (Khrylchenko
// et al. 2025: in_batch_unique shared by all rows and uniform_per_row). A row's negatives are
// n_A + n_B draws, n_X = C_X − 1 the component's negatives per row (less the columns it left
// empty at the step, Geometry.Unfilled), independent across the components, so the mixture's
// per-draw probability and inclusion probability of item j are
//
//	q_j = (n_A·q_A(j) + n_B·q_B(j)) / (n_A + n_B),   p_j = 1 − (1 − p_A(j))(1 − p_B(j)),
//
// exact where the components' declarations are (docs/samplers.md §3: mixed is in_batch + uniform).
// A component's law of every distinct item of the step is read from its ItemLaw where it has one,
// else from its declaration of that item as a positive (the rows' values under layout First) or as
// a column (layout Diagonal), the item's law being that of its first row (a law that depends on
// the item only, as the estimator's and every built-in's does). A component that draws per row
// must have an ItemLaw. A component scores one row per example, without padding, and declares
// no side inputs of its own.
type mixture struct {
	a, b      Sampler
	sa, sb, s Shape // the components' shapes and the mixture's

	rowsA, rowsB []int32 // the components' own item rows
	items        []int32 // the step's distinct items, in the order of their first rows
	first        []int   // the first row of each of items
	of           []int32 // per row: its item's index in items
	lister       distinct.Lister
	scratch      []int32         // the rows a component declares to give the law of items
	ca, cb       candidates.Step // the components' declarations of items
	la, lb       []float64       // per item of items: log q of each component, then of the mixture
	pa, pb       []float64       // per item of items: log p of each component, then of the mixture
}

// newMixture checks the components' layouts.
func newMixture(a, b Sampler) (*mixture, error) {
	sa, sb := a.Shape(), b.Shape()
	switch {
	case sa.Layout == candidates.Corpus || sb.Layout == candidates.Corpus:
		return nil, errors.New("of: a mixture's components cannot score the whole corpus (full)")
	case sa.Memory > 0 || sb.Memory > 0:
		return nil, errors.New("of: memory cannot be a mixture's component")
	case sb.Layout == candidates.Diagonal:
		return nil, errors.New("of: the second component must have Layout First (shared draws after each row's positive); put the in-batch one first")
	}
	for i, x := range [2]Sampler{a, b} {
		sh := x.Shape()
		if sh.QUndefined {
			return nil, fmt.Errorf("of[%d]: a mixture's law is its components', and this component draws by the model's scores (Q undefined)", i)
		}
		if _, ok := x.(ItemLaw); sh.PerRow > 0 && !ok {
			return nil, fmt.Errorf("of[%d]: a component that draws per row must declare its law of any item (samplers.ItemLaw)", i)
		}
		if sh.PerExample > 1 || sh.Padded {
			return nil, fmt.Errorf("of[%d]: a mixture's component scores one row per example, without padding", i)
		}
		if d, ok := x.(SideDeclarer); ok && len(d.Sides()) > 0 {
			return nil, fmt.Errorf("of[%d]: a mixture's component declares no side inputs besides log_q and log_p", i)
		}
	}
	// The drawn items are uniform draws when every component that draws some draws them so.
	uniform := func(g candidates.Geometry) bool { return g.Uniform || g.Extra+g.PerRow == 0 }
	s := Shape{Geometry: candidates.Geometry{Layout: sa.Layout, Extra: sa.Extra + sb.Extra, PerRow: sa.PerRow + sb.PerRow,
		Uniform: uniform(sa.Geometry) && uniform(sb.Geometry), Unfilled: sa.Unfilled || sb.Unfilled},
		PositiveLaw: sa.PositiveLaw || sb.PositiveLaw}
	return &mixture{a: a, b: b, sa: sa, sb: sb, s: s}, nil
}

func (x *mixture) Shape() Shape { return x.s }

// Check is its components' Check (Checker), each error naming its component.
func (x *mixture) Check(d *Data) error {
	for i, c := range [2]Sampler{x.a, x.b} {
		if ch, ok := c.(Checker); ok {
			if err := ch.Check(d); err != nil {
				return fmt.Errorf("of[%d].%w", i, err)
			}
		}
	}
	return nil
}

func (x *mixture) Draw(rng *rand.Rand, d *Data, pos, rows []int32) {
	bsz, sa, sb := len(pos), x.sa, x.sb
	x.rowsA = reuse.Grow(x.rowsA, sa.ItemRows(bsz, d.Items))
	x.rowsB = reuse.Grow(x.rowsB, sb.ItemRows(bsz, d.Items))
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

// lawOf fills lq and lp (len(x.items)) with component smp's log q and log p of each distinct item
// of the step, law giving the positives' law of the step's rows.
func (x *mixture) lawOf(smp Sampler, sh Shape, d *Data, pos []int32, law Law, c *candidates.Step, lq, lp []float64) error {
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
	if sh.Layout == candidates.Diagonal {
		// A Diagonal component declares every row it is given, positives first: the positives,
		// then the items.
		x.scratch = append(append(x.scratch[:0], pos...), x.items...)
		resize(c, sh.Geometry, b+n, b)
		if err := smp.Declare(d, pos, x.scratch, sub(b), c); err != nil {
			return err
		}
		copy(lq, c.Col(candidates.LogQ)[b:])
		copy(lp, c.Col(candidates.LogP)[b:])
		return nil
	}
	// A First component declares each positive's law: declare the items as positives. The
	// component's own columns (past them) are discarded; they read the first item's law.
	x.scratch = reuse.Grow(x.scratch, n+sh.Extra)
	copy(x.scratch, x.items)
	resize(c, sh.Geometry, 1+sh.Extra, n)
	if err := smp.Declare(d, x.items, x.scratch, sub(0), c); err != nil {
		return err
	}
	copy(lq, c.Row(candidates.LogQ))
	copy(lp, c.Row(candidates.LogP))
	return nil
}

// resize makes c a step of geometry g with cols columns and rows rows and the side inputs log q
// and log p, reusing its buffers.
func resize(c *candidates.Step, g candidates.Geometry, cols, rows int) {
	c.Geometry = g
	c.ColItem, c.RowItem = reuse.Grow(c.ColItem, cols), reuse.Grow(c.RowItem, rows)
	for _, name := range []string{candidates.LogQ, candidates.LogP} {
		c.Set(candidates.Side{Name: name, By: "a mixture's component"}, reuse.Grow(c.Col(name), cols), reuse.Grow(c.Row(name), rows))
	}
}

func (x *mixture) Declare(d *Data, pos, rows []int32, law Law, c *candidates.Step) error {
	bsz := len(pos)
	x.of = reuse.Grow(x.of, len(rows))
	x.items = x.lister.List(rows, d.Items, x.items[:0], x.of)
	n := len(x.items)
	x.first = x.first[:0]
	for r, k := range x.of[:len(rows)] { // items are listed in the order of their first rows
		if int(k) == len(x.first) {
			x.first = append(x.first, r)
		}
	}
	x.la, x.lb, x.pa, x.pb = reuse.Grow(x.la, n), reuse.Grow(x.lb, n), reuse.Grow(x.pa, n), reuse.Grow(x.pb, n)
	if err := x.lawOf(x.a, x.sa, d, pos, law, &x.ca, x.la, x.pa); err != nil {
		return fmt.Errorf("mixture's first component: %w", err)
	}
	if err := x.lawOf(x.b, x.sb, d, pos, law, &x.cb, x.lb, x.pb); err != nil {
		return fmt.Errorf("mixture's second component: %w", err)
	}
	// A row's negatives from each component: its columns less those it left empty.
	na := float64(negatives(x.sa, pos, d) - empty(x.rowsA[bsz:bsz+x.sa.Extra]))
	nb := float64(negatives(x.sb, pos, d) - empty(x.rowsB[bsz:bsz+x.sb.Extra]))
	for k := range x.items { // the mixture's law of each item, into la and pa
		missA, missB := -math.Expm1(x.pa[k]), -math.Expm1(x.pb[k]) // 1 − p = −expm1(log p)
		x.la[k] = math.Log((na*math.Exp(x.la[k]) + nb*math.Exp(x.lb[k])) / (na + nb))
		x.pa[k] = math.Log1p(-missA * missB)
	}
	c.Estimated = x.ca.Estimated || x.cb.Estimated
	// mix is the mixture's (log q, log p) of item row r: log 1 for a row without an item (a
	// padding row's positive and own draws), which no loss reads.
	mix := func(r int) (float64, float64) {
		if k := x.of[r]; k >= 0 {
			return x.la[k], x.pa[k]
		}
		return 0, 0
	}
	logQ, logP, posQ, posP := c.Col(candidates.LogQ), c.Col(candidates.LogP), c.Row(candidates.LogQ), c.Row(candidates.LogP)
	for i := range pos {
		posQ[i], posP[i] = mix(i)
	}
	cols, perRow := len(c.ColItem), 1
	if x.s.PerRow > 0 {
		cols, perRow = cols/bsz, bsz
	}
	for i := range perRow {
		for j := range cols {
			k, r := i*cols+j, x.s.Row(i, j, bsz)
			c.ColItem[k] = int64(rows[r])
			logQ[k], logP[k] = mix(r)
			if j == 0 && x.s.Layout == candidates.First {
				c.ColItem[k] = candidates.NoItem // each row's own positive
			}
		}
	}
	return nil
}

// empty counts the drawn item rows a component left without an item (Geometry.Unfilled).
func empty(rows []int32) int {
	n := 0
	for _, item := range rows {
		if item == candidates.NoItem {
			n++
		}
	}
	return n
}
