//go:build openblas

package metrics

import (
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/samplingbias/workbench/internal/openblas"
)

// blasCandidate makes Evaluate calibrate blas32, here OpenBLAS, against the assembly kernel and
// rank with the faster (see newBackend).
const blasCandidate = true

// init routes blas32 to OpenBLAS, at one thread (Evaluate parallelises in Go).
func init() {
	blas32.Use(openblas.Implementation{})
}
