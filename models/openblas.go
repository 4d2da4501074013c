//go:build openblas

package models

import (
	"gonum.org/v1/gonum/blas"

	"github.com/samplingbias/workbench/internal/openblas"
)

// splitGemm: OpenBLAS runs one thread, so large products are split across goroutines in Go.
const splitGemm = true

// float32BLAS and float64BLAS return the BLAS of the products: OpenBLAS at one thread (products
// are split across goroutines in Go), called directly rather than installed with blas32.Use or
// gorgonia.Use, so that importing models changes no other package's BLAS.
func float32BLAS() blas.Float32 { return openblas.Implementation{} }
func float64BLAS() blas.Float64 { return openblas.Implementation{} }
