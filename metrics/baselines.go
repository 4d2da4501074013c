package metrics

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// PopularityRanks returns the rank (from 1) of every item in the most-popular ranking: items by
// decreasing training count counts[j], equal counts by increasing index.
func PopularityRanks(counts []int64) []int32 {
	order := make([]int32, len(counts))
	for j := range order {
		order[j] = int32(j)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(counts[b], counts[a]) })
	rank := make([]int32, len(counts))
	for r, j := range order {
		rank[j] = int32(r + 1)
	}
	return rank
}

// MostPopular evaluates the most-popular baseline without training: every test pair ranks the
// whole corpus of len(counts) items by training count (PopularityRanks), the same ranking for
// every query, unadjusted, and filtered as the models' rankings are: under s.Filter, the items of
// exclude[pair.Query] other than the pair's own item are dropped from the pair's ranking, so
// that the baseline is measured under the protocol the models are (an unfiltered popularity
// ranking puts a user's own items first and understates it). It returns Evaluate's Results at
// τ = 0 (s.LogitAdjust is not used) over all pairs and per slice of itemSlice (nil = "all"
// only), with the same bootstrap intervals, drawn from seed. Under s.MaxPairs it evaluates the
// test pairs Evaluate samples with the same seed, so that the baseline and a model's row are
// measured on the same pairs (and the bootstrap's cost stays that of the model's).
func MostPopular(ctx context.Context, pairs []Pair, itemSlice []Slice, counts []int64, exclude [][]int32, s Settings, seed int64) ([]Result, error) {
	s.LogitAdjust = nil
	pairs, full, err := baselinePairs(pairs, itemSlice, len(counts), exclude, &s, seed)
	if err != nil {
		return nil, err
	}
	rank := PopularityRanks(counts)
	ranks := make([]int32, len(pairs))
	excluded := newExcluded(len(counts), exclude, s.Filter)
	for i, p := range pairs {
		r := rank[p.Item]
		for _, j := range excluded.of(i, p) {
			if rank[j] < rank[p.Item] {
				r-- // an item ranked above the pair's is dropped
			}
		}
		ranks[i] = r
	}
	res, err := summarize(ctx, ranks, pairs, itemSlice, len(counts), &s, seed)
	if err != nil {
		return nil, err
	}
	setTestPairs(res, full, itemSlice)
	return res, nil
}

// baselinePairs checks a baseline's input and resolves s, and returns the test pairs it
// evaluates (those Evaluate samples under s.MaxPairs with seed) and all of them.
func baselinePairs(pairs []Pair, itemSlice []Slice, m int, exclude [][]int32, s *Settings, seed int64) (sampled, full []Pair, err error) {
	if err := s.Resolve(); err != nil {
		return nil, nil, fmt.Errorf("metrics: eval settings: %w", err)
	}
	for _, p := range pairs {
		if p.Item < 0 || int(p.Item) >= m {
			return nil, nil, fmt.Errorf("metrics: test pair item %d outside the %d items", p.Item, m)
		}
		if s.Filter.Excludes() && (p.Query < 0 || int(p.Query) >= len(exclude)) {
			return nil, nil, fmt.Errorf("metrics: filter is set, and test pair query %d has no Exclude row (%d rows)", p.Query, len(exclude))
		}
	}
	if itemSlice != nil && len(itemSlice) != m {
		return nil, nil, fmt.Errorf("metrics: len(ItemSlice) = %d, want %d items", len(itemSlice), m)
	}
	if s.Filter.Excludes() {
		if err := checkExclude(exclude, m); err != nil {
			return nil, nil, err
		}
	}
	return samplePairs(pairs, itemSlice, s.MaxPairs, seed), pairs, nil
}

// excluded gives the distinct items dropped from a test pair's ranking under a filter: those of
// its query's Exclude row other than its own item.
type excluded struct {
	exclude [][]int32
	on      bool
	stamp   []int // stamp[j] = 1 + the index of the last pair that listed item j
	out     []int32
}

func newExcluded(m int, exclude [][]int32, f Filter) *excluded {
	return &excluded{exclude: exclude, on: f.Excludes(), stamp: make([]int, m)}
}

// of returns the items dropped from the ranking of pair p, the i-th evaluated, each once; the
// slice is reused by the next call.
func (e *excluded) of(i int, p Pair) []int32 {
	e.out = e.out[:0]
	if !e.on {
		return e.out
	}
	for _, j := range e.exclude[p.Query] {
		if j != p.Item && e.stamp[j] != i+1 {
			e.stamp[j] = i + 1
			e.out = append(e.out, j)
		}
	}
	return e.out
}

// RandomBaseline is the random ranking's Recall@K for every K of s, over all test pairs and per
// slice of itemSlice (nil = "all" only), in a corpus of m items, filtered as the models' rankings
// are: a pair whose ranking drops e items (its query's Exclude row under s.Filter, its own item
// kept) ranks the other m − e uniformly at random, so that its item is in the top K with
// probability min(K, m − e)/(m − e). A Result's Value is the mean of these probabilities over the
// group's pairs, the expected Recall@K, and [Lo, Hi] the central 95% range of the recall over
// those n pairs, read as Binomial(n, Value)/n (RandomRecall's; the count of hits of pairs of
// unequal probabilities varies at most as much). Without a filter, Value is min(K, m)/m, and the
// Results are RandomRecall's. The pairs are those Evaluate samples under s.MaxPairs with seed.
func RandomBaseline(pairs []Pair, itemSlice []Slice, m int, exclude [][]int32, s Settings, seed int64) ([]Result, error) {
	pairs, full, err := baselinePairs(pairs, itemSlice, m, exclude, &s, seed)
	if err != nil {
		return nil, err
	}
	excluded := newExcluded(m, exclude, s.Filter)
	left := make([]int, len(pairs)) // the items each pair's ranking holds
	for i, p := range pairs {
		left[i] = m - len(excluded.of(i, p))
	}
	var res []Result
	for _, g := range sliceGroups(pairs, nil, itemSlice, m) {
		n := len(g.pairs)
		if n == 0 {
			continue
		}
		// The pairs by the number of items their rankings hold, so that pairs that all hold the
		// m items give exactly RandomRecall's min(K, m)/m.
		count := map[int]int{}
		for _, i := range g.pairs {
			count[left[i]]++
		}
		for _, k := range s.K {
			var p float64
			for _, l := range slices.Sorted(maps.Keys(count)) {
				p += float64(count[l]) / float64(n) * (float64(min(k, l)) / float64(l))
			}
			lo, hi := binomialRange(n, p)
			res = append(res, Result{Slice: g.name, Metric: MetricRecall, K: k, Value: p, Lo: lo, Hi: hi, Pairs: n, Items: g.items})
		}
	}
	setTestPairs(res, full, itemSlice)
	return res, nil
}

// RandomRecall is the random baseline's Recall@K over n test pairs in a corpus of m items, in
// closed form: a uniformly random ranking puts each pair's item in its top K with probability
// p = min(K, m)/m, so the expected Recall@K is p, and the share of hits among n pairs ranked
// independently is Binomial(n, p)/n, whose central 95% range is [lo, hi] (the 2.5% and 97.5%
// quantiles). A measured Recall@K whose interval overlaps [lo, hi] is indistinguishable from
// chance. It is the unfiltered RandomBaseline.
func RandomRecall(k, m, n int) (p, lo, hi float64) {
	p = float64(min(k, m)) / float64(m)
	lo, hi = binomialRange(n, p)
	return p, lo, hi
}

// binomialRange is the central 95% range of Binomial(n, p)/n: its 2.5% and 97.5% quantiles.
func binomialRange(n int, p float64) (lo, hi float64) {
	b := distuv.Binomial{N: float64(n), P: p}
	q := func(level float64) float64 {
		var cdf float64
		for x := 0; x < n; x++ {
			if cdf += b.Prob(float64(x)); cdf >= level {
				return float64(x) / float64(n)
			}
		}
		return 1
	}
	return q(0.025), q(0.975)
}
