package metrics

import (
	"runtime"
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
// documentation): nothing in proportion to the corpus (a hundred times more items allocate less
// than 64 KiB more: tiles only, where a copy of V would be 6.4 MB), and at most 160 bytes per
// test pair and τ, bootstrap included.
func TestEvaluateMemory(t *testing.T) {
	const d = 16
	s := Settings{K: []int{10}, LogitAdjust: []float64{0, 1}, Bootstrap: 20}
	small, large := benchInput(2000, 1000, d), benchInput(2000, 100000, d)
	a, b := allocated(t, small, s), allocated(t, large, s)
	if b > a+64<<10 {
		t.Errorf("1,000 items: %d bytes; 100,000 items: %d bytes (%.1f bytes per extra item)", a, b, float64(b-a)/99000)
	}
	few := benchInput(1000, 1000, d)
	c := allocated(t, few, s)
	perPair := float64(a-c) / 1000 / 2
	if perPair > 160 {
		t.Errorf("%.0f bytes per test pair and τ, want at most 160", perPair)
	}
	t.Logf("%.1f bytes per extra item, %.0f per test pair and τ", float64(int64(b)-int64(a))/99000, perPair)
}
