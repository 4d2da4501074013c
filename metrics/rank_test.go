package metrics

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// geomBackend overrides a backend's block geometry, so that small tests cross many blocks and
// tiles. rows and sub must be multiples of 6 and cols of 16 (the kernel's panels).
type geomBackend struct {
	backend
	rows, sub, cols int
}

func (g geomBackend) geometry() (int, int, int) { return g.rows, g.sub, g.cols }

// testBackends returns the production backend (the assembly kernel on amd64 with AVX2, else
// blas32) and blas32 (gonum, or OpenBLAS under the openblas tag), each with the default geometry
// and with small ones, one of which scores a block in several tiles (24 queries, four of the
// kernel's panels, at a time with AVX-512).
func testBackends(in *Input) map[string]backend {
	prod := newBackend(in.U, in.V, in.Dim)
	blas := newBLASBackend(in.U, in.V, in.Dim)
	return map[string]backend{
		fmt.Sprintf("%T", prod):           prod,
		fmt.Sprintf("%T/small", prod):     geomBackend{prod, 12, 12, 32},
		fmt.Sprintf("%T/sub-tiles", prod): geomBackend{prod, 54, 24, 32},
		"blas32":                          blas,
		"blas32/small":                    geomBackend{blas, 12, 12, 32},
		"blas32/sub-tiles":                geomBackend{blas, 30, 12, 48},
		"blas32/small-odd-block-height":   geomBackend{blas, 7, 7, 48},
	}
}

// ranksWith ranks in with backend be on workers goroutines.
func ranksWith(t *testing.T, in Input, s Settings, be backend, workers int) []int32 {
	t.Helper()
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	if err := checkInput(&in, &s); err != nil {
		t.Fatal(err)
	}
	r, err := newRanker(in, &s)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.run(context.Background(), be, workers); err != nil {
		t.Fatal(err)
	}
	return r.ranks
}

// handInput is a corpus of 6 items and 2 queries with Dim 1, so that scores are the items'
// values: query 0 scores V, query 1 scores −V.
func handInput() Input {
	return Input{
		U:     []float32{1, -1},
		V:     []float32{3, 1, 2, 2, 0.5, 2},
		Dim:   1,
		Pairs: []Pair{{0, 2}, {0, 0}, {1, 4}, {1, 1}},
		// Known positives, unsorted and with a duplicate, including the pairs' own items.
		Exclude:   [][]int32{{5, 0, 2, 0}, {4}},
		ItemSlice: []Slice{SliceHead, SliceTail, SliceTorso, SliceTorso, SliceTail, SliceHead},
	}
}

// TestRanksByHand checks ranks worked out by hand on handInput.
//
//	query 0 scores [3, 1, 2, 2, 0.5, 2]; query 1 scores [−3, −1, −2, −2, −0.5, −2].
//	(0,2): score 2; ahead: item 0 (3), items 3 and 5 (ties count against the positive) → 4.
//	(0,0): score 3, the highest → 1.    (1,4): −0.5, the highest → 1.
//	(1,1): −1; ahead: item 4 → 2.
//	Filtered (query 0 drops 0, 5 and 2 unless it is the pair's item; query 1 drops 4):
//	(0,2) → only item 3 ahead → 2; (0,0) → 1; (1,4) → its own item is kept → 1; (1,1) → 1.
//	τ = 1 with π = [.5, .1, .1, .2, .05, .05], x = s − log π:
//	query 0: [3.693, 3.303, 4.303, 3.609, 3.496, 4.996] → (0,2) → 2, (0,0) → 3;
//	query 1: [−2.307, 1.303, 0.303, −0.391, 2.496, 0.996] → (1,4) → 1, (1,1) → 2.
//	τ = 1 with log π = [−1, −3, −2, −2, −4, −2] (exact in float32), x = s − log π:
//	query 0: [4, 4, 4, 4, 4.5, 4] → (0,2): items 0, 1, 3, 5 tie and 4 is above → 6; (0,0) → 6;
//	query 1: [−2, 2, 0, 0, 3.5, 0] → (1,4) → 1; (1,1) → 2.
//	The same, filtered: (0,2) keeps items 1, 3 (ties) and 4 → 4; (0,0) keeps 1, 3 and 4 → 4;
//	(1,4) → 1; (1,1) without item 4 → 1.
func TestRanksByHand(t *testing.T) {
	pi := []float64{.5, .1, .1, .2, .05, .05}
	logPi := make([]float64, len(pi))
	for j, p := range pi {
		logPi[j] = math.Log(p)
	}
	dyadic := []float64{-1, -3, -2, -2, -4, -2}
	cases := []struct {
		name     string
		s        Settings
		logPrior []float64
		want     []int32 // per τ, per pair
	}{
		{"plain", Settings{}, nil, []int32{4, 1, 1, 2}},
		{"filtered", Settings{Filter: FilterKnown}, nil, []int32{2, 1, 1, 1}},
		{"tau", Settings{LogitAdjust: []float64{0, 1}}, logPi, []int32{4, 1, 1, 2, 2, 3, 1, 2}},
		{"tau-ties", Settings{LogitAdjust: []float64{1}}, dyadic, []int32{6, 6, 1, 2}},
		{"tau-ties-filtered", Settings{LogitAdjust: []float64{1}, Filter: FilterKnown}, dyadic, []int32{4, 4, 1, 1}},
	}
	for _, c := range cases {
		in := handInput()
		in.LogPrior = c.logPrior
		for name, be := range testBackends(&in) {
			for _, w := range []int{1, 3} {
				got := ranksWith(t, in, c.s, be, w)
				if !slices.Equal(got, c.want) {
					t.Errorf("%s, %s, %d workers: ranks %v, want %v", c.name, name, w, got, c.want)
				}
			}
		}
	}
}

// TestFilterSeenByHand: query 0 of handInput (scores [3, 1, 2, 2, 0.5, 2]) has
// trained on items 0 and 3 and has test pairs (0,2) and (0,3); the workbench
// passes, per query, its training items (filter seen) or its train and test
// items (filter known) as Exclude. By hand:
//
//	none:  (0,2): ahead 0, ties 3 and 5 → 4;  (0,3): ahead 0, ties 2 and 5 → 4.
//	seen (drop 0, 3):  (0,2): tie 5 → 2;  (0,3): its own item kept, tie 2 and 5 → 3.
//	known (drop 0, 2, 3):  (0,2): tie 5 → 2;  (0,3): tie 5 → 2.
//
// Every backend gives these ranks, so that all agree.
func TestFilterSeenByHand(t *testing.T) {
	seen := [][]int32{{0, 3}, {}}
	known := [][]int32{{0, 2, 3}, {}}
	for _, c := range []struct {
		filter  Filter
		exclude [][]int32
		want    []int32
	}{
		{FilterNone, seen, []int32{4, 4}},
		{FilterSeen, seen, []int32{2, 3}},
		{FilterKnown, known, []int32{2, 2}},
	} {
		t.Run(string(c.filter), func(t *testing.T) {
			in := handInput()
			in.Pairs = []Pair{{0, 2}, {0, 3}}
			in.Exclude = c.exclude
			for name, be := range testBackends(&in) {
				if got := ranksWith(t, in, Settings{Filter: c.filter}, be, 2); !slices.Equal(got, c.want) {
					t.Errorf("%s: ranks %v, want %v", name, got, c.want)
				}
			}
		})
	}
}

// TestFilterSetting: filter decodes from a name or from the boolean of
// earlier versions (false only), and Resolve writes "none" as the zero value.
func TestFilterSetting(t *testing.T) {
	for _, c := range []struct {
		in   any
		want Filter
		err  string
	}{
		{"seen", FilterSeen, ""},
		{"known", FilterKnown, ""},
		{"none", FilterNone, ""},
		{false, "", ""},
		{true, "", `is a name now: "seen" (the query's training items), "known" (its train and test items, what true meant) or "none"; got true`},
		{"all", "", `unknown "all" (allowed: none, seen, known)`},
		{int64(1), "", `is a name now:`},
	} {
		var f Filter
		err := f.UnmarshalTOML(c.in)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%v: %v", c.in, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%v: error %v, want %q", c.in, err, c.err)
		case f != c.want:
			t.Errorf("%v: %q, want %q", c.in, f, c.want)
		}
	}
	s := Settings{Filter: FilterNone}
	if err := s.Resolve(); err != nil || s.Filter != "" {
		t.Errorf("none resolves to %q, %v; want the zero value", s.Filter, err)
	}
	s = Settings{Filter: "all"}
	if err := s.Resolve(); err == nil || err.Error() != `filter: unknown "all" (allowed: none, seen, known)` {
		t.Errorf("filter all: %v", err)
	}
}

// TestMetricsByHand checks Evaluate's numbers on handInput against values computed by hand
// from the ranks of TestRanksByHand, with K = 1, 2, 3:
//
//	plain ranks [4, 1, 1, 2]: recall@1 = 2/4, @2 = @3 = 3/4; ndcg@1 = 2/4,
//	ndcg@2 = ndcg@3 = (1 + 1 + 1/log2 3)/4 = 0.65773243839286; mrr = (1/4+1+1+1/2)/4 = 0.6875.
//	filtered ranks [2, 1, 1, 1]: recall@1 = 3/4, @2 = @3 = 1; ndcg@1 = 3/4,
//	ndcg@2 = ndcg@3 = (3 + 1/log2 3)/4 = 0.90773243839286; mrr = (1/2 + 3)/4 = 0.875.
//	Slices of the plain ranks: head = pair (0,0) (rank 1), torso = (0,2) (rank 4), tail =
//	(1,4), (1,1) (ranks 1, 2): tail recall@1 = 1/2, tail mrr = 3/4, torso mrr = 1/4.
func TestMetricsByHand(t *testing.T) {
	type key struct {
		slice, metric string
		k             int
	}
	cases := []struct {
		filter Filter
		want   map[key]float64
	}{
		{FilterNone, map[key]float64{
			{"all", "recall", 1}: 0.5, {"all", "recall", 2}: 0.75, {"all", "recall", 3}: 0.75,
			{"all", "ndcg", 1}: 0.5, {"all", "ndcg", 2}: 0.65773243839286, {"all", "ndcg", 3}: 0.65773243839286,
			{"all", "mrr", 0}:     0.6875,
			{"head", "recall", 1}: 1, {"head", "mrr", 0}: 1,
			{"torso", "recall", 3}: 0, {"torso", "mrr", 0}: 0.25,
			{"tail", "recall", 1}: 0.5, {"tail", "mrr", 0}: 0.75,
		}},
		{FilterSeen, map[key]float64{
			{"all", "recall", 1}: 0.75, {"all", "recall", 2}: 1, {"all", "recall", 3}: 1,
			{"all", "ndcg", 1}: 0.75, {"all", "ndcg", 2}: 0.90773243839286, {"all", "ndcg", 3}: 0.90773243839286,
			{"all", "mrr", 0}: 0.875,
		}},
	}
	for _, c := range cases {
		res, err := Evaluate(handInput(), Settings{K: []int{1, 2, 3}, Filter: c.filter, Bootstrap: -1}, 1)
		if err != nil {
			t.Fatal(err)
		}
		got := map[key]Result{}
		for _, r := range res {
			got[key{r.Slice.String(), string(r.Metric), r.K}] = r
		}
		for k, want := range c.want {
			r, ok := got[k]
			if !ok {
				t.Fatalf("filter %v: no result %v", c.filter, k)
			}
			if math.Abs(r.Value-want) > 1e-13 || r.Lo != r.Value || r.Hi != r.Value {
				t.Errorf("filter %v: %v = %v [%v, %v], want %v with no interval", c.filter, k, r.Value, r.Lo, r.Hi, want)
			}
		}
		sizes := map[string][2]int{"all": {4, 6}, "head": {1, 2}, "torso": {1, 2}, "tail": {2, 2}}
		for _, r := range res {
			if sz := sizes[r.Slice.String()]; r.Pairs != sz[0] || r.Items != sz[1] {
				t.Errorf("%s: %d pairs and %d items, want %v", r.Slice, r.Pairs, r.Items, sz)
			}
		}
	}
}

// TestConstantScores checks that a model scoring every item alike ranks every positive last,
// whatever the item indices: rank 6 of 6 items, or, filtered, last among the items kept
// (query 0 keeps 4 items for either pair, query 1 keeps 6, then 5 without item 4).
func TestConstantScores(t *testing.T) {
	in := handInput()
	in.U = []float32{0, 0}
	for name, be := range testBackends(&in) {
		if got := ranksWith(t, in, Settings{}, be, 2); !slices.Equal(got, []int32{6, 6, 6, 6}) {
			t.Errorf("%s: ranks %v, want all 6", name, got)
		}
		if got := ranksWith(t, in, Settings{Filter: FilterKnown}, be, 2); !slices.Equal(got, []int32{4, 4, 6, 5}) {
			t.Errorf("%s, filtered: ranks %v, want [4 4 6 5]", name, got)
		}
	}
}

// dyadicInput is random data on which float32 arithmetic is exact: embedding entries are
// multiples of 1/2 in [−1, 1], Dim 24 (so every score is a multiple of 1/4 below 24 in
// magnitude), and log π are multiples of 1/8, so with τ in {1/2, −1/4} every adjusted score is
// exact and ties are frequent.
func dyadicInput(rng *rand.Rand, n, m, pairs int) Input {
	const d = 24
	in := Input{U: make([]float32, n*d), V: make([]float32, m*d), Dim: d}
	for i := range in.U {
		in.U[i] = float32(rng.IntN(5)-2) / 2
	}
	for i := range in.V {
		in.V[i] = float32(rng.IntN(5)-2) / 2
	}
	in.LogPrior = make([]float64, m)
	in.ItemSlice = make([]Slice, m)
	for j := range m {
		in.LogPrior[j] = -float64(rng.IntN(40)) / 8
		in.ItemSlice[j] = Slice(rng.IntN(3))
	}
	for range pairs {
		// Two thirds of the queries get pairs, several of them each.
		in.Pairs = append(in.Pairs, Pair{int32(rng.IntN(n * 2 / 3)), int32(rng.IntN(m))})
	}
	in.Exclude = make([][]int32, n)
	for _, p := range in.Pairs {
		if rng.IntN(2) == 0 {
			in.Exclude[p.Query] = append(in.Exclude[p.Query], p.Item)
		}
		for range rng.IntN(4) {
			in.Exclude[p.Query] = append(in.Exclude[p.Query], int32(rng.IntN(m)))
		}
	}
	return in
}

// TestRanksExact compares the ranks of every backend with the float64 reference on data where
// float32 is exact, so they must be equal, ties included.
func TestRanksExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	in := dyadicInput(rng, 50, 333, 160)
	for _, filter := range []Filter{FilterNone, FilterSeen} {
		s := Settings{Filter: filter, LogitAdjust: []float64{0, 0.5, -0.25}}
		want := refRanks(&in, &s)
		ties := 0
		for _, pr := range in.Pairs {
			sc := refScores(&in, pr.Query, 0)
			for j, x := range sc {
				if x == sc[pr.Item] && int32(j) != pr.Item {
					ties++
				}
			}
		}
		if ties < len(in.Pairs) {
			t.Fatalf("only %d ties: the data does not exercise tie handling", ties)
		}
		for name, be := range testBackends(&in) {
			for _, w := range []int{1, 2, 5} {
				got := ranksWith(t, in, s, be, w)
				for i := range want {
					if int(got[i]) != want[i] {
						t.Fatalf("filter %v, %s, %d workers: τ %d pair %d: rank %d, want %d",
							filter, name, w, i/len(in.Pairs), i%len(in.Pairs), got[i], want[i])
					}
				}
			}
		}
	}
}

// roundedInput is Gaussian data, where float32 rounds, with dups items at the end that copy
// earlier items (embedding and log π) and pairs that favour the copies and their originals, some
// of them with a twin of the positive excluded.
func roundedInput(rng *rand.Rand, n, m, d, dups int) Input {
	in := Input{U: make([]float32, n*d), V: make([]float32, m*d), Dim: d, LogPrior: make([]float64, m)}
	for i := range in.U {
		in.U[i] = float32(rng.NormFloat64())
	}
	for i := range in.V[:(m-dups)*d] {
		in.V[i] = float32(rng.NormFloat64())
	}
	for j := range m - dups {
		in.LogPrior[j] = math.Log(rng.Float64())
	}
	dupOf := map[int]int{}
	for j := m - dups; j < m; j++ {
		o := rng.IntN(m - dups)
		copy(in.V[j*d:(j+1)*d], in.V[o*d:(o+1)*d])
		in.LogPrior[j] = in.LogPrior[o]
		dupOf[j] = o
	}
	in.Exclude = make([][]int32, n)
	for range 200 {
		q := int32(rng.IntN(n))
		var y int32
		if rng.IntN(2) == 0 {
			y = int32(rng.IntN(m))
		} else {
			y = int32(m - dups + rng.IntN(dups)) // a copy, or via dupOf, its original
			if rng.IntN(2) == 0 {
				y = int32(dupOf[int(y)])
			}
		}
		in.Pairs = append(in.Pairs, Pair{q, y})
		if rng.IntN(3) == 0 { // sometimes drop a twin of the positive
			for j, o := range dupOf {
				if int32(o) == y {
					in.Exclude[q] = append(in.Exclude[q], int32(j))
				}
			}
		}
	}
	return in
}

// perturbed is a backend that moves every score of its inner backend by up to half the float32
// rounding bound γ_d·Σ|u_l v_l| (down, not at all, or up, at random): what another correct BLAS,
// summing in another order, may return. Two items with equal embeddings get different scores.
type perturbed struct {
	backend
	in   *Input
	seed atomic.Uint64
}

func (p *perturbed) worker(rows int) tileScorer {
	return &perturbedScorer{p: p, inner: p.backend.worker(rows), rng: rand.New(rand.NewPCG(9, p.seed.Add(1)))}
}

type perturbedScorer struct {
	p       *perturbed
	inner   tileScorer
	queries []int32
	j0, n   int
	rng     *rand.Rand
}

func (s *perturbedScorer) load(queries []int32) {
	s.queries = queries
	s.inner.load(queries)
}

func (s *perturbedScorer) pack(j0, n int) {
	s.j0, s.n = j0, n
	s.inner.pack(j0, n)
}

func (s *perturbedScorer) score(i0, i1 int, c []float32, ldc int) {
	s.inner.score(i0, i1, c, ldc)
	in, d, j0 := s.p.in, s.p.in.Dim, s.j0
	gamma := float64(d) * 0x1p-24 / (1 - float64(d)*0x1p-24)
	for i, q := range s.queries[i0:i1] {
		for j := range s.n {
			var abs float64
			for l := range d {
				abs += math.Abs(float64(in.U[int(q)*d+l]) * float64(in.V[(j0+j)*d+l]))
			}
			c[i*ldc+j] = float32(float64(c[i*ldc+j]) + float64(s.rng.IntN(3)-1)*gamma*abs/2)
		}
	}
}

// TestRanksRounded checks the tie rule on Gaussian data, where float32 rounds: every backend,
// and a backend that perturbs its scores as another correct BLAS may, gives exactly the ranks
// of the float64 decision scores of refScores, written from the definition; items that duplicate
// the positive tie with it and count as ahead.
func TestRanksRounded(t *testing.T) {
	const n, m, d, dups = 40, 700, 32, 100
	in := roundedInput(rand.New(rand.NewPCG(3, 4)), n, m, d, dups)
	same := func(a, b int) bool {
		return slices.Equal(in.V[a*d:(a+1)*d], in.V[b*d:(b+1)*d]) && in.LogPrior[a] == in.LogPrior[b]
	}
	twins := 0
	for _, pr := range in.Pairs {
		for j := range m {
			if j != int(pr.Item) && same(j, int(pr.Item)) {
				twins++
			}
		}
	}
	if twins < 50 {
		t.Fatalf("only %d twins of a positive: the data does not exercise ties", twins)
	}
	backends := testBackends(&in)
	backends["perturbed blas32"] = &perturbed{backend: geomBackend{newBLASBackend(in.U, in.V, d), 12, 6, 32}, in: &in}
	backends["perturbed production"] = &perturbed{backend: geomBackend{newBackend(in.U, in.V, d), 24, 12, 32}, in: &in}
	for _, filter := range []Filter{FilterNone, FilterSeen} {
		s := Settings{Filter: filter, LogitAdjust: []float64{0, 0.7}}
		want := refRanks(&in, &s)
		for name, be := range backends {
			for _, w := range []int{1, 3} {
				got := ranksWith(t, in, s, be, w)
				for i := range want {
					if int(got[i]) != want[i] {
						t.Errorf("filter %v, %s, %d workers: τ %d pair %d %v: rank %d, want %d",
							filter, name, w, i/len(in.Pairs), i%len(in.Pairs), in.Pairs[i%len(in.Pairs)], got[i], want[i])
					}
				}
			}
		}
	}
}

// TestScoreTiles checks each backend's score tiles against float64 dot products, within the
// float32 rounding bound γ_d·Σ|u_l v_l|, including the edge panel and padded rows.
func TestScoreTiles(t *testing.T) {
	const n, m, d = 13, 70, 19
	rng := rand.New(rand.NewPCG(5, 6))
	in := Input{U: make([]float32, n*d), V: make([]float32, m*d), Dim: d}
	for i := range in.U {
		in.U[i] = float32(rng.NormFloat64())
	}
	for i := range in.V {
		in.V[i] = float32(rng.NormFloat64())
	}
	queries := []int32{12, 0, 5, 7, 3, 11, 2, 9}
	const unit = 0x1p-24
	gamma := float64(d) * unit / (1 - float64(d)*unit)
	for name, be := range testBackends(&in) {
		rows, sub, cols := be.geometry()
		ts := be.worker(rows)
		c := make([]float32, sub*cols)
		for q0 := 0; q0 < len(queries); q0 += rows {
			block := queries[q0:min(len(queries), q0+rows)]
			ts.load(block)
			for j0 := 0; j0 < m; j0 += cols {
				nn := min(cols, m-j0)
				ts.pack(j0, nn)
				for i0 := 0; i0 < len(block); i0 += sub {
					i1 := min(len(block), i0+sub)
					ts.score(i0, i1, c, cols)
					for i, q := range block[i0:i1] {
						for j := range nn {
							var dot, abs float64
							for l := range d {
								x := float64(in.U[int(q)*d+l]) * float64(in.V[(j0+j)*d+l])
								dot += x
								abs += math.Abs(x)
							}
							if got := float64(c[i*cols+j]); math.Abs(got-dot) > gamma*abs {
								t.Fatalf("%s: score(%d, %d) = %v, want %v ± %v", name, q, j0+j, got, dot, gamma*abs)
							}
						}
					}
				}
			}
		}
	}
}

// TestBlockPlan: the blocks are never taller than the backend's, their number is a multiple of
// the workers wherever the queries allow blocks of blockAlign (so that every worker ranks the
// same number of them), and all but the last have one height, within blockAlign of the others'
// mean.
func TestBlockPlan(t *testing.T) {
	for _, tc := range []struct{ nq, rows, sub, workers int }{
		{10000, 768, 384, 2}, {10000, 384, 384, 2}, {50000, 768, 384, 2}, {9984, 768, 384, 2},
		{700, 768, 384, 2}, {13, 12, 12, 3}, {5, 768, 384, 4}, {1000, 512, 512, 3}, {100, 7, 7, 1},
	} {
		t.Run(fmt.Sprint(tc), func(t *testing.T) {
			rows, sub, blocks := blockPlan(tc.nq, tc.rows, tc.sub, tc.workers)
			if rows > tc.rows || sub > rows || sub > tc.sub || rows < 1 || sub < 1 {
				t.Fatalf("rows %d, sub %d from %d, %d", rows, sub, tc.rows, tc.sub)
			}
			if rows < tc.rows && (rows%blockAlign != 0 || sub%blockAlign != 0 && sub != rows) {
				t.Errorf("a smaller block of %d (score tiles %d) is not a multiple of %d", rows, sub, blockAlign)
			}
			if blocks != (tc.nq+rows-1)/rows {
				t.Errorf("%d blocks of %d do not cover %d queries", blocks, rows, tc.nq)
			}
			if tc.nq >= tc.workers*blockAlign && blocks%tc.workers != 0 {
				t.Errorf("%d blocks for %d workers", blocks, tc.workers)
			}
			if mean := float64(tc.nq) / float64(blocks); float64(rows)-mean >= blockAlign {
				t.Errorf("blocks of %d, %.1f queries each on average", rows, mean)
			}
		})
	}
}
