package metrics

import (
	"cmp"
	"context"
	"fmt"
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
// every query, unfiltered and unadjusted. It returns Evaluate's Results at τ = 0 (s.LogitAdjust
// and s.Filter are not used) over all pairs and per slice of itemSlice (nil = "all" only), with
// the same bootstrap intervals, drawn from seed. Under s.MaxPairs it evaluates the test pairs
// Evaluate samples with the same seed, so that the baseline and a model's row are measured on
// the same pairs (and the bootstrap's cost stays that of the model's).
func MostPopular(ctx context.Context, pairs []Pair, itemSlice []Slice, counts []int64, s Settings, seed int64) ([]Result, error) {
	s.LogitAdjust, s.Filter = nil, ""
	if err := s.Resolve(); err != nil {
		return nil, fmt.Errorf("metrics: eval settings: %w", err)
	}
	for _, p := range pairs {
		if p.Item < 0 || int(p.Item) >= len(counts) {
			return nil, fmt.Errorf("metrics: test pair item %d outside the %d items", p.Item, len(counts))
		}
	}
	if itemSlice != nil && len(itemSlice) != len(counts) {
		return nil, fmt.Errorf("metrics: len(ItemSlice) = %d, want %d items", len(itemSlice), len(counts))
	}
	full := pairs
	pairs = samplePairs(full, itemSlice, s.MaxPairs, seed)
	rank := PopularityRanks(counts)
	ranks := make([]int32, len(pairs))
	for i, p := range pairs {
		ranks[i] = rank[p.Item]
	}
	res, err := summarize(ctx, ranks, pairs, itemSlice, len(counts), &s, seed)
	if err != nil {
		return nil, err
	}
	setTestPairs(res, full, itemSlice)
	return res, nil
}

// RandomRecall is the random baseline's Recall@K over n test pairs in a corpus of m items, in
// closed form: a uniformly random ranking puts each pair's item in its top K with probability
// p = min(K, m)/m, so the expected Recall@K is p, and the share of hits among n pairs ranked
// independently is Binomial(n, p)/n, whose central 95% range is [lo, hi] (the 2.5% and 97.5%
// quantiles). A measured Recall@K whose interval overlaps [lo, hi] is indistinguishable from
// chance.
func RandomRecall(k, m, n int) (p, lo, hi float64) {
	p = float64(min(k, m)) / float64(m)
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
	return p, q(0.025), q(0.975)
}
