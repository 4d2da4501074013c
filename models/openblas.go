//go:build openblas

package models

/*
#cgo LDFLAGS: -lopenblas
void openblas_set_num_threads(int);
*/
import "C"

import (
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
	"gorgonia.org/gorgonia"
)

// splitGemm: OpenBLAS runs one thread, so large products are split across goroutines in Go.
const splitGemm = true

func init() {
	C.openblas_set_num_threads(1)
	blas32.Use(netlib.Implementation{})
	blas64.Use(netlib.Implementation{})
	gorgonia.Use(netlib.Implementation{})
}
