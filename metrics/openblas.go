//go:build openblas

package metrics

import (
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/samplingbias/workbench/internal/openblas"
)

// init routes blas32 to OpenBLAS, at one thread (Evaluate parallelises in Go): the backend of
// processors without AVX2 and FMA (see newBackend).
func init() {
	blas32.Use(openblas.Implementation{})
}
