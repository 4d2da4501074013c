package metrics_test

import (
	"fmt"

	"github.com/samplingbias/workbench/metrics"
)

// Two queries and five items in two dimensions. Query 0 looks along the first axis, query 1
// along the second; item 0 is popular (head), items 3 and 4 are rare (tail).
func ExampleEvaluate() {
	in := metrics.Input{
		U:   []float32{1, 0, 0, 1},
		V:   []float32{3, 3, 2, 0, 1, 1, 0.5, 2, 0, 0.5},
		Dim: 2,
		// Query 0 scores the items [3, 2, 1, 0.5, 0], query 1 [3, 0, 1, 2, 0.5].
		Pairs:     []metrics.Pair{{Query: 0, Item: 1}, {Query: 1, Item: 3}, {Query: 1, Item: 4}},
		ItemSlice: metrics.AssignSlices([]int64{500, 120, 40, 3, 0}, metrics.SliceSettings{}),
	}
	res, err := metrics.Evaluate(in, metrics.Settings{K: []int{1, 2}, Bootstrap: -1}, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res {
		if r.Metric == "ndcg" {
			continue
		}
		fmt.Printf("%-5s %-6s K=%d %.3f  (%d pairs, %d items)\n", r.Slice, r.Metric, r.K, r.Value, r.Pairs, r.Items)
	}
	// Output:
	// all   recall K=1 0.000  (3 pairs, 5 items)
	// all   recall K=2 0.667  (3 pairs, 5 items)
	// all   mrr    K=0 0.417  (3 pairs, 5 items)
	// head  recall K=1 0.000  (1 pairs, 2 items)
	// head  recall K=2 1.000  (1 pairs, 2 items)
	// head  mrr    K=0 0.500  (1 pairs, 2 items)
	// tail  recall K=1 0.000  (2 pairs, 2 items)
	// tail  recall K=2 0.500  (2 pairs, 2 items)
	// tail  mrr    K=0 0.375  (2 pairs, 2 items)
}

// Aggregating one metric over three training seeds.
func ExampleMeanCI() {
	mean, lo, hi := metrics.MeanCI([]float64{0.31, 0.33, 0.35})
	fmt.Printf("%.3f [%.3f, %.3f]\n", mean, lo, hi)
	// Output:
	// 0.330 [0.280, 0.380]
}
