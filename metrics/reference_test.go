package metrics

import (
	"math"
	"slices"
)

// refScores returns the float64 adjusted scores of query x against every item, written straight
// from the definition: Σ_l U[x][l]·V[j][l] − τ·log π_j, with the adjustment rounded to float32
// as the package documents (a_j = float32(−τ·log π_j)).
func refScores(in *Input, x int32, tau float64) []float64 {
	d := in.Dim
	m := len(in.V) / d
	out := make([]float64, m)
	for j := range out {
		var s float64
		for l := range d {
			s += float64(in.U[int(x)*d+l]) * float64(in.V[j*d+l])
		}
		if tau != 0 {
			s += float64(float32(-tau * in.LogPrior[j]))
		}
		out[j] = s
	}
	return out
}

// refRank is the pessimistic rank of pair p: 1 + the number of other items, not removed by the
// filter, scoring at least as high as the pair's item.
func refRank(in *Input, filter bool, p Pair, scores []float64) int {
	rank := 1
	for j, x := range scores {
		if int32(j) == p.Item {
			continue
		}
		if filter && slices.Contains(in.Exclude[p.Query], int32(j)) {
			continue
		}
		if x >= scores[p.Item] {
			rank++
		}
	}
	return rank
}

// refRanks returns the reference ranks, per τ k and pair p at [k*len(Pairs)+p].
func refRanks(in *Input, s *Settings) []int {
	out := make([]int, len(s.LogitAdjust)*len(in.Pairs))
	for k, tau := range s.LogitAdjust {
		for p, pr := range in.Pairs {
			out[k*len(in.Pairs)+p] = refRank(in, s.Filter.Excludes(), pr, refScores(in, pr.Query, tau))
		}
	}
	return out
}

// refMetric is the mean of one metric over the pairs whose item is in slice (name "all" = every
// pair), from ranks of one τ.
func refMetric(ranks []int, in *Input, slice, metric string, k int) (mean float64, n int) {
	var sum float64
	for p, pr := range in.Pairs {
		if slice != "all" && in.ItemSlice[pr.Item].String() != slice {
			continue
		}
		n++
		r := float64(ranks[p])
		switch metric {
		case "recall":
			if ranks[p] <= k {
				sum++
			}
		case "ndcg":
			if ranks[p] <= k {
				sum += 1 / math.Log2(r+1)
			}
		case "mrr":
			sum += 1 / r
		}
	}
	return sum / float64(n), n
}
