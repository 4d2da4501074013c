package gemm

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Implementation is gonum's BLAS (blas.Float32 and blas.Float64) with a faster Sgemm.
type Implementation struct {
	gonum.Implementation
}

var _ blas.Float32 = Implementation{}
var _ blas.Float64 = Implementation{}

// Sgemm computes C = alpha·op(A)·op(B) + beta·C for an m×n row-major matrix C (leading
// dimension ldc), op(A) m×k and op(B) k×n, where op transposes when tA (tB) is blas.Trans or
// blas.ConjTrans. When beta is 0, C is not read. See the package documentation for the method.
func (impl Implementation) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	p := product{
		tA: tA == blas.Trans || tA == blas.ConjTrans, tB: tB == blas.Trans || tB == blas.ConjTrans,
		m: m, n: n, k: k, alpha: alpha, a: a, lda: lda, b: b, ldb: ldb, beta: beta, c: c, ldc: ldc,
	}
	if !validTrans(tA) || !validTrans(tB) || !p.valid() || alpha == 0 || !p.run() {
		impl.Implementation.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
}

// SgemmRows computes C = A[rows]·B: row i of the m×n matrix C (m = len(rows), leading dimension
// ldc; not read) is row rows[i] of the row-major matrix A (leading dimension lda) times the k×n
// matrix B (ldb). Each element has the bits Sgemm gives it for the matrix of those rows, with
// alpha 1 and beta 0 (the same operations), without a copy of the rows: op(A)'s panels are packed
// from them. It reports whether it computed C: false, having done nothing, where Sgemm is gonum's
// (no micro-kernel); the caller then gathers the rows itself. It panics if a row lies outside A
// or a size is inconsistent.
func (impl Implementation) SgemmRows(n, k int, rows []int32, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) bool {
	p := product{m: len(rows), n: n, k: k, alpha: 1, a: a, lda: lda, rows: rows, b: b, ldb: ldb, c: c, ldc: ldc}
	if !p.valid() {
		panic("gemm: SgemmRows: bad sizes or a row outside A")
	}
	return p.run()
}

// product holds the arguments of one Sgemm (or SgemmRows) call.
type product struct {
	tA, tB      bool
	m, n, k     int
	alpha, beta float32
	a, b, c     []float32
	lda, ldb    int
	ldc         int
	rows        []int32 // row i of op(A) is row rows[i] of A (nil: row i; never with tA)
}

func validTrans(t blas.Transpose) bool {
	return t == blas.NoTrans || t == blas.Trans || t == blas.ConjTrans
}

// valid reports whether the sizes are consistent and there is a product to compute (m, n, k > 0).
func (p *product) valid() bool {
	if p.m <= 0 || p.n <= 0 || p.k <= 0 {
		return false
	}
	if p.rows != nil {
		for _, r := range p.rows {
			if r < 0 || int(r)*p.lda+p.k > len(p.a) {
				return false
			}
		}
		return !p.tA && p.lda >= p.k && p.ldb >= p.n && p.ldc >= p.n &&
			len(p.b) >= (p.k-1)*p.ldb+p.n && len(p.c) >= (p.m-1)*p.ldc+p.n
	}
	ra, ca := p.m, p.k
	if p.tA {
		ra, ca = p.k, p.m
	}
	rb, cb := p.k, p.n
	if p.tB {
		rb, cb = p.n, p.k
	}
	return p.lda >= ca && p.ldb >= cb && p.ldc >= p.n &&
		len(p.a) >= (ra-1)*p.lda+ca && len(p.b) >= (rb-1)*p.ldb+cb && len(p.c) >= (p.m-1)*p.ldc+p.n
}
