package metrics

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// TestMostPopularByHand: five items of training counts 3, 9, 0, 9, 5 rank 2, 4 (9, ties by
// index), 5 (0-based item 4), 1, 3 (0-based 0, then 2): ranks by item [4, 1, 5, 2, 3]. Test pairs
// on items 1, 3, 0, 2 have ranks 1, 2, 4, 5: Recall@1 = 1/4, Recall@2 = 2/4, Recall@4 = 3/4,
// MRR = (1 + 1/2 + 1/4 + 1/5)/4; NDCG@2 = (1 + 1/log2 3)/4.
func TestMostPopularByHand(t *testing.T) {
	counts := []int64{3, 9, 0, 9, 5}
	if got := PopularityRanks(counts); !slices.Equal(got, []int32{4, 1, 5, 2, 3}) {
		t.Fatalf("ranks %v, want [4 1 5 2 3]", got)
	}
	pairs := []Pair{{0, 1}, {1, 3}, {2, 0}, {0, 2}}
	slice := []Slice{SliceTail, SliceHead, SliceTail, SliceHead, SliceTorso}
	res, err := MostPopular(context.Background(), pairs, slice, counts, nil, Settings{K: []int{1, 2, 4}, Bootstrap: -1, LogitAdjust: []float64{0, 1}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := map[[2]any]float64{
		{SliceAll, "recall@1"}: 0.25, {SliceAll, "recall@2"}: 0.5, {SliceAll, "recall@4"}: 0.75,
		{SliceAll, "ndcg@2"}: (1 + 1/math.Log2(3)) / 4, {SliceAll, "mrr@0"}: (1 + 0.5 + 0.25 + 0.2) / 4,
		{SliceHead, "recall@1"}: 0.5, {SliceHead, "recall@2"}: 1, {SliceTail, "recall@4"}: 0.5,
	}
	seen := 0
	for _, r := range res {
		if r.Tau != 0 {
			t.Errorf("result at τ = %v: the baseline is unadjusted", r.Tau)
		}
		if r.TestPairs != r.Pairs {
			t.Errorf("%v: %d test pairs, %d evaluated", r.Slice, r.TestPairs, r.Pairs)
		}
		name := string(r.Metric) + "@" + strconv.Itoa(r.K)
		if v, ok := want[[2]any{r.Slice, name}]; ok {
			seen++
			if math.Abs(r.Value-v) > 1e-12 {
				t.Errorf("%v %s = %v, want %v", r.Slice, name, r.Value, v)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of the %d hand-computed numbers in %v", seen, len(want), res)
	}
	if _, err := MostPopular(context.Background(), []Pair{{0, 5}}, nil, counts, nil, Settings{}, 1); err == nil {
		t.Error("a pair outside the corpus is accepted")
	}
	if _, err := MostPopular(context.Background(), []Pair{{3, 1}}, nil, counts, [][]int32{{0}}, Settings{Filter: FilterSeen}, 1); err == nil {
		t.Error("a filtered pair of a query without an Exclude row is accepted")
	}
	if _, err := MostPopular(context.Background(), []Pair{{0, 1}}, nil, counts, [][]int32{{7}}, Settings{Filter: FilterSeen}, 1); err == nil {
		t.Error("an excluded item outside the corpus is accepted")
	}
}

// TestMostPopularFiltered: the ranks by item of TestMostPopularByHand, [4, 1, 5, 2, 3], with each
// query's Exclude row dropped from its pairs' rankings (its own item kept, a repeat counted
// once): query 0 drops items 3 (rank 2) and 1 (rank 1, but pair (0, 1)'s own), query 1 drops
// item 3 twice (pair (1, 3)'s own), query 2 drops items 4 (rank 3) and 2 (rank 5). Pair (0, 1)
// keeps rank 1, (1, 3) rank 2, (2, 0) goes from 4 to 3 (item 4 above it), (0, 2) from 5 to 3
// (items 3 and 1 above it): Recall@2 = 2/4, Recall@4 = 4/4, MRR = (1 + 1/2 + 1/3 + 1/3)/4.
// Without the filter setting the same rows change nothing.
func TestMostPopularFiltered(t *testing.T) {
	counts := []int64{3, 9, 0, 9, 5}
	pairs := []Pair{{0, 1}, {1, 3}, {2, 0}, {0, 2}}
	exclude := [][]int32{{3, 1}, {3, 3}, {4, 2}}
	for _, tt := range []struct {
		filter      Filter
		recall4, mr float64
	}{
		{FilterSeen, 1, (1 + 0.5 + 1.0/3 + 1.0/3) / 4},
		{FilterNone, 0.75, (1 + 0.5 + 0.25 + 0.2) / 4},
	} {
		t.Run(string(tt.filter), func(t *testing.T) {
			res, err := MostPopular(context.Background(), pairs, nil, counts, exclude, Settings{K: []int{2, 4}, Bootstrap: -1, Filter: tt.filter}, 1)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]float64{}
			for _, r := range res {
				got[string(r.Metric)+"@"+strconv.Itoa(r.K)] = r.Value
			}
			for name, v := range map[string]float64{"recall@2": 0.5, "recall@4": tt.recall4, "mrr@0": tt.mr} {
				if math.Abs(got[name]-v) > 1e-12 {
					t.Errorf("%s = %v, want %v", name, got[name], v)
				}
			}
		})
	}
}

// TestMostPopularIsEvaluate: the baseline is Evaluate's ranking of a model whose every query
// scores an item by its training count (distinct counts, so no tie is broken), under the same
// filter: the same results, filtered rows with repeats and the pairs' own items included.
func TestMostPopularIsEvaluate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const items, queries, n = 60, 30, 300
	counts := make([]int64, items)
	v := make([]float32, items)
	for j, c := range rng.Perm(items) {
		counts[j] = int64(c)
		v[j] = float32(c)
	}
	u := make([]float32, queries)
	exclude := make([][]int32, queries)
	for q := range u {
		u[q] = 1
		for range rng.IntN(20) {
			exclude[q] = append(exclude[q], int32(rng.IntN(items)))
		}
	}
	pairs := make([]Pair, n)
	for i := range pairs {
		pairs[i] = Pair{Query: int32(rng.IntN(queries)), Item: int32(rng.IntN(items))}
	}
	for _, f := range []Filter{FilterNone, FilterSeen} {
		s := Settings{K: []int{1, 5, 20}, Bootstrap: -1, Filter: f}
		want, err := Evaluate(Input{U: u, V: v, Dim: 1, Pairs: pairs, Exclude: exclude}, s, 1)
		if err != nil {
			t.Fatal(err)
		}
		got, err := MostPopular(context.Background(), pairs, nil, counts, exclude, s, 1)
		if err != nil {
			t.Fatal(err)
		}
		values := map[string]float64{}
		for _, r := range want {
			values[string(r.Metric)+"@"+strconv.Itoa(r.K)] = r.Value
		}
		for _, r := range got {
			if w, ok := values[string(r.Metric)+"@"+strconv.Itoa(r.K)]; !ok || math.Abs(r.Value-w) > 1e-12 {
				t.Errorf("%s: %v@%d = %v, Evaluate's %v (found %v)", f, r.Metric, r.K, r.Value, w, ok)
			}
		}
	}
}

// TestRandomBaselineFiltered: in a corpus of 5 items, Recall@2 of a random ranking is 2/l for a
// pair whose ranking holds l items: pair (0, 1) drops items 0 and 2 of its query's row (its own
// item 1 kept, the repeat of 2 counted once), l = 3; pair (1, 3) drops nothing (its own item),
// l = 5; pair (0, 4) drops 0, 2 and 1, l = 2. The baseline is the mean over the pairs.
// Unfiltered, it is RandomRecall's K/M, range included.
func TestRandomBaselineFiltered(t *testing.T) {
	pairs := []Pair{{0, 1}, {1, 3}, {0, 4}}
	exclude := [][]int32{{0, 2, 2, 1}, {3}}
	for _, tt := range []struct {
		filter Filter
		want   float64
	}{
		{FilterSeen, (2.0/3 + 2.0/5 + 2.0/2) / 3},
		{FilterNone, 2.0 / 5},
	} {
		t.Run(string(tt.filter), func(t *testing.T) {
			res, err := RandomBaseline(pairs, nil, 5, exclude, Settings{K: []int{2}, Filter: tt.filter}, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != 1 || res[0].Metric != MetricRecall || res[0].K != 2 || res[0].Pairs != 3 {
				t.Fatalf("results %+v, want one Recall@2 over 3 pairs", res)
			}
			if math.Abs(res[0].Value-tt.want) > 1e-12 {
				t.Errorf("Recall@2 = %v, want %v", res[0].Value, tt.want)
			}
			if tt.filter == FilterNone {
				p, lo, hi := RandomRecall(2, 5, 3)
				if res[0].Value != p || res[0].Lo != lo || res[0].Hi != hi {
					t.Errorf("unfiltered %+v, RandomRecall's %v [%v, %v]", res[0], p, lo, hi)
				}
			}
		})
	}
}

// TestMostPopularSampled: under max_pairs the baseline evaluates the pairs Evaluate samples with
// the same seed (its results equal MostPopular over that sample given explicitly), and records
// the slices' test pairs before sampling.
func TestMostPopularSampled(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const items, n, keep = 50, 400, 90
	counts := make([]int64, items)
	slice := make([]Slice, items)
	for j := range counts {
		counts[j] = int64(rng.IntN(100))
		slice[j] = []Slice{SliceHead, SliceTorso, SliceTail}[j%3]
	}
	pairs := make([]Pair, n)
	for i := range pairs {
		pairs[i] = Pair{Query: int32(i), Item: int32(rng.IntN(items))}
	}
	s := Settings{K: []int{5, 20}, Bootstrap: 50}
	sampled := s
	sampled.MaxPairs = keep
	got, err := MostPopular(context.Background(), pairs, slice, counts, nil, sampled, 7)
	if err != nil {
		t.Fatal(err)
	}
	want, err := MostPopular(context.Background(), samplePairs(pairs, slice, keep, 7), slice, counts, nil, s, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d", len(got), len(want))
	}
	before := map[Slice]int{SliceAll: n}
	for _, p := range pairs {
		before[slice[p.Item]]++
	}
	for i, r := range got {
		w := want[i]
		if r.Value != w.Value || r.Lo != w.Lo || r.Hi != w.Hi || r.Pairs != w.Pairs {
			t.Errorf("%v %v@%d: %+v, want %+v (the same sample)", r.Slice, r.Metric, r.K, r, w)
		}
		if r.TestPairs != before[r.Slice] {
			t.Errorf("%v: TestPairs %d, want %d", r.Slice, r.TestPairs, before[r.Slice])
		}
		if r.Slice == SliceAll && r.Pairs != keep {
			t.Errorf("all: %d pairs evaluated, want %d", r.Pairs, keep)
		}
	}
}

// TestRandomRecall: the closed form K/M against Monte Carlo rankings, and its 95% range holding
// about 95% of the simulated recalls.
func TestRandomRecall(t *testing.T) {
	const m, k, n, trials = 50, 5, 200, 4000
	p, lo, hi := RandomRecall(k, m, n)
	if p != 0.1 || lo >= p || hi <= p {
		t.Fatalf("RandomRecall(5, 50, 200) = %v, [%v, %v]", p, lo, hi)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var sum float64
	inside := 0
	perm := make([]int, m)
	for range trials {
		hits := 0
		for range n {
			// A random ranking of the m items; the pair's item is item 0.
			for i := range perm {
				perm[i] = i
			}
			rng.Shuffle(m, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			if slices.Index(perm, 0) < k {
				hits++
			}
		}
		r := float64(hits) / n
		sum += r
		if r >= lo && r <= hi {
			inside++
		}
	}
	// The mean of 4000 recalls has standard error sqrt(0.1·0.9/200/4000) ≈ 0.00034.
	if mean := sum / trials; math.Abs(mean-p) > 5*0.00034 {
		t.Errorf("Monte Carlo mean recall %v, closed form %v", mean, p)
	}
	// The range covers at least 95% (discrete quantiles round outwards) and not much more.
	if share := float64(inside) / trials; share < 0.94 || share > 0.985 {
		t.Errorf("%.3f of the simulated recalls in [%v, %v], want about 0.95", share, lo, hi)
	}
	if p, lo, hi := RandomRecall(100, 50, 10); p != 1 || lo != 1 || hi != 1 {
		t.Errorf("K above M: %v [%v, %v], want 1 [1, 1]", p, lo, hi)
	}
}
