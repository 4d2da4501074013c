package models

import (
	"fmt"

	"github.com/samplingbias/workbench/datasets"
)

// QueryRows are the query side of an evaluation of pairs: one query embedding per row and the row
// of every pair.
type QueryRows struct {
	// Row[i] is the row of pair i.
	Row []int32
	// Query[r] is the query (the user, the example) of row r: the entity whose positives a
	// filtered evaluation excludes.
	Query []int32
	// U holds the rows' L2-normalised query embeddings, row-major len(Query) × Dim().
	U []float32
}

// EmbedPairQueries embeds the queries of the pairs of part p of ds, each by the query tower's
// forward definition, one row per distinct query embedding in the order of the pairs' first
// appearance: the pairs of one query share a row when the tower reads the query's own features,
// and the pairs of one query with the same history when it reads a history of items
// (datasets.Dataset.History: the query's training items before the pair, of which the tower
// reads the last max_length; an empty history for a query without training pairs). It is the
// one method through which an evaluation embeds its queries (Evaluate).
func (m *Model) EmbedPairQueries(ds *datasets.Dataset, p datasets.Part) (QueryRows, error) {
	pairs := ds.Pairs(p)
	t := m.towers[sideQuery]
	if ds.Queries != t.n {
		return QueryRows{}, fmt.Errorf("models: dataset %q has %d queries, the model was built for %d", ds.Name, ds.Queries, t.n)
	}
	q := QueryRows{Row: make([]int32, len(pairs))}
	if t.history == nil {
		row := map[int32]int32{}
		for i, x := range pairs {
			r, ok := row[x.Query]
			if !ok {
				r = int32(len(q.Query))
				row[x.Query] = r
				q.Query = append(q.Query, x.Query)
			}
			q.Row[i] = r
		}
		var err error
		q.U, err = m.EmbedQueries(q.Query)
		return q, err
	}
	if ds.Sequences == nil {
		return QueryRows{}, fmt.Errorf("models: the query tower reads histories, and dataset %q has none (no timestamps)", ds.Name)
	}
	// A history is the first Before items of its query's sequence: (query, Before) names it.
	type context struct{ query, before int32 }
	row := map[context]int32{}
	var first []int // the pair of each row
	for i, x := range pairs {
		c := context{x.Query, ds.Sequences.Before[p][i]}
		r, ok := row[c]
		if !ok {
			r = int32(len(q.Query))
			row[c] = r
			q.Query = append(q.Query, x.Query)
			first = append(first, i)
		}
		q.Row[i] = r
	}
	n := t.history.maxLen
	w := &Window{Rows: len(first), Len: n, Items: make([]int32, len(first)*n)}
	for r, i := range first {
		datasets.PadLeft(w.Items[r*n:(r+1)*n], ds.History(p, i, n))
	}
	var err error
	q.U, err = m.embedHistories(q.Query, w)
	return q, err
}
