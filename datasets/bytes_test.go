package datasets

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/samplingbias/workbench/internal/memstat"
)

// TestBytes checks Bytes against what a loaded dataset holds on the Go heap (the live heap after
// a collection, before and after loading): within 10%. The synthetic data has 300,000
// interactions of 24 bytes and no names or tokens.
func TestBytes(t *testing.T) {
	if size := unsafe.Sizeof(Interaction{}); size != 24 {
		t.Fatalf("an interaction is %d bytes, the test expects 24", size)
	}
	before := memstat.Live()
	ds, err := Load(Settings{Source: SourceSynthetic, Synthetic: SyntheticSettings{Items: 20000, Queries: 30000, Interactions: 300000,
		Clusters: 8, Days: 4}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	held := memstat.Live() - before
	est := ds.Bytes()
	runtime.KeepAlive(ds)
	t.Logf("%d interactions: Bytes %.0f, heap %.0f", len(ds.Train)+len(ds.Test), est, held)
	if min := 24 * float64(len(ds.Train)+len(ds.Test)); est < min {
		t.Errorf("Bytes %v, less than the interactions' %v", est, min)
	}
	if est < 0.9*held || est > 1.1*held {
		t.Errorf("Bytes %.0f, the loaded dataset holds %.0f bytes of heap", est, held)
	}
}
