//go:build openblas

package models

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gorgonia.org/gorgonia"

	"github.com/samplingbias/workbench/internal/openblas"
)

// splitGemm: OpenBLAS runs one thread, so large products are split across goroutines in Go.
const splitGemm = true

// float32BLAS returns the BLAS of float32 products: OpenBLAS, installed in blas32 by init.
func float32BLAS() blas.Float32 { return blas32.Implementation() }

// init routes blas32, blas64 and Gorgonia to OpenBLAS, at one thread (products are split across
// goroutines in Go).
func init() {
	blas32.Use(openblas.Implementation{})
	blas64.Use(openblas.Implementation{})
	gorgonia.Use(openblas.Implementation{})
}
