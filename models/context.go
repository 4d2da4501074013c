package models

import (
	"fmt"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/datasets"
)

// newSASRecModel builds the model of Settings.Sequence.Encoder = sasrec (New): the encoder over
// the items of ds, the query tower without fields nor layers (the encoder stands for it), and the
// item tower reading the output item table alone, without layers nor normalisation. The data's
// features must be the entities' ids alone (a field giving each entity an id of its own), which
// the encoder's tables stand for. The encoder initialises its own parameters from seed.
func newSASRecModel(s Settings, ds *datasets.Dataset, dt tensor.Dtype, seed int64) (*Model, error) {
	qf, itf := ds.QueryFeatures, ds.ItemFeatures
	if qf == nil || itf == nil {
		return nil, fmt.Errorf("models: dataset %q has no query or no item features", ds.Name)
	}
	refuse := func(side, what string) error {
		return fmt.Errorf("sequence.encoder: %q reads a user's items alone and scores an item by its id embedding (Kang & McAuley), so the %s %s of dataset %q has no place in it; "+
			"leave it out of the data (data.interactions.query_features, item_features) or use encoder %q", EncoderSASRec, side, what, ds.Name, EncoderMean)
	}
	for i := range qf.Fields {
		if f := &qf.Fields[i]; !ownIDs(f, ds.Queries) {
			return nil, refuse("query feature", fmt.Sprintf("%q", f.Name))
		}
	}
	if qf.DenseDim > 0 {
		return nil, refuse("query", "dense features")
	}
	for i := range itf.Fields {
		if f := &itf.Fields[i]; i > 0 || !ownIDs(f, ds.Items) {
			return nil, refuse("item feature", fmt.Sprintf("%q", f.Name))
		}
	}
	if itf.DenseDim > 0 {
		return nil, refuse("item", "dense features")
	}
	e, err := newSASRec(s.Sequence, s.EmbeddingDim, ds.Items, s.InitStd, dt, seed)
	if err != nil {
		return nil, err
	}
	// The item tower reads item e's row e of the output table, whatever the data's id tokens.
	id := datasets.IDField("item_id", ds.Items)
	m := &Model{s: s, dt: dt, enc: e, tables: e.tables()}
	m.towers[sideQuery] = &tower{side: sideQuery, n: ds.Queries, feats: qf}
	m.towers[sideItem] = &tower{side: sideItem, n: ds.Items, feats: &datasets.Features{Fields: []datasets.Field{id}},
		in: s.EmbeddingDim, denseOff: s.EmbeddingDim, fields: []fieldInput{{field: &id, table: len(m.tables) - 1}}}
	return m, nil
}

// ReadsHistory reports whether m's query is a history of items (Settings.Sequence) rather than
// the query's features alone.
func (m *Model) ReadsHistory() bool { return m.s.Sequence.ReadsHistory() }

// PairQueries groups the pairs of part p of ds by the query m embeds for them, for an evaluation
// that embeds each query once: row[i] is pair i's row and first[r] the first pair of row r, rows
// in the order of their first pairs. Without a history, the pairs of a query share its row;
// with one, the pairs of a query whose histories are the same (the same number of the query's
// training items before them, as every held-out pair of a user has under leave_last_out and
// temporal splits) share a row.
func (m *Model) PairQueries(ds *datasets.Dataset, p datasets.Part) (row []int32, first []int) {
	pairs := ds.Pairs(p)
	row = make([]int32, len(pairs))
	seen := map[int64]int32{}
	for i, x := range pairs {
		key := int64(x.Query)
		if m.ReadsHistory() {
			key = key<<32 | int64(ds.Sequences.Before[p][i])
		}
		r, ok := seen[key]
		if !ok {
			r = int32(len(first))
			seen[key] = r
			first = append(first, i)
		}
		row[i] = r
	}
	return row, first
}

// evalRows is the number of histories embedded per inference graph of SASRec: its activations
// are a few dozen arrays of evalRows·MaxLength·Dim values.
const evalRows = 64

// embedPairs returns the query embeddings of the pairs idx of part p of ds (the dataset m was
// built for), row-major len(idx) × Dim(), by the query tower's forward definition. Without a
// history it is EmbedQueries of the pairs' queries. With one, a pair's query is its context: its
// history (ds.History, the last MaxLength training items of its user before it; docs/sequences.md)
// through the mean encoder beside the user's features, or SASRec's hidden state at the history's
// last position, the one that predicts the next item. An empty history (a user whose every pair
// is held out) is padding only: its mean is zero, so the user's features alone make the query,
// and SASRec's output at a padded position is zero, so every item scores 0 for it.
func (m *Model) embedPairs(ds *datasets.Dataset, p datasets.Part, idx []int) ([]float32, error) {
	pairs := ds.Pairs(p)
	ids := make([]int32, len(idx))
	for r, i := range idx {
		if i < 0 || i >= len(pairs) {
			return nil, fmt.Errorf("models: pair %d of %d %s pairs", i, len(pairs), p)
		}
		ids[r] = pairs[i].Query
	}
	if !m.ReadsHistory() {
		return m.EmbedQueries(ids)
	}
	L := m.s.Sequence.MaxLength
	histories := func(lo, hi int) *Window {
		w := &Window{Rows: hi - lo, Len: L, Items: make([]int32, (hi-lo)*L)}
		for r := lo; r < hi; r++ {
			datasets.PadLeft(w.Items[(r-lo)*L:(r-lo+1)*L], ds.History(p, idx[r], L))
		}
		return w
	}
	if m.enc == nil {
		return m.embedHistories(ids, histories(0, len(idx)))
	}
	if m.dt == tensor.Float64 {
		return encodeLast[float64](m.enc, len(idx), histories)
	}
	return encodeLast[float32](m.enc, len(idx), histories)
}

// encodeLast returns e's hidden state at the last position of each of n histories, row-major n ×
// d, windows(lo, hi) giving histories lo to hi−1, through one inference graph of at most
// evalRows histories (a last shorter chunk is padded with empty histories).
func encodeLast[T float](e *sasrec, n int, windows func(lo, hi int) *Window) ([]float32, error) {
	rows := min(n, evalRows)
	f, err := newSASRecInference[T](e, rows, e.s.MaxLength, towerFused)
	if err != nil {
		return nil, err
	}
	d, L := e.d, e.s.MaxLength
	out := make([]float32, n*d)
	for lo := 0; lo < n; lo += rows {
		hi := min(lo+rows, n)
		w := windows(lo, hi)
		if w.Rows < rows {
			pad := make([]int32, (rows-w.Rows)*L)
			for i := range pad {
				pad[i] = Padding
			}
			w = &Window{Rows: rows, Len: L, Items: append(w.Items, pad...)}
		}
		h, err := f.run(w)
		if err != nil {
			return nil, err
		}
		for r := range hi - lo {
			for j, v := range h[((r+1)*L-1)*d : (r+1)*L*d] {
				out[(lo+r)*d+j] = float32(v)
			}
		}
	}
	return out, nil
}
