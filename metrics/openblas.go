//go:build openblas

package metrics

import (
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/samplingbias/workbench/internal/openblas"
)

// preferBLAS makes Evaluate score with blas32, here OpenBLAS, rather than the assembly kernel.
const preferBLAS = true

// init routes blas32 to OpenBLAS, at one thread (Evaluate parallelises in Go).
func init() {
	blas32.Use(openblas.Implementation{})
}
