package memstat

import (
	"runtime"
	"testing"
)

// TestLive: a 64 MiB slice kept alive raises Live by 64 MiB within 1 MiB (the test's own
// allocations and the runtime's bookkeeping), and dropping it gives the bytes back.
func TestLive(t *testing.T) {
	const size = 64 << 20
	before := Live()
	b := make([]byte, size)
	b[size-1] = 1
	held := Live() - before
	runtime.KeepAlive(b)
	if held < size-1<<20 || held > size+1<<20 {
		t.Errorf("a %d-byte slice holds %.0f bytes", size, held)
	}
	if after := Live() - before; after > 1<<20 {
		t.Errorf("%.0f bytes still held after the slice died", after)
	}
}
