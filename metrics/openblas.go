//go:build openblas

package metrics

import (
	"gonum.org/v1/gonum/blas"

	"github.com/samplingbias/workbench/internal/openblas"
)

// float32BLAS is the BLAS of blasBackend: OpenBLAS, at one thread (Evaluate parallelises in Go),
// called directly rather than installed with blas32.Use, so that no other package's BLAS changes.
func float32BLAS() blas.Float32 { return openblas.Implementation{} }
