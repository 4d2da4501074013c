//go:build !openblas

package models

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	gemmblas "github.com/samplingbias/workbench/internal/gemm"
)

// splitGemm reports whether gemm splits a product of T across goroutines: never, as
// internal/gemm computes large products on every core and float64 ones are test-sized.
func splitGemm[T float]() bool { return false }

// float32BLAS returns the BLAS of float32 products: internal/gemm's blocked AVX2/FMA Sgemm
// (gonum's pure-Go one on processors without AVX2 and FMA). It is called directly rather than
// installed with blas32.Use, so that importing models changes no other package's BLAS.
func float32BLAS() blas.Float32 { return gemmblas.Implementation{} }

// float64BLAS returns the BLAS of float64 products (the float64 models of the tests): gonum's.
func float64BLAS() blas.Float64 { return gonum.Implementation{} }
