package metrics

import (
	"cmp"
	"math"
	"slices"

	"github.com/samplingbias/workbench/internal/selectk"
	"github.com/samplingbias/workbench/internal/simd"
)

// topLists are the top lists of the test queries, per τ, kept while ranking (Settings.listTaus):
// for query a (the ranker's queries[a]) and τ k, items[k][off[a]:off[a]+n[k][a]] are the items
// of highest decision score x̂ (the ranking's, see Ties), best first, equal x̂ by increasing
// item, after the query's excluded items other than its pairs' items are removed, and x[k] their
// decision scores when scores are kept. A list holds max(K) + T − 1 items, T the query's
// distinct pair items (fewer only in a small corpus): removing the other T − 1 pair items, as a
// pair's own ranking does under a filter, leaves its top max(K).
//
// The ranking finds them without sorting the corpus: while the tiles stream past, each (query,
// τ) keeps the candidates whose float32 score x_j is at least a threshold t ≤ x_(L) − 2E, where
// x_(L) is the L-th largest float32 score of the candidates when it was last raised (each time
// they double, by selection), L = max(K) + the
// query's special items − 1, and 2E the rounding bound of setBands. An item among the L best by
// x̂ has x_j ≥ x̂_j − E ≥ x̂_(L) − E ≥ x_(L) − 2E, so it is kept. Once the row is complete the
// candidates are sorted by x: two items whose x differ by more than 2E are in the order of x̂,
// and x̂ is computed, exactly, only for the runs of items closer than that (ties and near-ties),
// which are sorted by it.
type topLists struct {
	kmax   int
	scores bool
	keep   []bool      // per τ: whether its lists are kept
	off    []int32     // per query, len(queries)+1
	items  [][]int32   // per τ
	x      [][]float64 // per τ, when scores
	n      [][]int32   // per τ and query: the list's length
}

// A candidate is an item and its float32 score x during the ranking, packed in a uint64 whose
// ascending order is decreasing x, equal x by increasing item (candKey).
func candKey(x float32, j int32) uint64 {
	b := math.Float32bits(x)
	if b&(1<<31) != 0 {
		b = ^b
	} else {
		b |= 1 << 31
	} // b ascends with x
	return uint64(^b)<<32 | uint64(uint32(j))
}

// candScore and candItem unpack a candidate.
func candScore(key uint64) float32 {
	b := ^uint32(key >> 32)
	if b&(1<<31) != 0 {
		b &^= 1 << 31
	} else {
		b = ^b
	}
	return math.Float32frombits(b)
}

func candItem(key uint64) int32 { return int32(uint32(key)) }

// topWorker is one goroutine's state of the top lists of a block of queries.
type topWorker struct {
	cand    [][]uint64 // per block query i and τ k: cand[i*nt+k], candKey
	xs      []float32  // raise's buffer: the candidates' scores
	thr     []float32  // their thresholds
	lim     []int      // their lengths that trigger a pruning
	need    []int      // per block query: L
	bound   []float64  // per block query and τ: 2E
	bound32 []float32  // and 2E rounded up to float32
	hat     []ranked   // finishing's buffer: a run of near-equal scores
}

// ranked is an item and its decision score.
type ranked struct {
	j int32
	x float64
}

// newTopLists prepares the lists of r's queries for cut-offs up to kmax, for the τ that keep
// marks, with their decision scores when scores.
func newTopLists(r *ranker, kmax int, scores bool, keep []bool) *topLists {
	t := &topLists{kmax: kmax, scores: scores, keep: keep, off: make([]int32, len(r.queries)+1)}
	for a := range r.queries {
		t.off[a+1] = t.off[a] + int32(min(kmax+r.pairItems(a)-1, r.m))
	}
	t.items = make([][]int32, r.nt)
	t.n = make([][]int32, r.nt)
	if scores {
		t.x = make([][]float64, r.nt)
	}
	for k := range r.nt {
		if !keep[k] {
			continue
		}
		t.items[k] = make([]int32, t.off[len(r.queries)])
		t.n[k] = make([]int32, len(r.queries))
		if scores {
			t.x[k] = make([]float64, t.off[len(r.queries)])
		}
	}
	return t
}

// kept lists the indices of the τ whose lists are kept.
func (t *topLists) kept() []int {
	var out []int
	for k, ok := range t.keep {
		if ok {
			out = append(out, k)
		}
	}
	return out
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
	return &topWorker{cand: make([][]uint64, rows*nt), thr: make([]float32, rows*nt),
		lim: make([]int, rows*nt), need: make([]int, rows), bound: make([]float64, 0, rows*nt), bound32: make([]float32, rows*nt)}
}

// start begins the lists of the block queries[a0:a1].
func (t *topLists) start(r *ranker, w *topWorker, a0, a1 int) {
	for i := range a1 - a0 {
		a := a0 + i
		w.need[i] = t.kmax + int(r.spOff[a+1]-r.spOff[a]) - 1
		w.bound = r.bounds(r.queries[a], w.bound[:i*r.nt])
		for _, k := range t.kept() {
			c := i*r.nt + k
			w.bound32[c] = up32(w.bound[c])
			w.lim[c] = 2 * w.need[i]
			if cap(w.cand[c]) < w.lim[c] {
				w.cand[c] = make([]uint64, 0, w.lim[c])
			}
			w.cand[c] = w.cand[c][:0]
			w.thr[c] = float32(math.Inf(-1))
		}
	}
}

// collect adds the items of the scores x (τ k, items j0..j0+len(x)-1) of the block's query i at
// or above its threshold to its candidates; when they are twice as many as the list needs, the
// threshold rises to the L-th highest of them (less 2E) and the candidates below it go.
func (w *topWorker) collect(nt, i, k, j0 int, x []float32) {
	c := i*nt + k
	inf := float32(math.Inf(1))
	// Most tiles have few items above the threshold, found in vector registers one at a time;
	// a tile with many (the first ones of a row) is read through.
	n, _ := simd.CountGE(x, w.thr[c], inf)
	dense := n > len(x)/16
	for off := 0; off < len(x) && n > 0; {
		at := off
		if dense {
			for at < len(x) && !(x[at] >= w.thr[c]) {
				at++
			}
			if at == len(x) {
				break
			}
		} else {
			if at = simd.IndexIn(x[off:], w.thr[c], inf); at < 0 {
				break
			}
			at += off
		}
		w.cand[c] = append(w.cand[c], candKey(x[at], int32(j0+at)))
		off = at + 1
		if len(w.cand[c]) >= w.lim[c] {
			w.raise(c, w.need[i])
		}
	}
}

// raise sets the threshold of candidates c to below their need-th highest score by 2E, drops
// the candidates under it, and doubles what they may grow to before the next raise.
func (w *topWorker) raise(c, need int) {
	w.xs = w.xs[:0]
	for _, e := range w.cand[c] {
		w.xs = append(w.xs, candScore(e))
	}
	if t := below(selectk.KthLargest(w.xs, need), w.bound32[c]); t > w.thr[c] {
		w.thr[c] = t
		w.prune(c)
	}
	w.lim[c] = max(2*need, 2*len(w.cand[c]))
}

// below is a float32 at most x − b: the difference rounded in float32, then one step down.
func below(x, b float32) float32 { return math.Nextafter32(x-b, float32(math.Inf(-1))) }

// prune drops the candidates c below their threshold.
func (w *topWorker) prune(c int) {
	kept := w.cand[c][:0]
	for _, e := range w.cand[c] {
		if candScore(e) >= w.thr[c] {
			kept = append(kept, e)
		}
	}
	w.cand[c] = kept
}

// finish writes the lists of queries[a], the block's query i: its candidates without the items
// removed from its rankings, in decreasing float32 score, where that order is the decision
// score's (two scores more than 2E apart), and by decision score within each run of scores
// closer than that, equal decision scores by increasing item.
func (t *topLists) finish(r *ranker, w *topWorker, a, i int) {
	q := r.queries[a]
	sp, sq := r.spOff[a], r.spOff[a+1]
	for _, k := range t.kept() {
		c := i*r.nt + k
		w.prune(c)
		cs := w.cand[c]
		slices.Sort(cs)
		kept := cs[:0]
		for _, e := range cs {
			j := candItem(e)
			if at, ok := slices.BinarySearch(r.spItem[sp:sq], j); ok && r.spExcl[int(sp)+at] && !r.isPairItem(a, j) {
				continue // removed from the query's rankings
			}
			kept = append(kept, e)
		}
		lo, hi := int(t.off[a]), int(t.off[a+1])
		out, n := t.items[k][lo:hi], 0
		for s := 0; s < len(kept) && n < len(out); {
			e := s + 1
			for e < len(kept) && float64(candScore(kept[e-1]))-float64(candScore(kept[e])) <= w.bound[c] {
				e++
			}
			if e-s == 1 {
				out[n] = candItem(kept[s])
				n++
				s = e
				continue
			}
			w.hat = w.hat[:0]
			for _, key := range kept[s:e] {
				j := candItem(key)
				w.hat = append(w.hat, ranked{j, r.decision(q, j, k)})
			}
			slices.SortFunc(w.hat, func(u, v ranked) int {
				if c := cmp.Compare(v.x, u.x); c != 0 {
					return c
				}
				return cmp.Compare(u.j, v.j)
			})
			for _, h := range w.hat {
				if n < len(out) {
					out[n] = h.j
					n++
				}
			}
			s = e
		}
		if t.scores {
			for e, j := range out[:n] {
				t.x[k][lo+e] = r.decision(q, j, k)
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
