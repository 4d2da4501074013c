//go:build amd64 && !noasm

package metrics

import (
	"testing"
	"time"

	"github.com/samplingbias/workbench/internal/simd"
)

// TestCalibration checks the backend choice: the faster measured backend wins, the choice is
// measured once per dimension and remembered, and newBackend follows it (blas32 is a candidate
// only under the openblas tag). That both backends give the same ranks is TestRanksRounded's and
// TestRanksExact's.
func TestCalibration(t *testing.T) {
	var c calibration
	calls := 0
	fake := func(blas, kernel time.Duration) func(int) (time.Duration, time.Duration) {
		return func(int) (time.Duration, time.Duration) { calls++; return blas, kernel }
	}
	if !c.blasFaster(8, fake(time.Millisecond, 2*time.Millisecond)) {
		t.Error("blas32 measured faster, not chosen")
	}
	if c.blasFaster(16, fake(3*time.Millisecond, 2*time.Millisecond)) {
		t.Error("kernel measured faster, blas32 chosen")
	}
	if !c.blasFaster(8, fake(time.Hour, time.Millisecond)) || calls != 2 {
		t.Errorf("dimension 8 measured again (%d measurements), or its choice forgotten", calls)
	}

	in := benchInput(10, 100, 24)
	if !simd.Kernel() {
		// No AVX2/FMA (or hidden by GODEBUG): blas32 without measuring.
		be := newBackend(in.U, in.V, 24)
		if _, ok := be.(*blasBackend); !ok || len(calibrated.faster) != 0 {
			t.Errorf("without the kernel: %T, %d calibrations", be, len(calibrated.faster))
		}
		return
	}
	b, k := measureBackends(24)
	if b <= 0 || k <= 0 {
		t.Errorf("measured %v and %v", b, k)
	}
	be := newBackend(in.U, in.V, 24)
	_, isBLAS := be.(*blasBackend)
	if want := blasCandidate && calibrated.faster[24]; isBLAS != want {
		t.Errorf("newBackend gave %T; blas32 candidate %v, calibrated faster %v", be, blasCandidate, calibrated.faster[24])
	}
	t.Logf("calibration at d = 24: blas32 %v, kernel %v per 96×8192 block", b, k)
}
