// Package memstat measures the memory a value holds, for the tests that check a package's memory
// estimate (estimators.StateBytes, samplers.StateBytes, datasets' Bytes, models' MemoryOf) against
// the heap.
package memstat

import "runtime"

// Live returns the bytes of the heap's live objects after a full collection: the difference of
// two calls around an allocation is what it holds, as long as the value is kept alive
// (runtime.KeepAlive) past the second call.
func Live() float64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc)
}
