//go:build openblas

package metrics

/*
#cgo LDFLAGS: -lopenblas
void openblas_set_num_threads(int);
*/
import "C"

import (
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/netlib/blas/netlib"
)

// preferBLAS makes Evaluate score with blas32, here OpenBLAS, rather than the assembly kernel.
const preferBLAS = true

// init keeps OpenBLAS on one thread (Evaluate parallelises in Go) and routes blas32 to it.
func init() {
	C.openblas_set_num_threads(1)
	blas32.Use(netlib.Implementation{})
}
