//go:build openblas

package models

import (
	"gonum.org/v1/gonum/blas"

	gemmblas "github.com/samplingbias/workbench/internal/gemm"
	"github.com/samplingbias/workbench/internal/openblas"
	"github.com/samplingbias/workbench/internal/simd"
)

// float32BLAS returns the BLAS of float32 products: where the processor has AVX2 and FMA
// (simd.Kernel), internal/gemm's kernel, as in the pure-Go build; elsewhere OpenBLAS at one
// thread (the pure-Go build has only gonum's Sgemm there). The rule is measured: on an AMD EPYC
// a training step ran as fast with either (BenchmarkTrainStep/batch=1024, medians of 5 in one
// run: 92,000 examples/s with the kernel, 91,800 with OpenBLAS; sending only the weight
// gradients, where OpenBLAS was faster alone, to it did not make the step faster), and the
// ranking already takes the kernel there (metrics), so that the openblas build is nowhere slower
// than the pure-Go one. It is called directly rather than installed with blas32.Use or
// gorgonia.Use, so that importing models changes no other package's BLAS.
func float32BLAS() blas.Float32 {
	if simd.Kernel() {
		return gemmblas.Implementation{}
	}
	return openblas.Implementation{}
}

// float64BLAS returns the BLAS of float64 products (the float64 models of the tests): OpenBLAS at
// one thread.
func float64BLAS() blas.Float64 { return openblas.Implementation{} }

// splitGemm reports whether gemm splits a product of T across goroutines: those OpenBLAS
// computes, at one thread; internal/gemm splits its products itself.
func splitGemm[T float]() bool {
	var zero T
	_, single := any(zero).(float32)
	return !single || !simd.Kernel()
}
