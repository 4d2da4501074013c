package metrics

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/simd"
)

// ranker computes, for every test pair and τ, the rank of the pair's item in its query's score
// row over the whole corpus:
//
//	rank = 1 + #{j ≠ y, j not excluded : x̂_j ≥ x̂_y},  x̂_j = Σ_l u_l·v_jl + a_j,
//
// where x̂ is the decision score: evaluated in float64 from the float32 embeddings, summing over
// l in increasing order, plus the float32 adjustment a_j = float32(-τ·log π_j) (absent for τ = 0).
// Every product of two float32 is exact in float64, so x̂ is the same on every processor and with
// every BLAS; two items with equal embeddings and priors get equal x̂ and tie. Ties count
// against the pair's item.
//
// x̂ is never computed for the whole corpus: the backend's float32 product s_j (any summation
// order, with or without fused multiply-adds) and x_j = s_j + a_j in float32 sort out almost
// every item. Each (pair, τ) gets, before scoring, an interval [lo, hi) around x̂_y wider than
// twice the largest possible gap |x_j − x̂_j| over all items j of the corpus (a bound on float32
// and float64 rounding, see setBands). An item with x_j ≥ hi then surely has x̂_j > x̂_y and one
// with x_j < lo surely has x̂_j < x̂_y; while the tiles stream past, the first are counted and
// the rare items inside [lo, hi) are kept, and once the row is complete their x̂ is computed and
// compared with x̂_y. The ranks are therefore those of x̂, whatever BLAS computed the tiles.
type ranker struct {
	u, v []float32
	d, m int
	nt   int       // number of τ
	taus []float64 // τ per k
	lp   []float64 // log π, when some τ is not 0
	pair []Pair
	// vmax[l] is max_j |V[j][l]|, vnorm max_j ‖V[j]‖₂ and amax[k] max_j |a_j| for τ k: the
	// ingredients of the rounding bound of setBands.
	vmax  []float64
	vnorm float64
	amax  []float64

	// Queries with at least one pair, ascending; the pairs of queries[a] are
	// pairIdx[pairOff[a]:pairOff[a+1]].
	queries []int32
	pairOff []int32
	pairIdx []int32
	// The special items of queries[a] are spItem[spOff[a]:spOff[a+1]], ascending and distinct: its
	// pairs' items and, when filtering, its excluded items (spExcl). spScore receives their
	// scores as the tiles pass.
	spOff   []int32
	spItem  []int32
	spExcl  []bool
	spScore []float32

	state []bandState  // per pair p and τ k: state[p*nt+k]
	ranks []int32      // per τ k and pair p: ranks[k*len(pair)+p]
	done  atomic.Int64 // pairs ranked so far, for progress
	top   *topLists    // the queries' top lists; nil when none is kept
}

// bandState is the running count of one (pair, τ).
type bandState struct {
	xy     float64 // x̂_y
	lo, hi float32
	above  int64   // items with x ≥ hi
	band   []int32 // items with lo ≤ x < hi
}

// newRanker prepares the ranking of in, which has passed checkInput; s must be resolved.
func newRanker(in Input, s *Settings) (*ranker, error) {
	amax, err := checkAdjustments(s.LogitAdjust, in.LogPrior)
	if err != nil {
		return nil, err
	}
	d := in.Dim
	r := &ranker{u: in.U, v: in.V, d: d, m: len(in.V) / d, nt: len(s.LogitAdjust), taus: s.LogitAdjust, lp: in.LogPrior, amax: amax, pair: in.Pairs}
	n := len(in.U) / d

	// Group the pairs by query (counting sort, so pairs keep their order within a query).
	count := make([]int32, n)
	for _, p := range in.Pairs {
		count[p.Query]++
	}
	slot := make([]int32, n) // offset of each query's pairs in pairIdx
	r.pairOff = []int32{0}
	for q, c := range count {
		if c > 0 {
			r.queries = append(r.queries, int32(q))
			slot[q] = r.pairOff[len(r.pairOff)-1]
			r.pairOff = append(r.pairOff, slot[q]+c)
		}
	}
	r.pairIdx = make([]int32, len(in.Pairs))
	for i, p := range in.Pairs {
		r.pairIdx[slot[p.Query]] = int32(i)
		slot[p.Query]++
	}

	// Special items per query.
	r.spOff = make([]int32, 1, len(r.queries)+1)
	type special struct {
		j    int32
		excl bool
	}
	var buf []special
	for a, q := range r.queries {
		buf = buf[:0]
		for _, p := range r.pairIdx[r.pairOff[a]:r.pairOff[a+1]] {
			buf = append(buf, special{in.Pairs[p].Item, false})
		}
		if s.Filter.Excludes() {
			for _, j := range in.Exclude[q] {
				buf = append(buf, special{j, true})
			}
		}
		slices.SortFunc(buf, func(x, y special) int { return cmp.Compare(x.j, y.j) })
		for i, e := range buf {
			last := len(r.spItem) - 1
			if i > 0 && buf[i-1].j == e.j {
				r.spExcl[last] = r.spExcl[last] || e.excl
				continue
			}
			r.spItem = append(r.spItem, e.j)
			r.spExcl = append(r.spExcl, e.excl)
		}
		r.spOff = append(r.spOff, int32(len(r.spItem)))
	}
	r.spScore = make([]float32, len(r.spItem))

	r.state = make([]bandState, len(in.Pairs)*r.nt)
	r.corpusBounds(s.Workers)
	r.setBands(s.Workers)
	r.ranks = make([]int32, len(in.Pairs)*r.nt)
	return r, nil
}

// setBands gives every (pair, τ) its decision score x̂_y and its interval [lo, hi).
//
// The gap between an item's float32 score x_j and its decision score x̂_j is bounded for every
// item at once. A dot product of length d summed in any order, with or without fused
// multiply-adds, is within γ_d·Σ_l|u_l v_jl| of the exact value, γ_d = d·ε/(1−d·ε), with
// ε = 2⁻²⁴ in float32 and 2⁻⁵³ in float64 (Higham, Accuracy and Stability of Numerical
// Algorithms, 2nd ed., §3.1), and adding a_j rounds once more (relative ε). With
// A = min(Σ_l |u_l|·max_j|v_jl|, ‖u‖₂·max_j‖v_j‖₂) ≥ Σ_l|u_l v_jl| and a = max_j|a_j|,
//
//	|x_j − x̂_j| ≤ E = (γ32+γ64)·A + (ε32+ε64)·((1+γ32)·A + a) + an absolute term for underflow.
//
// The interval is x̂_y ± 2E rounded outwards to float32: x_j ≥ hi gives x̂_j ≥ x̂_y + E > x̂_y,
// x_j < lo gives x̂_j < x̂_y − E, and the computed x_y itself lies inside.
//
// The pairs are split among workers goroutines; each pair's interval depends on the pair alone.
func (r *ranker) setBands(workers int) {
	parallel.Split(len(r.pair), parallel.Parts(len(r.pair)*r.d, 1<<16, workers), func(_, lo, hi int) {
		r.setBandsOf(lo, hi)
	})
}

// setBandsOf is setBands for pairs lo..hi-1.
func (r *ranker) setBandsOf(lo, hi int) {
	bound := make([]float64, 0, r.nt) // per τ, for the current query
	for p := lo; p < hi; p++ {
		pr := r.pair[p]
		bound = r.bounds(pr.Query, bound[:0])
		dot := r.dot(pr.Query, pr.Item)
		for k := range r.nt {
			xy := dot
			xy += float64(r.adjOf(k, pr.Item))
			st := &r.state[p*r.nt+k]
			st.xy = xy
			st.lo = down32(xy - bound[k])
			st.hi = up32(xy + bound[k])
		}
	}
}

// bounds appends to out, for every τ, twice the bound E of setBands on |x_j − x̂_j| over all
// items j for query q.
func (r *ranker) bounds(q int32, out []float64) []float64 {
	const unit32, unit64 = 0x1p-24, 0x1p-53
	d := float64(r.d)
	gamma32 := d * unit32 / (1 - d*unit32)
	gamma64 := d * unit64 / (1 - d*unit64)
	tiny := (d + 2) * 0x1p-148
	uq := r.u[int(q)*r.d:][:r.d]
	var byCoord, norm float64
	for l, x := range uq {
		byCoord += math.Abs(float64(x)) * r.vmax[l]
		norm += float64(x) * float64(x)
	}
	a := min(byCoord, math.Sqrt(norm)*r.vnorm) * (1 + 4*d*unit64) // rounding of the bound itself
	for k := range r.nt {
		e := (gamma32+gamma64)*a + (unit32+unit64)*((1+gamma32)*a+r.amax[k]) + tiny
		out = append(out, 2*e)
	}
	return out
}

// dot is Σ_l U[q][l]·V[j][l] in float64, l in increasing order: each product is exact, so the
// sum is the same on every processor, fused multiply-add or not.
func (r *ranker) dot(q, j int32) float64 {
	uq := r.u[int(q)*r.d:][:r.d]
	vj := r.v[int(j)*r.d:][:r.d]
	var s float64
	for l, x := range uq {
		s += float64(x) * float64(vj[l])
	}
	return s
}

// decision is x̂_j for query q under τ k.
func (r *ranker) decision(q, j int32, k int) float64 {
	x := r.dot(q, j)
	x += float64(r.adjOf(k, j))
	return x
}

// corpusBounds sets vmax and vnorm, with the items split among workers goroutines (the maxima
// are the same however they are split).
func (r *ranker) corpusBounds(workers int) {
	parts := parallel.Parts(r.m*r.d, 1<<16, workers)
	vmax := make([][]float64, parts)
	vnorm := make([]float64, parts)
	parallel.Split(r.m, parts, func(part, lo, hi int) {
		mx := make([]float64, r.d)
		var mn float64
		for j := lo; j < hi; j++ {
			vj := r.v[j*r.d:][:r.d]
			var norm float64
			for l, x := range vj {
				ax := math.Abs(float64(x))
				mx[l] = max(mx[l], ax)
				norm += ax * ax
			}
			mn = max(mn, norm)
		}
		vmax[part], vnorm[part] = mx, mn
	})
	r.vmax = vmax[0]
	for part := 1; part < parts; part++ {
		for l, x := range vmax[part] {
			r.vmax[l] = max(r.vmax[l], x)
		}
		vnorm[0] = max(vnorm[0], vnorm[part])
	}
	r.vnorm = math.Sqrt(vnorm[0])
}

// adjOf is a_j = float32(-τ·log π_j) for τ k (0 for τ = 0).
func (r *ranker) adjOf(k int, j int32) float32 {
	if r.taus[k] == 0 {
		return 0
	}
	return float32(-r.taus[k] * r.lp[j])
}

// down32 is the largest float32 not above x; up32 the smallest not below.
func down32(x float64) float32 {
	f := float32(x)
	if float64(f) > x {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}

func up32(x float64) float32 {
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// blockAlign is a divisor of every block height: the height of the kernel's query panels.
const blockAlign = 6

// backend computes tiles of the score matrix.
type backend interface {
	// geometry returns the queries per block, the queries per score tile (at most rows, a
	// multiple of blockAlign) and the items per tile (the row stride of a score tile); run may
	// use smaller blocks, of a multiple of blockAlign queries. A block's tile of items is
	// prepared once for all of its score tiles, which stay small enough for the caches.
	geometry() (rows, sub, cols int)
	// worker returns a tile scorer with its own buffers for blocks of up to rows queries, for one
	// goroutine.
	worker(rows int) tileScorer
}

// embeddings is what every backend holds: the query and item embeddings U and V (row-major, d
// columns) and its geometry.
type embeddings struct {
	u, v            []float32
	d               int
	rows, sub, cols int
}

func (e *embeddings) geometry() (rows, sub, cols int) { return e.rows, e.sub, e.cols }

// tileScorer scores one block of queries against tiles of items.
type tileScorer interface {
	// load makes queries the current block.
	load(queries []int32)
	// pack makes items j0..j0+n-1 the current tile: n ≤ cols, and j0 is a multiple of cols.
	pack(j0, n int)
	// score sets c[(i-i0)*ldc+j] to the score of the block's query i and the tile's item j, for
	// i0 ≤ i < i1 and j < n; i0 is a multiple of sub, i1 ≤ i0+sub, c has room for sub×ldc
	// values and ldc = cols. A kernel may also write c beyond n or beyond the block's queries,
	// within sub×ldc.
	score(i0, i1 int, c []float32, ldc int)
}

// run ranks every pair, parallel over blocks of queries, and returns ctx.Err() within one tile
// of ctx being done.
func (r *ranker) run(ctx context.Context, be backend, workers int) error {
	rows, sub, cols := be.geometry()
	rows, sub, blocks := blockPlan(len(r.queries), rows, sub, workers)
	wks := make([]*rankWorker, max(1, min(workers, blocks)))
	return parallel.Each(ctx, blocks, len(wks), func(w, b int) error {
		if wks[w] == nil {
			wks[w] = &rankWorker{
				ts:     be.worker(rows),
				c:      make([]float32, sub*cols),
				x:      make([]float32, cols),
				a:      make([]float32, r.nt*cols),
				cursor: make([]int32, rows),
				sub:    sub,
				ldc:    cols,
			}
			if r.top != nil {
				wks[w].top = newTopWorker(rows, r.nt)
			}
		}
		a0 := b * rows
		return r.block(ctx, wks[w], a0, min(len(r.queries), a0+rows))
	})
}

// blockPlan returns the height of the blocks of nq queries, of their score tiles and the number
// of blocks for workers goroutines, from the backend's geometry (rows, sub). The blocks make
// whole rounds of the workers, so that none waits at the end while another ranks a last block:
// as many blocks of rows queries as needed, rounded up to a multiple of workers, then made as
// even as blockAlign allows (never taller than rows).
func blockPlan(nq, rows, sub, workers int) (int, int, int) {
	blocks := ((nq+rows-1)/rows + workers - 1) / workers * workers
	if per := (nq + blocks - 1) / blocks; per < rows {
		rows = max(blockAlign, (per+blockAlign-1)/blockAlign*blockAlign)
		sub = min(sub, rows)
	}
	return rows, sub, (nq + rows - 1) / rows
}

// rankWorker holds one goroutine's buffers.
type rankWorker struct {
	ts     tileScorer
	c      []float32 // score tile, sub × ldc
	x      []float32 // adjusted scores of one tile row
	a      []float32 // a_j of the tile's items, per τ k at a[k*ldc:]
	cursor []int32   // per query of the block: its next special item
	sub    int       // queries per score tile
	ldc    int
	sx, ex []float32  // finish's adjusted scores of special items, and of the excluded ones
	top    *topWorker // the top lists' state, when r keeps them
}

// block ranks the pairs of queries[a0:a1].
func (r *ranker) block(ctx context.Context, wk *rankWorker, a0, a1 int) error {
	wk.ts.load(r.queries[a0:a1])
	for i := range a1 - a0 {
		wk.cursor[i] = r.spOff[a0+i]
	}
	if wk.top != nil {
		r.top.start(r, wk.top, a0, a1)
	}
	ldc := wk.ldc
	for j0 := 0; j0 < r.m; j0 += ldc {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(ldc, r.m-j0)
		wk.ts.pack(j0, n)
		for k := range r.nt {
			for i := range n {
				wk.a[k*ldc+i] = r.adjOf(k, int32(j0+i))
			}
		}
		for i0 := 0; i0 < a1-a0; i0 += wk.sub {
			i1 := min(a1-a0, i0+wk.sub)
			wk.ts.score(i0, i1, wk.c, ldc)
			for i := i0; i < i1; i++ {
				r.count(wk, a0+i, i, j0, wk.c[(i-i0)*ldc:(i-i0)*ldc+n])
			}
		}
	}
	for a := a0; a < a1; a++ {
		if err := r.finish(wk, a); err != nil {
			return err
		}
		if wk.top != nil {
			r.top.finish(r, wk.top, a, a-a0)
		}
	}
	r.done.Add(int64(r.pairOff[a1] - r.pairOff[a0]))
	return nil
}

// count adds the scores row of queries[a] (the block's query i) against items j0..j0+len(row)-1
// to the running counts of its pairs.
func (r *ranker) count(wk *rankWorker, a, i, j0 int, row []float32) {
	n := len(row)
	e := wk.cursor[i]
	for ; e < r.spOff[a+1] && int(r.spItem[e]) < j0+n; e++ {
		r.spScore[e] = row[int(r.spItem[e])-j0]
	}
	wk.cursor[i] = e
	for k, tau := range r.taus {
		x := row
		if tau != 0 {
			x = wk.x[:n]
			simd.Add(x, row, wk.a[k*wk.ldc:k*wk.ldc+n])
		}
		for _, p := range r.pairIdx[r.pairOff[a]:r.pairOff[a+1]] {
			st := &r.state[int(p)*r.nt+k]
			nlo, nhi := simd.CountGE(x, st.lo, st.hi)
			st.above += int64(nhi)
			for off := 0; nlo > nhi; nlo-- { // nlo − nhi items lie in [lo, hi)
				at := off + simd.IndexIn(x[off:], st.lo, st.hi)
				st.band = append(st.band, int32(j0+at))
				off = at + 1
			}
		}
		if wk.top != nil && r.top.keep[k] {
			wk.top.collect(r.nt, i, k, j0, x)
		}
	}
}

// finish turns the running counts of queries[a]'s pairs into ranks.
func (r *ranker) finish(wk *rankWorker, a int) error {
	sp, sq := r.spOff[a], r.spOff[a+1]
	items, excl := r.spItem[sp:sq], r.spExcl[sp:sq]
	for k := range r.taus {
		// The adjusted scores of the special items, as the scan computed them, and those of the
		// excluded ones, sorted.
		wk.sx, wk.ex = wk.sx[:0], wk.ex[:0]
		for e, s := range r.spScore[sp:sq] {
			s += r.adjOf(k, items[e])
			wk.sx = append(wk.sx, s)
			if excl[e] {
				wk.ex = append(wk.ex, s)
			}
		}
		slices.Sort(wk.ex)
		for _, p := range r.pairIdx[r.pairOff[a]:r.pairOff[a+1]] {
			st := &r.state[int(p)*r.nt+k]
			y := r.pair[p].Item
			iy, _ := slices.BinarySearch(items, y)
			t := wk.sx[iy]
			if !(t >= st.lo && t < st.hi) {
				return fmt.Errorf("metrics: score %v of test pair %d (query %d, item %d) is outside its rounding bound [%v, %v): non-finite scores?",
					t, p, r.pair[p].Query, y, st.lo, st.hi)
			}
			// The items at or above hi, y not among them, were all counted: take out the
			// excluded ones. The items of the band are decided by x̂.
			above, _ := slices.BinarySearch(wk.ex, st.hi)
			ahead := st.above - int64(len(wk.ex)-above)
			q := r.pair[p].Query
			for _, j := range st.band {
				if j == y {
					continue
				}
				if e, ok := slices.BinarySearch(items, j); ok && excl[e] {
					continue
				}
				if r.decision(q, j, k) >= st.xy {
					ahead++
				}
			}
			r.ranks[k*len(r.pair)+int(p)] = int32(ahead + 1)
			st.band = nil
		}
	}
	return nil
}
