package workbench

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/samplingbias/workbench/datasets"
)

// TestRunMemoryMeasured checks the memory estimate a run is planned with (its dataset and peak,
// printed before anything is allocated) against the peak live heap of the run itself, training
// and evaluation, at two sizes of configs/synthetic_1m.toml's corpus (100,000 and 300,000 items
// and queries): within 15%. The live heap is read after every collection, which GOGC = 10 makes
// frequent, less what was live before the command started. The run has 2 cores, as on the
// project's machines: the scoring workers' tiles, which the estimate leaves to the limit's slack,
// grow with the cores.
func TestRunMemoryMeasured(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two runs of 100,000 and 300,000 items")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, n := range []int{100_000, 300_000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			set := []string{
				fmt.Sprintf("data.synthetic.items=%d", n), fmt.Sprintf("data.synthetic.queries=%d", n),
				fmt.Sprintf("data.synthetic.interactions=%d", n), "eval.max_pairs=2000", "eval.bootstrap=100",
			}
			_, cfg, err := loadConfig("../configs/synthetic_1m.toml", set)
			if err != nil {
				t.Fatal(err)
			}
			ds, err := datasets.Load(cfg.Data, cfg.DataSeed)
			if err != nil {
				t.Fatal(err)
			}
			peak, _, err := runMemory(cfg, ds)
			if err != nil {
				t.Fatal(err)
			}
			estimate := ds.Bytes() + peak
			ds = nil

			defer debug.SetGCPercent(debug.SetGCPercent(10))
			runtime.GC()
			sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
			live := func() float64 {
				metrics.Read(sample)
				return float64(sample[0].Value.Uint64())
			}
			before := live()
			var most float64
			done := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				for {
					most = math.Max(most, live())
					select {
					case <-done:
						return
					case <-time.After(time.Millisecond):
					}
				}
			})
			args := []string{"-config", "../configs/synthetic_1m.toml", "-out", t.TempDir(), "-jobs", "1"}
			for _, s := range set {
				args = append(args, "-set", s)
			}
			_, err = runCommand(t, args...)
			close(done)
			wg.Wait()
			if err != nil {
				t.Fatal(err)
			}
			measured := most - before
			t.Logf("%d items: estimate %.0f MB, measured peak live heap %.0f MB (%.2f)", n, estimate/1e6, measured/1e6, estimate/measured)
			if math.Abs(estimate-measured) > 0.15*measured {
				t.Errorf("%d items: the estimate %.0f bytes is not within 15%% of the measured peak %.0f", n, estimate, measured)
			}
		})
	}
}
