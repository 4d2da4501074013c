//go:build !noasm

package simd

import "golang.org/x/sys/cpu"

// vector reports whether the processor runs the AVX2/FMA routines (set once, from CPUID).
var vector = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// wide reports whether Kernel6x16 and Gemm6x16 may also run four panels at a time in AVX-512
// registers.
var wide = vector && cpu.X86.HasAVX512F

// Kernel reports whether Kernel6x16 may be called.
func Kernel() bool { return vector }

// Wide reports whether Kernel6x16 and Gemm6x16 run four panels at a time in AVX-512 registers.
func Wide() bool { return wide }

// Kernel6x16 sets c[(6p+r)*ldc+j] = Σ_{l<k} a[p*6k+l*6+r]·b[l*16+j] for p < panels, r < 6,
// j < 16: a holds panels panels of 6 rows, one after the other, and b a panel of 16 columns,
// each stored as k consecutive groups of 6 (or 16) values. Every sum runs over l in increasing
// order with one fused multiply-add per term, so equal inputs give equal outputs wherever they
// sit in the panels. It panics if a slice is too short or if Kernel reports false.
func Kernel6x16(k, panels int, a, b, c []float32, ldc int) {
	if !vector {
		panic("simd: Kernel6x16 needs AVX2 and FMA")
	}
	if k < 1 || panels < 1 || len(a) < panels*6*k || len(b) < 16*k || ldc < 16 || len(c) < (6*panels-1)*ldc+16 {
		panic("simd: Kernel6x16: bad sizes")
	}
	if wide && panels >= 4 {
		quads := panels / 4
		kernel24x16(k, &a[0], &b[0], &c[0], ldc, quads)
		if panels == 4*quads {
			return
		}
		a, c, panels = a[4*quads*6*k:], c[4*quads*6*ldc:], panels-4*quads
	}
	kernel6x16(k, &a[0], &b[0], &c[0], ldc, panels)
}

// Gemm6x16 sets c[(6p+r)*ldc+j] = alpha·Σ_{l<k} a[p*6k+l*6+r]·b[l*16+j] + beta·c[(6p+r)*ldc+j]
// for p < panels, r < 6, j < 16, with a and b packed as for Kernel6x16 and the sums formed as
// there (on a processor with AVX-512, four panels at a time, giving the same bits). The update is
// one fused multiply-add of beta·c onto the rounded alpha·Σ; when beta is ±0, c is not read (so
// NaNs in it are overwritten). It panics if a slice is too short or if Kernel reports false.
func Gemm6x16(k, panels int, a, b, c []float32, ldc int, alpha, beta float32) {
	if !vector {
		panic("simd: Gemm6x16 needs AVX2 and FMA")
	}
	if k < 1 || panels < 1 || len(a) < panels*6*k || len(b) < 16*k || ldc < 16 || len(c) < (6*panels-1)*ldc+16 {
		panic("simd: Gemm6x16: bad sizes")
	}
	p := 0
	if wide {
		for ; p+4 <= panels; p += 4 {
			gemm24x16(k, &a[p*6*k], &b[0], &c[6*p*ldc], ldc, alpha, beta)
		}
	}
	for ; p < panels; p++ {
		gemm6x16(k, &a[p*6*k], &b[0], &c[6*p*ldc], ldc, alpha, beta)
	}
}

// AddReLU sets dst[i] = max(a[i] + b[i], 0) for i < len(dst) (Go's max: NaN for a NaN sum, +0
// for −0); a and b must be at least as long as dst.
func AddReLU(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	head := 0
	if vector {
		head = len(dst) &^ 7
		addReLU8(dst[:head], a[:head], b[:head])
	}
	addReLUGo(dst[head:], a[head:], b[head:])
}

// ReLUGrad sets dst[i] = g[i] where y[i] > 0 and +0 elsewhere, by the sign of y's int32 view (y
// is a ReLU's output: y > 0 iff its input was), for i < len(dst); y and g must be at least as
// long as dst.
func ReLUGrad(dst, y, g []float32) {
	y, g = y[:len(dst)], g[:len(dst)]
	head := 0
	if vector {
		head = len(dst) &^ 7
		reluGrad8(dst[:head], y[:head], g[:head])
	}
	reluGradGo(dst[head:], y[head:], g[head:])
}

// AddScaled adds c·x[i], the product rounded, to dst[i] for i < len(dst); x must be at least as
// long as dst.
func AddScaled(dst []float32, c float32, x []float32) {
	x = x[:len(dst)]
	head := 0
	if vector {
		head = len(dst) &^ 7
		addScaled8(dst[:head], c, x[:head])
	}
	addScaledGo(dst[head:], c, x[head:])
}

// Dot returns Σ a[i]·b[i] over i < len(a), summed as dotGo sums it (eight lanes, then a fixed
// tree, then the tail), so that the vector code and the plain loop give the same bits; b must be
// at least as long as a.
func Dot(a, b []float32) float32 {
	b = b[:len(a)]
	if !vector {
		return dotGo(a, b)
	}
	head := len(a) &^ 7
	return dotTail(dot8(a[:head], b[:head]), a[head:], b[head:])
}

// Gemm6x16Strided is Gemm6x16 with the panels of A read where they lie rather than packed: the
// value (r, l) of panel p, a[p*6k+l*6+r] in Gemm6x16, is a[(6p+r)*rs+l*cs] here (rs = lda,
// cs = 1 for rows of a row-major matrix; rs = 1, cs = lda for its columns). The sums are formed
// as in Gemm6x16, so that equal values give bit-equal results in both; the panels run one at a
// time in AVX2 registers, whatever the processor (where it has AVX-512, packing A for Gemm6x16
// is the faster way: see Wide). It panics if a slice is too short or if Kernel reports false.
func Gemm6x16Strided(k, panels int, a []float32, rs, cs int, b, c []float32, ldc int, alpha, beta float32) {
	if !vector {
		panic("simd: Gemm6x16Strided needs AVX2 and FMA")
	}
	if k < 1 || panels < 1 || rs < 1 || cs < 1 || len(a) <= (6*panels-1)*rs+(k-1)*cs || len(b) < 16*k || ldc < 16 || len(c) < (6*panels-1)*ldc+16 {
		panic("simd: Gemm6x16Strided: bad sizes")
	}
	for p := range panels {
		gemm6x16strided(k, &a[6*p*rs], rs, cs, &b[0], &c[6*p*ldc], ldc, alpha, beta)
	}
}

// addRowsChunk is AddRows for 16 values, the rows already checked.
func addRowsChunk(acc *[16]float64, rows []float64, stride int, idx []int32) {
	if !vector {
		addRows16Go(acc, rows, stride, idx)
		return
	}
	if len(idx) > 0 {
		addRows16(&acc[0], &rows[0], stride, &idx[0], len(idx))
	}
}

// Adam applies one step of Adam (Kingma and Ba 2015, Algorithm 1, as models' optimiser writes
// it) to the weights w with gradients g and the moments st, interleaved (m_i at st[2i], v_i at
// st[2i+1]): for every i, with gi = g[i]·scale,
//
//	m = b1·m + (1−b1)·gi, v = b2·v + (1−b2)·gi·gi, w[i] −= stepSize·m / (√v·invSqrtBC2 + eps),
//
// every operation rounded to float32 in that order (no fused multiply-add), so the results are
// those of adamGo, the same loop in plain Go, bit for bit. len(g) ≥ len(w), len(st) ≥ 2·len(w).
func Adam(w, g, st []float32, p AdamStep) {
	g, st = g[:len(w)], st[:2*len(w)]
	head := 0
	if vector {
		head = len(w) &^ 7
		c := [8]float32{p.Scale, p.B1, 1 - p.B1, p.B2, 1 - p.B2, p.Eps, p.StepSize, p.InvSqrtBC2}
		if head > 0 {
			adam8(&w[0], &g[0], &st[0], head, &c)
		}
	}
	adamGo(w[head:], g[head:], st[2*head:], p)
}

// CountGE returns how many x[i] satisfy x[i] ≥ lo and how many satisfy x[i] ≥ hi (NaN satisfies
// neither).
func CountGE(x []float32, lo, hi float32) (nlo, nhi int) {
	if !vector {
		return countGEGo(x, lo, hi)
	}
	head := len(x) &^ 7
	for i := 0; i < head; i += maxBlock {
		a, b := countGE8(x[i:min(head, i+maxBlock)], lo, hi)
		nlo += a
		nhi += b
	}
	a, b := countGEGo(x[head:], lo, hi)
	return nlo + a, nhi + b
}

// maxBlock bounds the length given to one call of countGE8, whose lanes count in int32.
const maxBlock = 1 << 30

// IndexIn returns the least i with lo ≤ x[i] < hi, or -1 if there is none.
func IndexIn(x []float32, lo, hi float32) int {
	if !vector {
		return indexInGo(x, lo, hi)
	}
	head := len(x) &^ 7
	if i := indexIn8(x[:head], lo, hi); i < head {
		return i
	}
	if i := indexInGo(x[head:], lo, hi); i >= 0 {
		return head + i
	}
	return -1
}

// Add sets dst[i] = a[i] + b[i] for i < len(dst); a and b must be at least as long as dst.
func Add(dst, a, b []float32) {
	if !vector {
		addGo(dst, a, b)
		return
	}
	a, b = a[:len(dst)], b[:len(dst)]
	head := len(dst) &^ 7
	add8(dst[:head], a[:head], b[:head])
	addGo(dst[head:], a[head:], b[head:])
}

// Mul sets dst[i] = a[i]·b[i] for i < len(dst); a and b must be at least as long as dst.
func Mul(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	head := 0
	if vector {
		head = len(dst) &^ 7
		mul8(dst[:head], a[:head], b[:head])
	}
	mulGo(dst[head:], a[head:], b[head:])
}

// MulScalar sets dst[i] = x[i]·c for i < len(dst); x must be at least as long as dst and may be
// dst itself.
func MulScalar(dst, x []float32, c float32) {
	x = x[:len(dst)]
	head := 0
	if vector {
		head = len(dst) &^ 7
		mulScalar8(dst[:head], x[:head], c)
	}
	mulScalarGo(dst[head:], x[head:], c)
}

// AddScalar sets dst[i] = x[i] + c for i < len(dst); x must be at least as long as dst and may
// be dst itself.
func AddScalar(dst, x []float32, c float32) {
	x = x[:len(dst)]
	head := 0
	if vector {
		head = len(dst) &^ 7
		addScalar8(dst[:head], x[:head], c)
	}
	addScalarGo(dst[head:], x[head:], c)
}

// mul8, mulScalar8 and addScalar8 are Mul, MulScalar and AddScalar for slices of equal length,
// a multiple of 8.
//
//go:noescape
func mul8(dst, a, b []float32)

//go:noescape
func mulScalar8(dst, x []float32, c float32)

//go:noescape
func addScalar8(dst, x []float32, c float32)

// ExpNegShift sets dst[i] = ExpNeg(x[i] − shift), bit for bit, for i < len(dst), and returns
// Σ dst[i] added one term at a time in the order of i, from 0; x must be at least as long as dst
// and may be dst itself.
func ExpNegShift(dst, x []float64, shift float64) float64 {
	x = x[:len(dst)]
	head, sum := expNegShiftVec(dst, nil, x, shift)
	return expNegShiftGo(dst[head:], x[head:], shift, sum)
}

// ExpNegShiftTo is ExpNegShift with the values stored narrowed to float32 (float32(ExpNeg(x[i]
// − shift)), bit for bit) in dst, the sum formed from the float64 values. It may overwrite x,
// which must be at least as long as dst.
func ExpNegShiftTo(dst []float32, x []float64, shift float64) float64 {
	x = x[:len(dst)]
	head, sum := expNegShiftVec(nil, dst, x, shift)
	sum = expNegShiftGo(x[head:], x[head:], shift, sum)
	narrowGo(dst[head:], x[head:])
	return sum
}

// expNegShiftVec is ExpNegShift over the first values of x, as many as the vector kernels take
// (a multiple of 4: eight at a time where the processor has AVX-512, then four), storing into
// dst or, when dst is nil, narrowed into dst32; it returns how many it did and their sum.
func expNegShiftVec(dst []float64, dst32 []float32, x []float64, shift float64) (int, float64) {
	if !vector {
		return 0, 0
	}
	at := func(i int) (*float64, *float32) {
		if dst != nil {
			return &dst[i], nil
		}
		return nil, &dst32[i]
	}
	head, sum := 0, 0.0
	if n := len(x) &^ 7; wide && n > 0 {
		d, d32 := at(0)
		sum, head = expNegShift8(d, &x[0], n, shift, d32), n
	}
	if n := (len(x) - head) &^ 3; n > 0 {
		d, d32 := at(head)
		sum, head = expNegShift4(d, &x[head], n, shift, d32, sum), head+n
	}
	return head, sum
}

// Narrow sets dst[i] = float32(x[i]) for i < len(dst); x must be at least as long as dst.
func Narrow(dst []float32, x []float64) {
	x = x[:len(dst)]
	head := 0
	if vector {
		head = len(dst) &^ 3
		if head > 0 {
			narrow4(&dst[0], &x[0], head)
		}
	}
	narrowGo(dst[head:], x[head:])
}

// WidenMax sets dst[i] = float64(x[i]) for i < len(dst) and returns the largest of m and the
// x[i] as the loop `if v > m { m = v }` finds it (NaNs skipped, the first of equal values
// kept); x must be at least as long as dst.
func WidenMax(dst []float64, x []float32, m float64) float64 {
	x = x[:len(dst)]
	head := 0
	if vector {
		head = len(dst) &^ 3
		if head > 0 {
			m0 := m
			m = widenMax4(&dst[0], &x[0], head, m)
			if m == 0 {
				// Zeros of both signs compare equal, and the lanes see them in another order
				// than the loop: its sign is the loop's.
				m = widenMaxGo(dst[:head], x[:head], m0)
			}
		}
	}
	return widenMaxGo(dst[head:], x[head:], m)
}

//go:noescape
func widenMax4(dst *float64, x *float32, n int, m float64) float64

// MulWide sets dst[i] = float32(float64(x[i])·c), the product formed in float64, for
// i < len(dst); x must be at least as long as dst and may be dst itself.
func MulWide(dst, x []float32, c float64) {
	x = x[:len(dst)]
	head := 0
	if vector {
		head = len(dst) &^ 3
		if head > 0 {
			mulWide4(&dst[0], &x[0], head, c)
		}
	}
	mulWideGo(dst[head:], x[head:], c)
}

//go:noescape
func mulWide4(dst, x *float32, n int, c float64)

//go:noescape
func narrow4(dst *float32, x *float64, n int)

//go:noescape
func expNegShift4(dst, x *float64, n int, shift float64, dst32 *float32, sum0 float64) (sum float64)

//go:noescape
func expNegShift8(dst, x *float64, n int, shift float64, dst32 *float32) (sum float64)

//go:noescape
func kernel6x16(k int, a, b, c *float32, ldc, panels int)

//go:noescape
func kernel24x16(k int, a, b, c *float32, ldc, quads int)

//go:noescape
func gemm6x16(k int, a, b, c *float32, ldc int, alpha, beta float32)

//go:noescape
func gemm6x16strided(k int, a *float32, rs, cs int, b, c *float32, ldc int, alpha, beta float32)

//go:noescape
func gemm24x16(k int, a, b, c *float32, ldc int, alpha, beta float32)

//go:noescape
func addRows16(acc *float64, rows *float64, stride int, idx *int32, n int)

//go:noescape
func adam8(w, grad, st *float32, n int, c *[8]float32)

// countGE8 is CountGE for len(x) a multiple of 8, at most maxBlock.
//
//go:noescape
func countGE8(x []float32, lo, hi float32) (nlo, nhi int)

// indexIn8 is IndexIn for len(x) a multiple of 8, returning len(x) if there is no such i.
//
//go:noescape
func indexIn8(x []float32, lo, hi float32) int

// addReLU8, reluGrad8 and addScaled8 are AddReLU, ReLUGrad and AddScaled for slices of equal
// length, a multiple of 8.
//
//go:noescape
func addReLU8(dst, a, b []float32)

//go:noescape
func reluGrad8(dst, y, g []float32)

//go:noescape
func addScaled8(dst []float32, c float32, x []float32)

// dot8 is Dot of slices of equal length, a multiple of 8, without the tail.
//
//go:noescape
func dot8(a, b []float32) float32

// add8 is Add for slices of equal length, a multiple of 8.
//
//go:noescape
func add8(dst, a, b []float32)

// CopyStrided sets dst[(q*n+l)*w+r] = src[l*ld+q*w+r] for r < w, l < n and q < panels: the n
// rows of panels consecutive blocks of w columns of a row-major matrix (leading dimension ld),
// each block's rows one after another (panels of a matrix product's packed operand). It panics if
// ld < panels·w or a slice is too short. Groups of 6 and 16 values are moved in vector registers,
// a row of every panel at a time, so that the source is read in one pass, and the row 16 ahead
// is asked of the caches meanwhile: rows ld floats apart are too far for the hardware
// prefetchers.
func CopyStrided(dst, src []float32, w, ld, n, panels int) {
	checkStrided(dst, src, w, ld, n, panels)
	if n == 0 || panels == 0 {
		return
	}
	switch {
	case vector && w == 6:
		copyStrided6(&dst[0], &src[0], ld, n, panels)
	case vector && w == 16:
		copyStrided16(&dst[0], &src[0], ld, n, panels)
	default:
		copyStridedGo(dst, src, w, ld, n, panels)
	}
}

// Interleave sets dst[l*w+r] = src[r*ld+l] for r < w and l < n: w rows of a row-major matrix
// (leading dimension ld) as n groups of w, the layout of Gemm6x16's packed panels (w = 6 for A,
// 16 for B). It panics if ld < 1 or a slice is too short. Eight groups at a time are permuted
// in vector registers: of six rows where the processor has AVX-512, of sixteen (two 8×8
// transpositions) where it has AVX2.
func Interleave(dst, src []float32, w, ld, n int) {
	checkInterleave(dst, src, w, ld, n)
	head := 0
	switch {
	case wide && w == 6:
		head = n &^ 7
		if head > 0 {
			interleave6(&dst[0], &src[0], ld, head/8)
		}
	case vector && w == 16:
		head = n &^ 7
		if head > 0 {
			pre := 0
			if ld == n {
				pre = 16 * n
			}
			interleave16(&dst[0], &src[0], ld, head, pre)
		}
	}
	interleaveGo(dst, src, w, ld, head, n)
}

//go:noescape
func interleave6(dst, src *float32, ld, n int)

//go:noescape
func interleave16(dst, src *float32, ld, n, pre int)

// copyStrided6 and copyStrided16 are CopyStrided for groups of 6 and 16 values.
//
//go:noescape
func copyStrided6(dst, src *float32, ld, n, panels int)

//go:noescape
func copyStrided16(dst, src *float32, ld, n, panels int)

// Prefetch asks the processor to bring the memory of x into its caches (PREFETCHT0, one per
// 64-byte line), without waiting for it: a hint, with no effect on any value.
func Prefetch(x []float32) {
	if len(x) > 0 {
		prefetch(&x[0], len(x))
	}
}

//go:noescape
func prefetch(x *float32, n int)
