package models

import "github.com/samplingbias/workbench/internal/distinct"

// repeats lists the rows of a tower's input that repeat an earlier row's entity. A tower's
// input row is a function of its entity alone (pooled embeddings and dense features: not with a
// history), so such rows have the earlier row's forward values bit for bit, every product
// computing each element by the same operations wherever it lies (internal/gemm): the input
// pooling and the dense layers compute each entity once and copy its rows. Popular items fill
// in-batch steps with copies (a third of the item rows of configs/wiki.toml's steps). The
// backward pass is untouched: every row keeps its own gradient, summed in row order.
type repeats struct {
	lister distinct.Lister
	n      int     // entities of the side: ids in [0, n)
	ids    []int32 // the step's distinct entities, in order of first appearance
	first  []int32 // per distinct entity: its first row
	of     []int32 // per row: the index of its entity in ids
	some   bool    // whether a row repeats an earlier one (and every id is in [0, n))
}

// newRepeats returns the repeats of a tower of rows rows over n entities.
func newRepeats(n, rows int) *repeats {
	return &repeats{n: n, of: make([]int32, rows)}
}

// list records the step's rows, ids[r] the entity of row r.
func (p *repeats) list(ids []int32) {
	p.ids = p.lister.List(ids, p.n, p.ids[:0], p.of)
	p.first = p.first[:0]
	p.some = len(p.ids) < len(ids)
	for r, u := range p.of {
		if u < 0 { // no entity: every row is its own
			p.some = false
			return
		}
		if int(u) == len(p.first) {
			p.first = append(p.first, int32(r))
		}
	}
}

// active reports whether p (nil: none) has rows to copy.
func (p *repeats) active() bool { return p != nil && p.some }

// expandRows copies, in the matrix x of w columns whose first-appearance rows are set, every
// repeated row from its entity's first row.
func expandRows[T float](p *repeats, x []T, w int) {
	for r, u := range p.of {
		if f := int(p.first[u]); f != r {
			copy(x[r*w:(r+1)*w], x[f*w:(f+1)*w])
		}
	}
}
