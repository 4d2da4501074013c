// Package gemm is gonum's pure-Go BLAS with a fast float32 matrix product: Implementation embeds
// gonum.org/v1/gonum/blas/gonum.Implementation and overrides Sgemm with a blocked, packed and
// parallel product built on the 6×16 AVX2/FMA micro-kernel of internal/simd, in the manner of
// Goto and van de Geijn (2008, "Anatomy of high-performance matrix multiplication", ACM TOMS 34(3))
// and BLIS (Van Zee and van de Geijn 2015): panels of op(B) (kc×nc) and of a transposed op(A)
// (mc×kc) are packed into the micro-kernel's layout, with zeros padding the edges, and C is
// updated one 6×16 tile at a time (a column of full tiles in one call). Where the processor has
// AVX-512, the kernel runs four tiles at a time as one 24×16 tile in its 32 wider registers, and
// an untransposed op(A) is packed too (simd.Interleave); on AVX2 alone it is not: the kernel
// reads its rows in place (simd.Gemm6x16Strided, as BLIS's kernels for skinny products do), which
// saves a copy of A where n is small (the towers' last layers, the gradients of the score
// matrix). A product split among goroutines by rows packs op(B), which every part reads whole,
// once.
//
// Results do not depend on scheduling, on GOMAXPROCS or on AVX-512: C is split among goroutines
// along whole tiles, and every element is computed by the same sequence of operations wherever it
// lies and whichever kernel forms it (sums over l in increasing order, one fused multiply-add per
// term, in blocks of kc terms added to C in order).
//
// SgemmRows multiplies listed rows of a matrix (in any order, repeats allowed) without copying
// them first: the panels of op(A) are packed from the rows where they lie, and each element of C
// has the bits Sgemm gives it for the matrix of those rows.
//
// On processors without AVX2 and FMA, on other architectures and under the noasm build tag,
// Sgemm is gonum's. Arguments that gonum rejects are passed to gonum, which panics with its usual
// message.
package gemm
