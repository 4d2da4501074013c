//go:build openblas

package models

/*
#cgo LDFLAGS: -lopenblas
void openblas_set_num_threads(int);
*/
import "C"

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
	"gorgonia.org/gorgonia"
)

// splitGemm: OpenBLAS runs one thread, so large products are split across goroutines in Go.
const splitGemm = true

// float32BLAS returns the BLAS of float32 products: OpenBLAS, installed in blas32 by init.
func float32BLAS() blas.Float32 { return blas32.Implementation() }

func init() {
	C.openblas_set_num_threads(1)
	blas32.Use(netlib.Implementation{})
	blas64.Use(netlib.Implementation{})
	gorgonia.Use(netlib.Implementation{})
}
