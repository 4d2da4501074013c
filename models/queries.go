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
// appearance (PairQueries): the pairs of one query share a row when the tower reads the query's
// own features, and the pairs of one query with the same history when it reads a history of
// items (datasets.Dataset.History: the query's training items before the pair, of which the
// tower reads the last max_length; an empty history for a query without training pairs). It is
// the one method through which an evaluation embeds its queries (Evaluate).
func (m *Model) EmbedPairQueries(ds *datasets.Dataset, p datasets.Part) (QueryRows, error) {
	if t := m.towers[sideQuery]; ds.Queries != t.n {
		return QueryRows{}, fmt.Errorf("models: dataset %q has %d queries, the model was built for %d", ds.Name, ds.Queries, t.n)
	}
	if m.ReadsHistory() && ds.Sequences == nil {
		return QueryRows{}, fmt.Errorf("models: dataset %q has no sequence index (datasets.Options.Sequences), which the query tower reads", ds.Name)
	}
	pairs := ds.Pairs(p)
	row, first := m.PairQueries(ds, p)
	q := QueryRows{Row: row, Query: make([]int32, len(first))}
	for r, i := range first {
		q.Query[r] = pairs[i].Query
	}
	var err error
	q.U, err = m.embedPairs(ds, p, first)
	return q, err
}
