package models

import (
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"

	gemmblas "github.com/samplingbias/workbench/internal/gemm"
	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/reuse"
	"github.com/samplingbias/workbench/internal/simd"
)

// float is the element type of a model: float32 (the default) or float64 (gradient checks).
type float interface{ float32 | float64 }

// gemmWork is the number of multiply-adds below which a matrix product runs in one call.
const gemmWork = 1 << 16

// gemmMaxParts bounds the number of goroutines one matrix product is split into.
const gemmMaxParts = 4

// gemm computes C = alpha·op(A)·op(B) + beta·C for row-major A, B, C (op transposes when tA or
// tB): float32 through float32BLAS (internal/gemm, or OpenBLAS under the openblas tag on a
// processor without AVX2 and FMA), float64 through float64BLAS (gonum's pure-Go BLAS, or OpenBLAS
// under the openblas tag).
//
// When splitGemm is set (products OpenBLAS computes, at one thread), a large product is
// split into at most gemmMaxParts blocks of rows (or columns, whichever C has more of) computed
// concurrently. The split depends only on the shapes and every element of C is computed by one
// BLAS call over the whole inner dimension, so results do not depend on scheduling.
func gemm[T float](tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		for i := range m {
			row := c[i*ldc : i*ldc+n]
			if beta == 0 {
				clear(row)
				continue
			}
			for j := range row {
				row[j] *= beta
			}
		}
		return
	}
	parts := 1
	if splitGemm[T]() {
		parts = parallel.Parts(m*n*k, gemmWork, min(gemmMaxParts, max(m, n)/32))
	}
	byRows := m >= n
	size := n
	if byRows {
		size = m
	}
	parallel.Split(size, parts, func(_, lo, hi int) {
		if byRows {
			aOff := lo * lda
			if tA {
				aOff = lo
			}
			gemmCall(tA, tB, hi-lo, n, k, alpha, a[aOff:], lda, b, ldb, beta, c[lo*ldc:], ldc)
			return
		}
		bOff := lo
		if tB {
			bOff = lo * ldb
		}
		gemmCall(tA, tB, m, hi-lo, k, alpha, a, lda, b[bOff:], ldb, beta, c[lo:], ldc)
	})
}

func trans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// gemmCall is one BLAS Gemm call; slices may be longer than the matrices they hold.
func gemmCall[T float](tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	ra, ca := m, k
	if tA {
		ra, ca = k, m
	}
	rb, cb := k, n
	if tB {
		rb, cb = n, k
	}
	a = a[:(ra-1)*lda+ca]
	b = b[:(rb-1)*ldb+cb]
	c = c[:(m-1)*ldc+n]
	switch a := any(a).(type) {
	case []float32:
		float32BLAS().Sgemm(trans(tA), trans(tB), m, n, k, float32(alpha), a, lda,
			any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc)
	case []float64:
		float64BLAS().Dgemm(trans(tA), trans(tB), m, n, k, float64(alpha), a, lda,
			any(b).([]float64), ldb, float64(beta), any(c).([]float64), ldc)
	}
}

// gemmRows sets c (len(rows)×n) = x[rows]·w: row i of c is row rows[i] of the row-major x
// (leading dimension lda) times the k×n matrix w. Where internal/gemm's kernel computes float32
// products, it packs the rows where they lie (SgemmRows); otherwise the rows are gathered into
// *buf first. Either way every element has gemm's bits for the matrix of those rows.
func gemmRows[T float](rows []int32, n, k int, x []T, lda int, w, c []T, buf *[]T) {
	if x32, ok := any(x).([]float32); ok {
		if g, ok := float32BLAS().(gemmblas.Implementation); ok &&
			g.SgemmRows(n, k, rows, x32, lda, any(w).([]float32), n, any(c).([]float32), n) {
			return
		}
	}
	*buf = reuse.Grow(*buf, len(rows)*k)
	for i, r := range rows {
		copy((*buf)[i*k:(i+1)*k], x[int(r)*lda:][:k])
	}
	gemm(false, false, len(rows), n, k, 1, *buf, k, w, n, 0, c, n)
}

// parallelGrain is the number of elements from which a part of a row-wise kernel is worth a
// goroutine.
const parallelGrain = 1 << 14

// parallelRows runs f on contiguous blocks of the rows [0, n) of a matrix with width columns, one
// block per parallelGrain elements in up to GOMAXPROCS goroutines (parallel.Split and
// parallel.Parts). The kernels it runs compute every output row from its own input rows only, so
// the result does not depend on the split.
func parallelRows(n, width int, f func(lo, hi int)) {
	parallel.Split(n, parallel.Parts(n*width, parallelGrain, runtime.GOMAXPROCS(0)), func(_, lo, hi int) { f(lo, hi) })
}

// biasAct sets y[i,:] = act(src[k,:] + b) for an n×h matrix y, k = of[i] (i when of is nil;
// src may be y): float32 eight columns at a time where the processor has AVX2 (simd.Add,
// simd.AddReLU).
func biasAct[T float](y, src []T, of []int32, b []T, h int, relu bool) {
	parallelRows(len(y)/h, h, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			k := i
			if of != nil {
				k = int(of[i])
			}
			row, in := y[i*h:(i+1)*h], src[k*h:(k+1)*h]
			if r, ok := any(row).([]float32); ok {
				in, b := any(in).([]float32), any(b).([]float32)
				if relu {
					simd.AddReLU(r, in, b)
				} else {
					simd.Add(r, in, b)
				}
				continue
			}
			if relu {
				for j, bj := range b[:h] {
					row[j] = max(in[j]+bj, 0)
				}
				continue
			}
			for j, bj := range b[:h] {
				row[j] = in[j] + bj
			}
		}
	})
}

// reluGrad sets dst = g where y > 0 and 0 elsewhere (y = relu(z), so y > 0 iff z > 0), without
// branches (a ReLU's sign pattern is unpredictable).
func reluGrad[T float](dst, y, g []T) {
	switch y := any(y).(type) {
	case []float32:
		dst, g := any(dst).([]float32), any(g).([]float32)
		parallelRows(len(y), 1, func(lo, hi int) { simd.ReLUGrad(dst[lo:hi], y[lo:hi], g[lo:hi]) })
	case []float64:
		dst, g := any(dst).([]float64), any(g).([]float64)
		parallelRows(len(y), 1, func(lo, hi int) { reluGrad64(dst[lo:hi], y[lo:hi], g[lo:hi]) })
	}
}

func reluGrad64(dst, y, g []float64) {
	g = g[:len(y)]
	dst = dst[:len(y)]
	for i, v := range y {
		x := int64(math.Float64bits(v))
		mask := uint64(-x>>63) &^ uint64(x>>63) // -x overflows for -0, which the second term excludes
		dst[i] = math.Float64frombits(math.Float64bits(g[i]) & mask)
	}
}

// colSum sets dst[j] = Σ_i x[i,j] for an n×h matrix x, summing rows in order (in parallel over
// blocks of columns; float32 eight columns at a time where the processor has AVX2).
func colSum[T float](dst, x []T, h int) {
	n := len(x) / h
	parallelRows(h, n, func(lo, hi int) {
		d := dst[lo:hi]
		clear(d)
		for i := 0; i < n; i++ {
			addTo(d, x[i*h+lo:i*h+hi])
		}
	})
}

// addTo adds x to dst elementwise (len(x) ≥ len(dst)); float32 through simd.Add.
func addTo[T float](dst, x []T) {
	if d, ok := any(dst).([]float32); ok {
		simd.Add(d, d, any(x).([]float32))
		return
	}
	for j, v := range x[:len(dst)] {
		dst[j] += v
	}
}

// addScaled adds c·x to dst elementwise, each product rounded before it is added
// (len(x) ≥ len(dst)); float32 through simd.AddScaled.
func addScaled[T float](dst []T, c T, x []T) {
	if d, ok := any(dst).([]float32); ok {
		simd.AddScaled(d, float32(c), any(x).([]float32))
		return
	}
	for j, v := range x[:len(dst)] {
		dst[j] += c * v
	}
}

// l2Norm sets y[i,:] = z[i,:] / sqrt(‖z[i,:]‖² + eps²): the L2 normalisation of every row, with
// an epsilon that keeps a zero row (and its gradient) finite.
func l2Norm[T float](y, z []T, d int, eps float64) {
	parallelRows(len(z)/d, d, func(lo, hi int) {
		var zz [4]T
		for i := lo; i < hi; i += 4 {
			k := min(4, hi-i)
			rowDots(zz[:k], z[i*d:], z[i*d:], d)
			for r, ss := range zz[:k] {
				o := (i + r) * d
				scaleTo(y[o:o+d], z[o:o+d], T(1/math.Sqrt(float64(ss)+eps*eps)))
			}
		}
	})
}

// l2NormGrad sets dz[i,:] = (g - y (y·g)) / n with n = sqrt(‖z‖² + eps²): the gradient of
// l2Norm (dy/dz = (I - z zᵀ/n²)/n).
func l2NormGrad[T float](dz, z, y, g []T, d int, eps float64) {
	parallelRows(len(z)/d, d, func(lo, hi int) {
		var zz, yg [4]T
		for i := lo; i < hi; i += 4 {
			k := min(4, hi-i)
			rowDots(zz[:k], z[i*d:], z[i*d:], d)
			rowDots(yg[:k], y[i*d:], g[i*d:], d)
			for r := range k {
				o := (i + r) * d
				dr := dz[o : o+d]
				copy(dr, g[o:o+d])
				addScaled(dr, -yg[r], y[o:o+d])
				scaleTo(dr, dr, T(1/math.Sqrt(float64(zz[r])+eps*eps)))
			}
		}
	})
}

// rowDots sets out[r] = dot(a[r,:], b[r,:]) for the first len(out) rows of the d-column matrices
// a and b, each summed in order (the same bits whichever rows are grouped); four rows at a time, their sums interleaved so that
// the four chains of additions overlap.
func rowDots[T float](out, a, b []T, d int) {
	if len(out) < 4 {
		for r := range out {
			var s T
			for j, v := range a[r*d : (r+1)*d] {
				s += v * b[r*d+j]
			}
			out[r] = s
		}
		return
	}
	a0, a1, a2, a3 := a[:d], a[d:2*d], a[2*d:3*d], a[3*d:4*d]
	b0, b1, b2, b3 := b[:d], b[d:2*d], b[2*d:3*d], b[3*d:4*d]
	var s0, s1, s2, s3 T
	for j, v := range a0 {
		s0 += v * b0[j]
		s1 += a1[j] * b1[j]
		s2 += a2[j] * b2[j]
		s3 += a3[j] * b3[j]
	}
	out[0], out[1], out[2], out[3] = s0, s1, s2, s3
}

// addConst sets dst = x + c elementwise (len(x) ≥ len(dst)); float32 through simd.AddScalar.
func addConst[T float](dst, x []T, c T) {
	if d, ok := any(dst).([]float32); ok {
		simd.AddScalar(d, any(x).([]float32), float32(c))
		return
	}
	for j, v := range x[:len(dst)] {
		dst[j] = v + c
	}
}

// scaleTo sets dst = c·x elementwise (len(x) ≥ len(dst)); float32 through simd.MulScalar.
func scaleTo[T float](dst, x []T, c T) {
	if d, ok := any(dst).([]float32); ok {
		simd.MulScalar(d, any(x).([]float32), float32(c))
		return
	}
	for j, v := range x[:len(dst)] {
		dst[j] = v * c
	}
}

// dot is ⟨a, b⟩: for float32 simd.Dot (eight lanes, the vector code where the processor has it,
// the same bits everywhere), in order for float64.
func dot[T float](a, b []T) T {
	if a32, ok := any(a).([]float32); ok {
		return T(simd.Dot(a32, any(b).([]float32)))
	}
	var s T
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// rowDot sets dst[i*stride] = ⟨u[i,:], v[i,:]⟩ for n×d matrices u, v.
func rowDot[T float](dst []T, stride int, u, v []T, d int) {
	for i := 0; i*d < len(u); i++ {
		dst[i*stride] = dot(u[i*d:(i+1)*d], v[i*d:(i+1)*d])
	}
}

// scaleRows sets dst[i,:] = s[i*stride]·x[i,:] for n×d matrices.
func scaleRows[T float](dst []T, s []T, stride int, x []T, d int) {
	for i := 0; i*d < len(x); i++ {
		si := s[i*stride]
		for j, v := range x[i*d : (i+1)*d] {
			dst[i*d+j] = si * v
		}
	}
}

// addScaledRows adds s[i*stride]·x[i,:] to dst[i,:] for n×d matrices.
func addScaledRows[T float](dst []T, s []T, stride int, x []T, d int) {
	for i := 0; i*d < len(x); i++ {
		si := s[i*stride]
		for j, v := range x[i*d : (i+1)*d] {
			dst[i*d+j] += si * v
		}
	}
}

// ownScores sets s[i*c+k] = ⟨u_i, w_{i·m+k}⟩ for each row i of u (n×d) and its m own rows of w
// (n·m×d): the scores of rows that draw their own items, s starting at their first column. With
// own not nil, row i's own item k is row own[i·m+k] of w instead, read where it is.
func ownScores[T float](s []T, c int, u, w []T, own []int32, d, m int) {
	parallelRows(len(u)/d, m*d, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ui := u[i*d : (i+1)*d]
			for k := range m {
				r := ownRow(own, i*m+k)
				s[i*c+k] = dot(ui, w[r*d:(r+1)*d])
			}
		}
	})
}

// ownRow is the row of w of own item r: r, or own[r].
func ownRow(own []int32, r int) int {
	if own == nil {
		return r
	}
	return int(own[r])
}

// ownGradU adds Σ_k g[i*c+k]·w_{i·m+k} to du_i: ownScores' gradient w.r.t. u (own as there).
func ownGradU[T float](du, g []T, c int, w []T, own []int32, d, m int) {
	parallelRows(len(du)/d, m*d, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dui := du[i*d : (i+1)*d]
			for k := range m {
				r := ownRow(own, i*m+k)
				addScaled(dui, g[i*c+k], w[r*d:(r+1)*d])
			}
		}
	})
}

// addRowsAt adds row k of x (d columns) to row at[k] of dst, for every k in order: the gradient of
// a gather. dst's rows are split among the cores, each core visiting every k and adding those in
// its rows, so that each row's sum is in the order of k however the rows are split.
func addRowsAt[T float](dst []T, at []int32, x []T, d int) {
	parallelRows(len(dst)/d, len(at), func(lo, hi int) {
		for k, r := range at {
			if int(r) >= lo && int(r) < hi {
				addTo(dst[int(r)*d:int(r+1)*d], x[k*d:(k+1)*d])
			}
		}
	})
}

// ownGradVAt adds g[i*c+k]·u_i to row own[i·m+k] of dv for every row i of u (n×d) and its m own
// items: ownScores' gradient w.r.t. w when its rows are read at own, in the order of (i, k) for
// each row of dv, as addRowsAt.
func ownGradVAt[T float](dv, g []T, c int, u []T, own []int32, d, m int) {
	parallelRows(len(dv)/d, len(own), func(lo, hi int) {
		for e, r := range own {
			if int(r) < lo || int(r) >= hi {
				continue
			}
			i, k := e/m, e%m
			addScaled(dv[int(r)*d:int(r+1)*d], g[i*c+k], u[i*d:(i+1)*d])
		}
	})
}

// ownGradV sets dw_{i·m+k} = g[i*c+k]·u_i: ownScores' gradient w.r.t. w.
func ownGradV[T float](dw, g []T, c int, u []T, d, m int) {
	parallelRows(len(u)/d, m*d, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ui := u[i*d : (i+1)*d]
			for k := range m {
				r, gk := i*m+k, g[i*c+k]
				for j, x := range ui {
					dw[r*d+j] = gk * x
				}
			}
		}
	})
}
