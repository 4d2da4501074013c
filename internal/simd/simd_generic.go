//go:build !amd64 || noasm

package simd

// Kernel reports whether the matrix-product kernels exist: never in this build.
func Kernel() bool { return false }

// Dot returns Σ a[i]·b[i] over i < len(a), summed as dotGo sums it.
func Dot(a, b []float32) float32 { return dotGo(a, b[:len(a)]) }

// CountGE returns how many x[i] satisfy x[i] ≥ lo and how many satisfy x[i] ≥ hi (NaN satisfies
// neither).
func CountGE(x []float32, lo, hi float32) (nlo, nhi int) { return countGEGo(x, lo, hi) }

// IndexIn returns the least i with lo ≤ x[i] < hi, or -1 if there is none.
func IndexIn(x []float32, lo, hi float32) int { return indexInGo(x, lo, hi) }

// Add sets dst[i] = a[i] + b[i] for i < len(dst); a and b must be at least as long as dst.
func Add(dst, a, b []float32) { addGo(dst, a, b) }

// addRowsChunk is AddRows for 16 values, the rows already checked.
func addRowsChunk(acc *[16]float64, rows []float64, stride int, idx []int32) {
	addRows16Go(acc, rows, stride, idx)
}

// Adam applies one step of Adam (Kingma and Ba 2015, Algorithm 1, as models' optimiser writes
// it) to the weights w with gradients g and the moments st, interleaved (m_i at st[2i], v_i at
// st[2i+1]): for every i, with gi = g[i]·scale,
//
//	m = b1·m + (1−b1)·gi, v = b2·v + (1−b2)·gi·gi, w[i] −= stepSize·m / (√v·invSqrtBC2 + eps),
//
// every operation rounded to float32 in that order (no fused multiply-add). len(g) ≥ len(w),
// len(st) ≥ 2·len(w).
func Adam(w, g, st []float32, p AdamStep) { adamGo(w, g, st, p) }

// AddReLU sets dst[i] = max(a[i] + b[i], 0) for i < len(dst) (Go's max: NaN for a NaN sum, +0
// for −0); a and b must be at least as long as dst.
func AddReLU(dst, a, b []float32) { addReLUGo(dst, a, b) }

// ReLUGrad sets dst[i] = g[i] where y[i] > 0 and +0 elsewhere, by the sign of y's int32 view (y
// is a ReLU's output: y > 0 iff its input was), for i < len(dst); y and g must be at least as
// long as dst.
func ReLUGrad(dst, y, g []float32) { reluGradGo(dst, y, g) }

// AddScaled adds c·x[i], the product rounded, to dst[i] for i < len(dst); x must be at least as
// long as dst.
func AddScaled(dst []float32, c float32, x []float32) { addScaledGo(dst, c, x) }

// ExpNegShift sets dst[i] = ExpNeg(x[i] − shift), bit for bit, for i < len(dst), and returns
// Σ dst[i] added one term at a time in the order of i, from 0; x must be at least as long as dst
// and may be dst itself.
func ExpNegShift(dst, x []float64, shift float64) float64 { return expNegShiftGo(dst, x, shift, 0) }

// ExpNegShiftTo is ExpNegShift with the values stored narrowed to float32 (float32(ExpNeg(x[i]
// − shift)), bit for bit) in dst, the sum formed from the float64 values. It may overwrite x,
// which must be at least as long as dst.
func ExpNegShiftTo(dst []float32, x []float64, shift float64) float64 {
	x = x[:len(dst)]
	sum := expNegShiftGo(x, x, shift, 0)
	narrowGo(dst, x)
	return sum
}

// Narrow sets dst[i] = float32(x[i]) for i < len(dst); x must be at least as long as dst.
func Narrow(dst []float32, x []float64) { narrowGo(dst, x) }

// Mul sets dst[i] = a[i]·b[i] for i < len(dst); a and b must be at least as long as dst.
func Mul(dst, a, b []float32) { mulGo(dst, a, b) }

// MulScalar sets dst[i] = x[i]·c for i < len(dst); x must be at least as long as dst and may be
// dst itself.
func MulScalar(dst, x []float32, c float32) { mulScalarGo(dst, x, c) }

// AddScalar sets dst[i] = x[i] + c for i < len(dst); x must be at least as long as dst and may
// be dst itself.
func AddScalar(dst, x []float32, c float32) { addScalarGo(dst, x, c) }

// WidenMax sets dst[i] = float64(x[i]) for i < len(dst) and returns the largest of m and the
// x[i] as the loop `if v > m { m = v }` finds it (NaNs skipped, the first of equal values
// kept); x must be at least as long as dst.
func WidenMax(dst []float64, x []float32, m float64) float64 { return widenMaxGo(dst, x, m) }

// MulWide sets dst[i] = float32(float64(x[i])·c), the product formed in float64, for
// i < len(dst); x must be at least as long as dst and may be dst itself.
func MulWide(dst, x []float32, c float64) { mulWideGo(dst, x, c) }

// CopyStrided sets dst[(q*n+l)*w+r] = src[l*ld+q*w+r] for r < w, l < n and q < panels: the n
// rows of panels consecutive blocks of w columns of a row-major matrix (leading dimension ld),
// each block's rows one after another (panels of a matrix product's packed operand). It panics if
// ld < panels·w or a slice is too short.
func CopyStrided(dst, src []float32, w, ld, n, panels int) {
	checkStrided(dst, src, w, ld, n, panels)
	copyStridedGo(dst, src, w, ld, n, panels)
}

// Interleave sets dst[l*w+r] = src[r*ld+l] for r < w and l < n: w rows of a row-major matrix
// (leading dimension ld) as n groups of w, the layout of Gemm6x16's packed panels (w = 6 for A,
// 16 for B). It panics if ld < 1 or a slice is too short.
func Interleave(dst, src []float32, w, ld, n int) {
	checkInterleave(dst, src, w, ld, n)
	interleaveGo(dst, src, w, ld, 0, n)
}

// Prefetch asks the processor to bring the memory of x into its caches: without assembly, it
// does nothing. It is a hint, with no effect on any value.
func Prefetch([]float32) {}
