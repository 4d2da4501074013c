package metrics

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestPopularityBinsByHand(t *testing.T) {
	for _, c := range []struct {
		name   string
		counts []int64
		method SliceMethod
		n      int
		want   []int
	}{
		// Items: a run's middle item decides. 5: middle 0.5 of 6 items → bin ⌊3·0.5/6⌋ = 0; the
		// three 4s: middle 1 + 1.5 → ⌊3·2.5/6⌋ = 1; 2: 4.5 → 2; 1: 5.5 → 2.
		{"quantiles", []int64{4, 5, 1, 4, 2, 4}, SliceMethodQuantiles, 3, []int{1, 0, 2, 1, 2, 1}},
		// Mass 20: the two 5s (middle 5) → bin 0 with mass 10; 4 (10 + 2), 3, 2, 1 → bin 1, mass 10.
		{"mass", []int64{5, 5, 4, 3, 2, 1}, SliceMethodMassQuantiles, 2, []int{0, 0, 1, 1, 1, 1}},
		// Mass 20 in 4 bins of 5: 8 (middle 4) → 0; 4 (8 + 2 = 10) → 2; the two 2s (12 + 2 = 14)
		// → 2; the four 1s (16 + 2 = 18) → 3. Bin 1 stays empty: no run's middle falls in it.
		{"mass with an empty bin", []int64{1, 2, 8, 1, 4, 1, 2, 1}, SliceMethodMassQuantiles, 4, []int{3, 2, 0, 3, 2, 3, 2, 3}},
		// Unseen items have no mass: the last bin.
		{"unseen", []int64{0, 3, 1}, SliceMethodMassQuantiles, 2, []int{1, 0, 1}},
		{"one bin", []int64{3, 1, 2}, SliceMethodQuantiles, 1, []int{0, 0, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := PopularityBins(c.counts, c.method, c.n)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("bins %v, want %v", got, c.want)
			}
		})
	}
	masses := func(counts []int64, bin []int, n int) []int64 {
		m := make([]int64, n)
		for j, c := range counts {
			m[bin[j]] += c
		}
		return m
	}
	counts := []int64{1, 2, 8, 1, 4, 1, 2, 1}
	bin, _ := PopularityBins(counts, SliceMethodMassQuantiles, 4)
	if got := masses(counts, bin, 4); !slices.Equal(got, []int64{8, 0, 8, 4}) {
		t.Errorf("masses %v, want [8 0 8 4]", got)
	}
	for _, c := range []struct {
		counts []int64
		method SliceMethod
		n      int
		want   string
	}{
		{[]int64{1}, "deciles", 2, `method: unknown "deciles" (allowed: quantiles, mass_quantiles)`},
		{[]int64{1}, SliceMethodQuantiles, 101, "bins: must be at most 100, got 101"},
		{[]int64{1}, SliceMethodQuantiles, 0, "bins: must be at least 1, got 0"},
		{[]int64{0, 0}, SliceMethodMassQuantiles, 2, `metrics: "mass_quantiles" bins need training interactions, and there are none`},
		{[]int64{1, -1}, SliceMethodQuantiles, 2, "metrics: negative training count -1 of item 1"},
	} {
		if _, err := PopularityBins(c.counts, c.method, c.n); err == nil || err.Error() != c.want {
			t.Errorf("PopularityBins(%v, %q, %d): %v, want %q", c.counts, c.method, c.n, err, c.want)
		}
	}
}

// TestPopularityBinsNeverSplit: on random counts with many ties, every item gets one bin in
// [0, n), equal counts share a bin, a more frequent item is never in a later bin than a rarer
// one, and without ties the bins are within one run of their target size.
func TestPopularityBinsNeverSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		m := 1 + rng.IntN(300)
		counts := make([]int64, m)
		for j := range counts {
			counts[j] = int64(rng.IntN(1 + rng.IntN(50)))
		}
		counts[0]++ // some mass
		for _, method := range binMethods {
			n := 1 + rng.IntN(12)
			bin, err := PopularityBins(counts, method, n)
			if err != nil {
				t.Fatal(err)
			}
			if len(bin) != m {
				t.Fatalf("trial %d: %d bins for %d items", trial, len(bin), m)
			}
			for a := range counts {
				if bin[a] < 0 || bin[a] >= n {
					t.Fatalf("trial %d, %s: item %d in bin %d of %d", trial, method, a, bin[a], n)
				}
				for b := range counts {
					if counts[a] == counts[b] && bin[a] != bin[b] {
						t.Fatalf("trial %d, %s: items %d and %d of count %d split into bins %d and %d", trial, method, a, b, counts[a], bin[a], bin[b])
					}
					if counts[a] > counts[b] && bin[a] > bin[b] {
						t.Fatalf("trial %d, %s: item %d (count %d) in bin %d after item %d (count %d) in bin %d", trial, method, a, counts[a], bin[a], b, counts[b], bin[b])
					}
				}
			}
		}
	}
	// Distinct counts: n equal bins of items exactly.
	counts := make([]int64, 100)
	for j := range counts {
		counts[j] = int64(j * j)
	}
	bin, _ := PopularityBins(counts, SliceMethodQuantiles, 10)
	size := make([]int, 10)
	for _, b := range bin {
		size[b]++
	}
	if !slices.Equal(size, []int{10, 10, 10, 10, 10, 10, 10, 10, 10, 10}) {
		t.Errorf("100 distinct counts in 10 quantile bins: sizes %v", size)
	}
}

func TestBinShares(t *testing.T) {
	counts := []int64{5, 5, 4, 3, 2, 1}
	bin := []int{0, 0, 1, 1, 1, 1}
	got := BinShares(counts, bin, 2, []int32{0, 2, 2, 5})
	want := []BinShare{{Items: 2, MinCount: 5, MaxCount: 5, Train: 0.5, Test: 0.25}, {Items: 4, MinCount: 1, MaxCount: 4, Train: 0.5, Test: 0.75}}
	if !slices.Equal(got, want) {
		t.Errorf("BinShares = %+v, want %+v", got, want)
	}
}

func TestGini(t *testing.T) {
	for _, c := range []struct {
		x    []float64
		want float64
	}{
		{[]float64{1, 0, 0, 0}, 0.75},       // one holds all: (n − 1)/n
		{[]float64{1, 2, 3}, 2.0 / 9},       // ordered-pair differences 8, over 2·3·6
		{[]float64{2, 2, 2}, 0},             // equal
		{[]float64{0, 0}, 0},                // all zero: equal
		{[]float64{0.1, 0.2, 0.3}, 2.0 / 9}, // scale-free
	} {
		if got := Gini(c.x); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Gini(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	// Against the sorted form G = 2 Σ_i i·x_(i) / (n Σ x) − (n + 1)/n (x ascending, i from 1).
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		x := make([]float64, 1+rng.IntN(20))
		for i := range x {
			x[i] = rng.Float64()
		}
		s := slices.Sorted(slices.Values(x))
		var num, sum float64
		for i, v := range s {
			num += float64(i+1) * v
			sum += v
		}
		n := float64(len(x))
		if want := 2*num/(n*sum) - (n+1)/n; math.Abs(Gini(x)-want) > 1e-12 {
			t.Errorf("Gini(%v) = %v, sorted form %v", x, Gini(x), want)
		}
	}
	macro, balance := PopularityBalance([]float64{0.1, 0.2, 0.3})
	if math.Abs(macro-0.2) > 1e-15 || math.Abs(balance-7.0/9) > 1e-12 {
		t.Errorf("PopularityBalance(0.1, 0.2, 0.3) = %v, %v, want 0.2, 7/9", macro, balance)
	}
}

// TestEvaluateByBin: with quantile slices, Evaluate reports every bin as a slice, and the
// slices' pairs add up to all pairs. Scores put item j at rank j + 1 for every query (score
// −j), so Recall@2 of a bin is the share of its pairs on items 0 and 1.
func TestEvaluateByBin(t *testing.T) {
	counts := []int64{9, 7, 7, 3, 1, 0}
	itemSlice := AssignSlices(counts, SliceSettings{Method: SliceMethodQuantiles, Bins: 3})
	// Bins: 9 (middle 0.5 of 6 → bin 0), the 7s (middle 2 → bin 1), 3 (3.5 → 1), 1 (4.5 → 2), 0 (5.5 → 2).
	want := []Slice{SliceBin(0), SliceBin(1), SliceBin(1), SliceBin(1), SliceBin(2), SliceBin(2)}
	if !slices.Equal(itemSlice, want) {
		t.Fatalf("slices %v, want %v", itemSlice, want)
	}
	v := make([]float32, len(counts))
	for j := range v {
		v[j] = -float32(j)
	}
	in := Input{U: []float32{1}, V: v, Dim: 1, ItemSlice: itemSlice,
		Pairs: []Pair{{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}}}
	res, err := Evaluate(in, Settings{K: []int{2}, Bootstrap: -1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	got := map[Slice]float64{}
	pairs := 0
	for _, r := range res {
		if r.Metric == MetricRecall {
			got[r.Slice] = r.Value
			if r.Slice != SliceAll {
				pairs += r.Pairs
			}
		}
	}
	wantRecall := map[Slice]float64{SliceAll: 2.0 / 6, SliceBin(0): 1, SliceBin(1): 1.0 / 3, SliceBin(2): 0}
	if !maps.Equal(got, wantRecall) || pairs != 6 {
		t.Errorf("Recall@2 by slice %v (%d pairs in the bins), want %v (6)", got, pairs, wantRecall)
	}
	var sl Slice
	if err := sl.UnmarshalText([]byte("bin3")); err != nil || sl != SliceBin(2) || SliceBin(2).String() != "bin3" {
		t.Errorf("bin3 unmarshals to %v (%v), SliceBin(2) is %q", sl, err, SliceBin(2))
	}
	if err := sl.UnmarshalText([]byte("bin0")); err == nil {
		t.Error("bin0 accepted")
	}
	for _, c := range []struct {
		s    SliceSettings
		want string
	}{
		{SliceSettings{Method: SliceMethodCount, Bins: 4}, `bins: only used with methods "quantiles" and "mass_quantiles", not "count"; leave it 0`},
		{SliceSettings{Method: SliceMethodQuantiles, Bins: 1}, "bins: must be in [2, 100], got 1"},
	} {
		if err := c.s.Resolve(); err == nil || err.Error() != c.want {
			t.Errorf("Resolve(%+v) = %v, want %q", c.s, err, c.want)
		}
	}
	s := SliceSettings{Method: SliceMethodMassQuantiles}
	if err := s.Resolve(); err != nil || s.Bins != DefaultBins {
		t.Errorf("mass_quantiles resolves to %+v, %v", s, err)
	}
}
