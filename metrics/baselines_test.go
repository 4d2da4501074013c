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
	res, err := MostPopular(context.Background(), pairs, slice, counts, Settings{K: []int{1, 2, 4}, Bootstrap: -1, LogitAdjust: []float64{0, 1}, Filter: FilterKnown}, 1)
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
	if _, err := MostPopular(context.Background(), []Pair{{0, 5}}, nil, counts, Settings{}, 1); err == nil {
		t.Error("a pair outside the corpus is accepted")
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
	got, err := MostPopular(context.Background(), pairs, slice, counts, sampled, 7)
	if err != nil {
		t.Fatal(err)
	}
	want, err := MostPopular(context.Background(), samplePairs(pairs, slice, keep, 7), slice, counts, s, 7)
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
