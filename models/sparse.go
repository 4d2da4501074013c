package models

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

// scatter adds the gradient dx (len(ids) × t.in, the gradient of the loss w.r.t. the tower
// inputs gathered for ids) to the embedding rows it came from: the transpose of gather's
// weighted mean pooling, dE[id_k] += (w_k / Σw) · dx[field segment].
func scatter[T float](m *Model, t *tower, ids []int32, dx []T, grads []*rowGrad[T]) {
	dim := m.s.EmbeddingDim
	for r, e := range ids {
		row := dx[r*t.in : (r+1)*t.in]
		for _, fi := range t.fields {
			bag, w := fi.field.Bag(int(e))
			if len(bag) == 0 {
				continue
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
				continue
			}
			seg := row[fi.off : fi.off+dim]
			rg := grads[fi.table]
			for k, id := range bag {
				c := 1 / sum
				if w != nil {
					c = T(w[k]) / sum
				}
				dst := rg.row(id)
				for j, v := range seg {
					dst[j] += c * v
				}
			}
		}
	}
}
