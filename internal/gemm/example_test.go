package gemm_test

import (
	"fmt"

	"gonum.org/v1/gonum/blas"

	"github.com/samplingbias/workbench/internal/gemm"
)

// Example computes C = A·Bᵀ + C for a 2×3 matrix A and a 2×3 matrix B.
func Example() {
	a := []float32{1, 2, 3, 4, 5, 6}
	b := []float32{1, 0, 1, 0, 1, 0}
	c := []float32{10, 20, 30, 40}
	gemm.Implementation{}.Sgemm(blas.NoTrans, blas.Trans, 2, 2, 3, 1, a, 3, b, 3, 1, c, 2)
	fmt.Println(c)
	// Output: [14 22 40 45]
}
