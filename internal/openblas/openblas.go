//go:build openblas

package openblas

/*
#cgo LDFLAGS: -lopenblas
void openblas_set_num_threads(int);
*/
import "C"

import "gonum.org/v1/netlib/blas/netlib"

// Implementation is OpenBLAS through gonum's netlib binding: a blas.Float32, blas.Float64 and
// gorgonia.BLAS.
type Implementation = netlib.Implementation

func init() {
	C.openblas_set_num_threads(1)
}
