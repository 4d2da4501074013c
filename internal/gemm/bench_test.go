package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// BenchmarkSgemm compares Implementation's Sgemm with gonum's on the products of a training step
// (batch 1024, layers 192→512 and 512→128: forward NN, input gradient NT, weight gradient TN; the
// 1024×1024 score matrix of 128-dimensional towers and its gradients), reporting GFLOP/s (2mnk per
// product).
func BenchmarkSgemm(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, sh := range [][3]int{{1024, 512, 192}, {1024, 128, 512}, {1024, 192, 512}, {512, 128, 1024}, {1024, 1024, 128}, {1024, 128, 1024}} {
		for _, tr := range [][2]blas.Transpose{{blas.NoTrans, blas.NoTrans}, {blas.NoTrans, blas.Trans}, {blas.Trans, blas.NoTrans}} {
			tc := sgemmCase{tr[0], tr[1], sh[0], sh[1], sh[2], 0, 1, 0}
			a, lda, bm, ldb, c, ldc := tc.operands(rng)
			for _, impl := range []struct {
				name string
				f    blas.Float32
			}{{"gemm", Implementation{}}, {"gonum", gonum.Implementation{}}} {
				name := fmt.Sprintf("%c%c/%dx%dx%d/%s", tr[0], tr[1], sh[0], sh[1], sh[2], impl.name)
				b.Run(name, func(b *testing.B) {
					for b.Loop() {
						impl.f.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, 1, a, lda, bm, ldb, 0, c, ldc)
					}
					b.ReportMetric(2*float64(tc.m*tc.n*tc.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}
