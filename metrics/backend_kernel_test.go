//go:build amd64 && !noasm

package metrics

import (
	"testing"

	"github.com/samplingbias/workbench/internal/simd"
)

// TestBackendChoice checks the documented rule of newBackend: the kernel where the processor has
// AVX2 and FMA (also under the openblas tag), blas32 where it lacks them or GODEBUG hides them.
// That both give the same ranks is TestRanksRounded's and TestRanksExact's.
func TestBackendChoice(t *testing.T) {
	in := benchInput(10, 100, 24)
	be := newBackend(in.U, in.V, 24)
	_, isKernel := be.(*kernelBackend)
	_, isBLAS := be.(*blasBackend)
	if isKernel != simd.Kernel() || isBLAS == simd.Kernel() {
		t.Errorf("AVX2 and FMA %v: backend %T", simd.Kernel(), be)
	}
}
