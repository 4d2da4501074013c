//go:build !openblas

package metrics

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// float32BLAS is the BLAS of blasBackend: gonum's pure-Go Sgemm.
func float32BLAS() blas.Float32 { return gonum.Implementation{} }
