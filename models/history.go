package models

import (
	"fmt"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/datasets"
)

// historyInput places the mean of a history of items in the query tower's input: Yi et al.'s
// watch-history feature (section 5), the user's past k videos as a bag of ids whose embeddings
// are mean-pooled and concatenated with the user's other features before the query MLP. Like the
// feature bags, the mean is gathered outside the graph into the tower's input, and its gradient
// scattered back into the table's rows (gatherHistory, scatterHistory).
type historyInput struct {
	table int // index into Model.tables: the item tower's id table when shared
	// rowOf is the table's row of each item (the item tower's id field's token of it when
	// shared); nil: item e is row e.
	rowOf  []int32
	off    int // first column of the mean in the tower's input
	maxLen int // the longest history the tower reads (SequenceSettings.MaxLength)
}

// historyTable sets the table h reads the history's items from, for a corpus of items items:
// with ShareEmbeddings the item tower's id table, that of its first field that gives every item
// an id of its own (ownIDs), each item read at its id's row; otherwise a table of its own,
// query.history (items × EmbeddingDim).
func (m *Model) historyTable(h *historyInput, items int) error {
	if !m.s.ShareEmbeddings {
		m.tables = append(m.tables, m.newParam("query.history", items, m.s.EmbeddingDim))
		h.table = len(m.tables) - 1
		return nil
	}
	for _, fi := range m.towers[sideItem].fields {
		if ownIDs(fi.field, items) {
			m.tables[fi.table].name = "shared." + fi.field.Name
			h.table, h.rowOf = fi.table, fi.field.IDs
			return nil
		}
	}
	return fmt.Errorf("share_embeddings: the history would share the item tower's id table, but no item field gives every item an id of its own (a field whose bag of each item is one id, weight 1, no two items the same)")
}

// ownIDs reports whether f gives each of the n entities a bag of one id of its own, weight 1:
// its id field, whose ids stand for the entities (Field.IDs[e] is entity e's).
func ownIDs(f *datasets.Field, n int) bool {
	if len(f.Offsets) != n+1 || len(f.IDs) != n {
		return false
	}
	seen := make(map[int32]bool, n)
	for e := range n {
		bag, w := f.Bag(e)
		if len(bag) != 1 || seen[bag[0]] || w != nil && w[0] != 1 {
			return false
		}
		seen[bag[0]] = true
	}
	return true
}

// rows returns the table rows of items into dst (reused): the items themselves, or their rowOf.
func (h *historyInput) rows(dst, items []int32) []int32 {
	if h.rowOf == nil {
		return items
	}
	dst = dst[:0]
	for _, it := range items {
		dst = append(dst, h.rowOf[it])
	}
	return dst
}

// gatherHistory sets the history segment of every row r of x (the tower inputs of w.Rows rows)
// to the mean of the table's rows of the items of row r of w (zeros for an empty history).
func gatherHistory[T float](m *Model, t *tower, w *Window, x []T) {
	h, dim := t.history, m.s.EmbeddingDim
	emb := values[T](m.tables[h.table])
	parallelRows(w.Rows, t.in, func(lo, hi int) {
		var rows []int32
		for r := lo; r < hi; r++ {
			rows = h.rows(rows, w.history(r))
			poolBag(x[r*t.in+h.off:r*t.in+h.off+dim], rows, nil, emb)
		}
	})
}

// scatterHistory adds the gradient of the history segments of dx (the gradient w.r.t. the tower
// inputs gathered for w) to the table's rows: the transpose of gatherHistory. A row whose query
// is negative (candidates.NoItem: a padding row's) adds nothing; queries nil: every row adds.
func scatterHistory[T float](m *Model, t *tower, w *Window, queries []int32, dx []T, rg *rowGrad[T]) {
	h, dim := t.history, m.s.EmbeddingDim
	var rows []int32
	for r := range w.Rows {
		if queries != nil && queries[r] < 0 {
			continue
		}
		rows = h.rows(rows, w.history(r))
		scatterBag(dx[r*t.in+h.off:r*t.in+h.off+dim], rows, nil, rg)
	}
}

// checkHistories checks a window of histories for the query rows ids of the history tower t.
func (m *Model) checkHistories(t *tower, ids []int32, w *Window) error {
	if w.Rows != len(ids) {
		return fmt.Errorf("models: a window of %d histories for %d queries", w.Rows, len(ids))
	}
	return w.check(m.towers[sideItem].n, t.history.maxLen)
}

// embedHistories returns the L2-normalised query embeddings u of the queries ids whose histories
// are the rows of w, row-major len(ids) × Dim(), by the query tower's forward definition.
func (m *Model) embedHistories(ids []int32, w *Window) ([]float32, error) {
	t := m.towers[sideQuery]
	if t.history == nil {
		return nil, fmt.Errorf("models: the query tower reads no histories")
	}
	for _, id := range ids {
		if id < 0 || int(id) >= t.n {
			return nil, fmt.Errorf("models: query id %d out of range [0, %d)", id, t.n)
		}
	}
	if err := m.checkHistories(t, ids, w); err != nil {
		return nil, err
	}
	if m.dt == tensor.Float64 {
		return embedWindowT[float64](m, t, ids, w, towerFused)
	}
	return embedWindowT[float32](m, t, ids, w, towerFused)
}
