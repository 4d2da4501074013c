package metrics

import (
	"cmp"
	"math"
	"slices"

	"github.com/samplingbias/workbench/internal/simd"
)

// topLists are the top lists of the test queries, per τ, kept while ranking (Settings.lists):
// for query a (the ranker's queries[a]) and τ k, items[k][off[a]:off[a]+n[k][a]] are the items
// of highest decision score x̂ (the ranking's, see Ties), best first, equal x̂ by increasing
// item, after the query's excluded items other than its pairs' items are removed, and x[k] their
// decision scores when scores are kept. A list holds max(K) + T − 1 items, T the query's
// distinct pair items (fewer only in a small corpus): removing the other T − 1 pair items, as a
// pair's own ranking does under a filter, leaves its top max(K).
//
// The ranking finds them without sorting the corpus: while the tiles stream past, each (query,
// τ) keeps the candidates whose float32 score x_j is at least a threshold t = x_(L) − 2E, where
// x_(L) is the L-th largest float32 score seen so far, L = max(K) + the query's special items
// − 1, and 2E the rounding bound of setBands. An item among the L best by x̂ has x_j ≥ x̂_j − E
// ≥ x̂_(L) − E ≥ x_(L) − 2E, so it is kept; once the row is complete, the candidates are sorted
// by x̂ computed exactly.
type topLists struct {
	kmax   int
	scores bool
	off    []int32     // per query, len(queries)+1
	items  [][]int32   // per τ
	x      [][]float64 // per τ, when scores
	n      [][]int32   // per τ and query: the list's length
}

// candidate is an item and its float32 score x during the ranking.
type candidate struct {
	j int32
	x float32
}

// topWorker is one goroutine's state of the top lists of a block of queries.
type topWorker struct {
	cand  [][]candidate // per block query i and τ k: cand[i*nt+k]
	thr   []float32     // their thresholds
	lim   []int         // their lengths that trigger a pruning
	need  []int         // per block query: L
	bound []float64     // per block query and τ: 2E
	xs    []float32     // pruning's buffer
	hat   []ranked      // finishing's buffer
}

// ranked is an item and its decision score.
type ranked struct {
	j int32
	x float64
}

// newTopLists prepares the lists of r's queries for cut-offs up to kmax.
func newTopLists(r *ranker, kmax int, scores bool) *topLists {
	t := &topLists{kmax: kmax, scores: scores, off: make([]int32, len(r.queries)+1)}
	for a := range r.queries {
		t.off[a+1] = t.off[a] + int32(min(kmax+r.pairItems(a)-1, r.m))
	}
	t.items = make([][]int32, r.nt)
	t.n = make([][]int32, r.nt)
	if scores {
		t.x = make([][]float64, r.nt)
	}
	for k := range r.nt {
		t.items[k] = make([]int32, t.off[len(r.queries)])
		t.n[k] = make([]int32, len(r.queries))
		if scores {
			t.x[k] = make([]float64, t.off[len(r.queries)])
		}
	}
	return t
}

// pairItems is the number of distinct items of the pairs of queries[a].
func (r *ranker) pairItems(a int) int {
	n := 0
	for e := r.spOff[a]; e < r.spOff[a+1]; e++ {
		if r.isPairItem(a, r.spItem[e]) {
			n++
		}
	}
	return n
}

// isPairItem reports whether j is the item of a pair of queries[a].
func (r *ranker) isPairItem(a int, j int32) bool {
	for _, p := range r.pairIdx[r.pairOff[a]:r.pairOff[a+1]] {
		if r.pair[p].Item == j {
			return true
		}
	}
	return false
}

// newTopWorker returns the state of a goroutine ranking blocks of up to rows queries.
func newTopWorker(rows, nt int) *topWorker {
	return &topWorker{cand: make([][]candidate, rows*nt), thr: make([]float32, rows*nt), lim: make([]int, rows*nt),
		need: make([]int, rows), bound: make([]float64, 0, rows*nt)}
}

// start begins the lists of the block queries[a0:a1].
func (t *topLists) start(r *ranker, w *topWorker, a0, a1 int) {
	for i := range a1 - a0 {
		a := a0 + i
		w.need[i] = t.kmax + int(r.spOff[a+1]-r.spOff[a]) - 1
		w.bound = r.bounds(r.queries[a], w.bound[:i*r.nt])
		for k := range r.nt {
			c := i*r.nt + k
			w.cand[c] = w.cand[c][:0]
			w.thr[c] = float32(math.Inf(-1))
			w.lim[c] = 2 * w.need[i]
		}
	}
}

// collect adds the items of the scores x (τ k, items j0..j0+len(x)-1) of the block's query i at
// or above its threshold to its candidates.
func (w *topWorker) collect(nt, i, k, j0 int, x []float32) {
	c := i*nt + k
	inf := float32(math.Inf(1))
	n, _ := simd.CountGE(x, w.thr[c], inf)
	for off := 0; n > 0; n-- {
		at := off + simd.IndexIn(x[off:], w.thr[c], inf)
		w.cand[c] = append(w.cand[c], candidate{int32(j0 + at), x[at]})
		off = at + 1
	}
	if len(w.cand[c]) >= w.lim[c] {
		w.prune(c, w.need[i], w.bound[c])
	}
}

// prune raises the threshold of candidates c to x_(L) − 2E and drops the candidates below it.
func (w *topWorker) prune(c, need int, bound float64) {
	cs := w.cand[c]
	w.xs = w.xs[:0]
	for _, e := range cs {
		w.xs = append(w.xs, e.x)
	}
	slices.Sort(w.xs)
	if t := down32(float64(w.xs[len(w.xs)-need]) - bound); t > w.thr[c] {
		w.thr[c] = t
		kept := cs[:0]
		for _, e := range cs {
			if e.x >= t {
				kept = append(kept, e)
			}
		}
		w.cand[c] = kept
	}
	w.lim[c] = max(2*need, 2*len(w.cand[c]))
}

// finish sorts the candidates of queries[a], the block's query i, by decision score and writes
// its lists.
func (t *topLists) finish(r *ranker, w *topWorker, a, i int) {
	q := r.queries[a]
	sp, sq := r.spOff[a], r.spOff[a+1]
	for k := range r.nt {
		w.hat = w.hat[:0]
		for _, e := range w.cand[i*r.nt+k] {
			if at, ok := slices.BinarySearch(r.spItem[sp:sq], e.j); ok && r.spExcl[int(sp)+at] && !r.isPairItem(a, e.j) {
				continue // removed from the query's rankings
			}
			w.hat = append(w.hat, ranked{e.j, r.decision(q, e.j, k)})
		}
		slices.SortFunc(w.hat, func(u, v ranked) int {
			if c := cmp.Compare(v.x, u.x); c != 0 {
				return c
			}
			return cmp.Compare(u.j, v.j)
		})
		lo, hi := t.off[a], t.off[a+1]
		n := min(int(hi-lo), len(w.hat))
		for e, h := range w.hat[:n] {
			t.items[k][int(lo)+e] = h.j
			if t.scores {
				t.x[k][int(lo)+e] = h.x
			}
		}
		t.n[k][a] = int32(n)
	}
}

// list returns the top list of queries[a] under τ k, and its decision scores (nil unless kept).
func (t *topLists) list(k, a int) ([]int32, []float64) {
	lo := t.off[a]
	hi := lo + t.n[k][a]
	if t.scores {
		return t.items[k][lo:hi], t.x[k][lo:hi]
	}
	return t.items[k][lo:hi], nil
}
