package models

import "sync"

// rowGrad is the row-sparse gradient of one embedding table for one step: the rows touched by
// the batch, in first-touch order, and their accumulated gradients. Its work per step is
// proportional to the rows touched, never to the table size (slot has one entry per row but is
// only read and reset at touched rows).
type rowGrad[T float] struct {
	dim  int
	slot []int32 // row → index into rows, or -1
	rows []int32 // touched rows
	grad []T     // len(rows) × dim
}

func newRowGrad[T float](rows, dim int) *rowGrad[T] {
	g := &rowGrad[T]{dim: dim, slot: make([]int32, rows)}
	for i := range g.slot {
		g.slot[i] = -1
	}
	return g
}

// row returns the gradient row of table row id, zeroed when first touched this step.
func (g *rowGrad[T]) row(id int32) []T {
	s := g.slot[id]
	if s < 0 {
		s = int32(len(g.rows))
		g.slot[id] = s
		g.rows = append(g.rows, id)
		g.grad = append(g.grad, make([]T, g.dim)...)
	}
	return g.grad[int(s)*g.dim : int(s+1)*g.dim]
}

// reset forgets the touched rows.
func (g *rowGrad[T]) reset() {
	for _, r := range g.rows {
		g.slot[r] = -1
	}
	g.rows = g.rows[:0]
	g.grad = g.grad[:0]
}

// scatter adds the gradients dx[side] (len(ids[side]) × in, the gradient of the loss w.r.t. the
// tower inputs gathered for ids[side]; nil for a side without fields) to the embedding rows they
// came from: the transpose of gather's weighted mean pooling, dE[id_k] += (w_k / Σw) · dx[field
// segment]. history, when not nil, adds what the query side reads besides its fields (a history
// of items) to table ti, before the fields. Tables are filled concurrently, each by one
// goroutine in a fixed order (the query's history, the query side's fields, then the item
// side's; fields and rows in order), so the sums do not depend on scheduling.
func scatter[T float](m *Model, ids [2][]int32, dx [2][]T, grads []*rowGrad[T], history func(ti int, rg *rowGrad[T])) {
	var wg sync.WaitGroup
	for ti, rg := range grads {
		wg.Go(func() {
			if history != nil {
				history(ti, rg)
			}
			for side, t := range m.towers {
				if dx[side] == nil {
					continue
				}
				for _, fi := range t.fields {
					if fi.table == ti {
						scatterField(fi, t.in, ids[side], dx[side], rg)
					}
				}
			}
		})
	}
	wg.Wait()
}

// scatterField adds the gradient of one field's pooled segment to its table's rows; a row whose
// entity is candidates.NoItem (a padding row's) adds nothing.
func scatterField[T float](fi fieldInput, in int, ids []int32, dx []T, rg *rowGrad[T]) {
	dim := rg.dim
	for r, e := range ids {
		if e < 0 {
			continue
		}
		bag, w := fi.field.Bag(int(e))
		scatterBag(dx[r*in+fi.off:r*in+fi.off+dim], bag, w, rg)
	}
}

// scatterBag adds the gradient seg of a pooled segment (poolBag of bag with weights w) to the
// rows of bag: dE[id_k] += (w_k / Σw) · seg.
func scatterBag[T float](seg []T, bag []int32, w []float32, rg *rowGrad[T]) {
	if len(bag) == 0 {
		return
	}
	var sum T
	if w == nil {
		sum = T(len(bag))
	} else {
		for _, wk := range w {
			sum += T(wk)
		}
	}
	if sum == 0 {
		return
	}
	for k, id := range bag {
		c := 1 / sum
		if w != nil {
			c = T(w[k]) / sum
		}
		addScaled(rg.row(id), c, seg)
	}
}
