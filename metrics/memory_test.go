package metrics

import (
	"runtime"
	"slices"
	"testing"
)

// allocated returns the bytes Evaluate allocates on in (inputs excluded), one goroutine.
func allocated(t *testing.T, in Input, s Settings) uint64 {
	t.Helper()
	s.Workers = 1
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := Evaluate(in, s, 1); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestEvaluateMemory checks the documented memory of evaluation ("Memory" in the package
// documentation): nothing in proportion to the corpus, and at most 160 bytes per test pair and τ,
// bootstrap included (240 with training counts, for popularity-stratified recall and exposure). With the kernel backend thirty times more items allocate less than
// 64 KiB more (tiles only, where a copy of V would be 1.9 MB); with blas32 (gonum's Sgemm, which
// allocates short-lived goroutine closures per product) less than 32 KiB of garbage per tile
// product.
func TestEvaluateMemory(t *testing.T) {
	const d = 16
	s := Settings{K: []int{10}, LogitAdjust: []float64{0, 1}, Bootstrap: 20}
	small, large := benchInput(600, 1000, d), benchInput(600, 30000, d)
	allocated(t, small, s) // a first evaluation may calibrate the backends (openblas tag)
	a, b := allocated(t, small, s), allocated(t, large, s)
	_, isBLAS := newBackend(large.U, large.V, d).(*blasBackend)
	limit := uint64(64 << 10)
	if isBLAS {
		rows, _, cols := newBLASBackend(nil, nil, d).geometry()
		products := (600 + rows - 1) / rows * ((30000+cols-1)/cols - (1000+cols-1)/cols)
		limit = uint64(products) * 32 << 10
	}
	if b > a+limit {
		t.Errorf("1,000 items: %d bytes; 30,000 items: %d bytes (%.1f bytes per extra item), want at most %d more",
			a, b, float64(b-a)/29000, limit)
	}
	// The same queries with a second pair each: the blocks and tiles are the same.
	more := small
	more.Pairs = slices.Clone(small.Pairs)
	for _, p := range small.Pairs {
		more.Pairs = append(more.Pairs, Pair{p.Query, (p.Item + 1) % 1000})
	}
	c := allocated(t, more, s)
	perPair := (float64(c) - float64(a)) / float64(len(small.Pairs)) / 2
	if perPair > 160 {
		t.Errorf("%.0f bytes per test pair and τ, want at most 160", perPair)
	}
	t.Logf("%.1f bytes per extra item, %.0f per test pair and τ", float64(int64(b)-int64(a))/29000, perPair)

	// With training counts, popularity-stratified recall and the top lists of exposure add
	// their rows: at most 240 bytes per pair and τ for a second pair of a query.
	small.Counts, more.Counts = make([]int64, 1000), make([]int64, 1000)
	a, c = allocated(t, small, s), allocated(t, more, s)
	if perPair := (float64(c) - float64(a)) / float64(len(small.Pairs)) / 2; perPair > 240 {
		t.Errorf("with exposure: %.0f bytes per test pair and τ, want at most 240", perPair)
	}
}
