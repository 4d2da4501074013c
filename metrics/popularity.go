package metrics

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/samplingbias/workbench/internal/setting"
)

// PopularityBins returns the bin, in [0, n), of every item given its training count counts[j]:
// bin 0 holds the most frequent items, bin n−1 the rarest. Items are ordered by decreasing count
// and cut into n bins of equal size, measured in items (SliceMethodQuantiles) or in training
// interactions (SliceMethodMassQuantiles). Items of equal count are never split: a run of equal counts
// goes whole to the bin that holds its middle, the bin ⌊n·(before + size/2)/whole⌋ (clipped to
// n − 1), where before is the size of the items ahead of the run, size the run's own and whole
// the total. Ties can therefore leave a bin empty or unbalanced; items never seen in training
// are in the last bin under SliceMethodMassQuantiles.
func PopularityBins(counts []int64, method SliceMethod, n int) ([]int, error) {
	if err := setting.First(
		setting.OneOf("method", method, binMethods),
		setting.Require("bins", n <= MaxBins, "must be at most %d, got %d", MaxBins, n),
		setting.AtLeast("bins", n, 1),
	); err != nil {
		return nil, err
	}
	var total int64
	for j, c := range counts {
		if c < 0 {
			return nil, fmt.Errorf("metrics: negative training count %d of item %d", c, j)
		}
		total += c
	}
	whole := float64(len(counts))
	if method == SliceMethodMassQuantiles {
		if total == 0 {
			return nil, fmt.Errorf("metrics: %q bins need training interactions, and there are none", method)
		}
		whole = float64(total)
	}
	order := make([]int, len(counts))
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(counts[b], counts[a]) })
	bin := make([]int, len(counts))
	var before float64
	for i := 0; i < len(order); {
		end := i
		for end < len(order) && counts[order[end]] == counts[order[i]] {
			end++
		}
		size := float64(end - i)
		if method == SliceMethodMassQuantiles {
			size *= float64(counts[order[i]])
		}
		b := min(int(float64(n)*(before+size/2)/whole), n-1)
		for _, j := range order[i:end] {
			bin[j] = b
		}
		before += size
		i = end
	}
	return bin, nil
}

// BinShare describes one popularity bin.
type BinShare struct {
	// Items is the number of items in the bin; MinCount and MaxCount their least and greatest
	// training counts (0 when the bin is empty).
	Items              int
	MinCount, MaxCount int64
	// Train is the bin's share of the training interactions, Test its share of the test pairs.
	Train, Test float64
}

// BinShares describes the n bins of bin (from PopularityBins) given the items' training counts
// and the items of the test pairs.
func BinShares(counts []int64, bin []int, n int, testItems []int32) []BinShare {
	out := make([]BinShare, n)
	var total int64
	for j, c := range counts {
		s := &out[bin[j]]
		if s.Items == 0 || c < s.MinCount {
			s.MinCount = c
		}
		s.MaxCount = max(s.MaxCount, c)
		s.Items++
		s.Train += float64(c)
		total += c
	}
	for _, y := range testItems {
		out[bin[y]].Test++
	}
	for i := range out {
		if total > 0 {
			out[i].Train /= float64(total)
		}
		if len(testItems) > 0 {
			out[i].Test /= float64(len(testItems))
		}
	}
	return out
}

// Gini is the Gini coefficient of the non-negative values x, the mean absolute difference of
// all ordered pairs over twice the mean: Σ_i Σ_j |x_i − x_j| / (2 n² x̄). It is 0 when all values
// are equal (and when they are all 0) and (n − 1)/n when one value holds everything.
func Gini(x []float64) float64 {
	sorted := slices.Clone(x)
	slices.Sort(sorted)
	return giniSorted(sorted, len(x))
}

// giniSorted is the Gini coefficient of n values: the ascending values x, after n − len(x)
// zeros. With the values sorted, x_(1) ≤ … ≤ x_(n), Σ_i Σ_j |x_i − x_j| = 2·Σ_i (2i − n − 1)·x_(i),
// so the coefficient is Σ_i (2i − n − 1)·x_(i) / (n·Σ x), in O(n) (the zeros add nothing).
func giniSorted(x []float64, n int) float64 {
	var sum, weighted float64
	for t, v := range x {
		i := n - len(x) + t + 1
		sum += v
		weighted += float64(2*i-n-1) * v
	}
	if sum == 0 {
		return 0
	}
	return weighted / (float64(n) * sum)
}

// PopularityBalance summarises per-bin recalls (Recall@K over the test pairs of each popularity
// bin, bins without test pairs left out): macro is their unweighted mean (macro-Recall@K, every
// bin counting alike however many pairs it has) and balance is 1 − Gini of them, Prakash et al.
// (2024)'s balance: 1 when every bin is recalled alike, lower as recall concentrates in a few
// bins.
func PopularityBalance(recalls []float64) (macro, balance float64) {
	for _, r := range recalls {
		macro += r
	}
	return macro / float64(len(recalls)), 1 - Gini(recalls)
}
