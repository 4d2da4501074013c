package simd

import "math"

// countGEGo is CountGE in plain Go.
func countGEGo(x []float32, lo, hi float32) (nlo, nhi int) {
	for _, v := range x {
		if v >= lo {
			nlo++
		}
		if v >= hi {
			nhi++
		}
	}
	return nlo, nhi
}

// indexInGo is IndexIn in plain Go.
func indexInGo(x []float32, lo, hi float32) int {
	for i, v := range x {
		if v >= lo && v < hi {
			return i
		}
	}
	return -1
}

// addGo is Add in plain Go.
func addGo(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] + b[i]
	}
}

// AddRows adds the values rows[i*stride : i*stride+len(acc)] of every i of idx to acc, in the
// order of idx: each acc[j] is the sum acc[j] + rows[idx[0]*stride+j] + rows[idx[1]*stride+j] + …
// formed one term at a time, as a loop over idx would, 16 columns at a time. len(acc) is a
// multiple of 16, at most stride. It panics if a row is out of range, having added nothing:
// every row is checked once, whatever the width.
func AddRows(acc, rows []float64, stride int, idx []int32) {
	w := len(acc)
	if w%16 != 0 || w > stride {
		panic("simd: AddRows: width not a multiple of 16 or above the stride")
	}
	for _, i := range idx {
		if i < 0 || int(i)*stride+w > len(rows) {
			panic("simd: AddRows: row out of range")
		}
	}
	if len(idx) == 0 {
		return
	}
	for c := 0; c < w; c += 16 {
		addRowsChunk((*[16]float64)(acc[c:c+16]), rows[c:], stride, idx)
	}
}

// addRows16Go is AddRows for 16 values in plain Go.
func addRows16Go(acc *[16]float64, rows []float64, stride int, idx []int32) {
	for _, i := range idx {
		for j, v := range rows[int(i)*stride:][:16] {
			acc[j] += v
		}
	}
}

// AdamStep holds the scalars of one Adam step: the gradients' scale (clipping), the moments'
// decay rates b1 and b2, eps, the step size lr/(1−b1^t) and 1/√(1−b2^t).
type AdamStep struct {
	Scale, B1, B2, Eps, StepSize, InvSqrtBC2 float32
}

// adamGo is Adam in plain Go. The conversions to float32 round every product before it is added,
// as the vector code does (without them the compiler may fuse a product and a sum).
func adamGo(w, g, st []float32, p AdamStep) {
	g, st = g[:len(w)], st[:2*len(w)]
	c1, c2 := 1-p.B1, 1-p.B2
	for i, gi := range g {
		gi *= p.Scale
		m := float32(p.B1*st[2*i]) + float32(c1*gi)
		v := float32(p.B2*st[2*i+1]) + float32(float32(c2*gi)*gi)
		st[2*i], st[2*i+1] = m, v
		w[i] -= float32(p.StepSize*m) / (float32(float32(math.Sqrt(float64(v)))*p.InvSqrtBC2) + p.Eps)
	}
}

// addReLUGo is AddReLU in plain Go.
func addReLUGo(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = max(a[i]+b[i], 0)
	}
}

// reluGradGo is ReLUGrad in plain Go, without branches (a ReLU's sign pattern is unpredictable).
func reluGradGo(dst, y, g []float32) {
	y, g = y[:len(dst)], g[:len(dst)]
	for i, v := range y {
		// all ones iff v > 0: the int32 view of a float is positive iff the float is
		mask := uint32(-int64(int32(math.Float32bits(v))) >> 63)
		dst[i] = math.Float32frombits(math.Float32bits(g[i]) & mask)
	}
}

// addScaledGo is AddScaled in plain Go.
// dotGo is Dot in plain Go: eight partial sums, lane j of the elements j, j+8, … of the longest
// multiple of 8, each product rounded before it is added; then the lanes summed as
// ((s0+s4)+(s2+s6))+((s1+s5)+(s3+s7)); then the remaining elements added in order.
func dotGo(a, b []float32) float32 {
	var s [8]float32
	head := len(a) &^ 7
	for i := 0; i < head; i += 8 {
		for j := range 8 {
			s[j] += float32(a[i+j] * b[i+j])
		}
	}
	return dotTail(((s[0]+s[4])+(s[2]+s[6]))+((s[1]+s[5])+(s[3]+s[7])), a[head:], b[head:])
}

// dotTail adds a[i]·b[i], each product rounded, to r in order.
func dotTail(r float32, a, b []float32) float32 {
	for i, v := range a {
		r += float32(v * b[i])
	}
	return r
}

func addScaledGo(dst []float32, c float32, x []float32) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] += float32(c * v)
	}
}

// mulGo is Mul in plain Go.
func mulGo(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] * b[i]
	}
}

// mulScalarGo is MulScalar in plain Go.
func mulScalarGo(dst, x []float32, c float32) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = v * c
	}
}

// addScalarGo is AddScalar in plain Go.
func addScalarGo(dst, x []float32, c float32) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = v + c
	}
}

// Constants of ExpNeg.
const (
	log2e = 1.4426950408889634
	// ln 2 split in a high part with trailing zero bits and a low part (fdlibm).
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
	// roundMagic = 1.5·2^52: adding it rounds a float64 of magnitude < 2^51 to an integer, which
	// then sits in the low bits of the mantissa.
	roundMagic = 6755399441055744.0
	// expNegMin: below it e^x is subnormal and ExpNeg gives 0.
	expNegMin = -708
)

// ExpNeg is e^x for x ≤ 0 (0 below -708, where e^x is subnormal), with a relative error below
// 1e-15; it is about twice as fast as math.Exp, which dominates the cost of a softmax over a
// 1024×1024 score matrix. x = k·ln 2 + r with |r| ≤ ln2/2, e^r by its degree-12 Taylor polynomial
// (remainder r^13/13! < 2e-16) evaluated in Estrin's scheme, and 2^k built from its exponent
// bits. NaN gives NaN. Every product is rounded before it is added (the conversions keep the
// compiler from fusing them), so that ExpNegShift's vector lanes, which compute the same
// operations, give the same bits.
func ExpNeg(x float64) float64 {
	if x < expNegMin {
		return 0
	}
	t := float64(x*log2e) + roundMagic
	k := t - roundMagic
	r := (x - float64(k*ln2Hi)) - float64(k*ln2Lo)
	r2 := r * r
	r4 := r2 * r2
	b0 := (1 + r) + float64(r2*(1.0/2+float64(r*(1.0/6))))
	b1 := (1.0/24 + float64(r*(1.0/120))) + float64(r2*(1.0/720+float64(r*(1.0/5040))))
	b2 := (1.0/40320 + float64(r*(1.0/362880))) + float64(r2*(1.0/3628800+float64(r*(1.0/39916800))))
	p := b0 + float64(r4*(b1+float64(r4*(b2+float64(r4*(1.0/479001600))))))
	kb := int64(math.Float64bits(t)) - int64(math.Float64bits(roundMagic))
	return p * math.Float64frombits(uint64(kb+1023)<<52)
}

// expNegShiftGo is ExpNegShift in plain Go, its sum continuing from sum.
func expNegShiftGo(dst, x []float64, shift, sum float64) float64 {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = ExpNeg(v - shift)
		sum += dst[i]
	}
	return sum
}

// widenMaxGo is WidenMax in plain Go.
func widenMaxGo(dst []float64, x []float32, m float64) float64 {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = float64(v)
		if dst[i] > m {
			m = dst[i]
		}
	}
	return m
}

// mulWideGo is MulWide in plain Go.
func mulWideGo(dst, x []float32, c float64) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = float32(float64(v) * c)
	}
}

// narrowGo is Narrow in plain Go.
func narrowGo(dst []float32, x []float64) {
	x = x[:len(dst)]
	for i, v := range x {
		dst[i] = float32(v)
	}
}

// copyStridedGo is CopyStrided in plain Go.
func copyStridedGo(dst, src []float32, w, ld, n, panels int) {
	for q := range panels {
		for l := range n {
			copy(dst[(q*n+l)*w:(q*n+l+1)*w], src[l*ld+q*w:])
		}
	}
}

// interleaveGo is Interleave in plain Go for the groups from ≤ l < n, reading the w rows side by
// side so that dst is written in order.
func interleaveGo(dst, src []float32, w, ld, from, n int) {
	for l := from; l < n; l++ {
		g := dst[l*w : l*w+w]
		for r := range g {
			g[r] = src[r*ld+l]
		}
	}
}

// checkInterleave panics unless Interleave's slices hold w rows of n values and n groups.
func checkInterleave(dst, src []float32, w, ld, n int) {
	if n < 0 || n > 0 && (w < 1 || ld < 1 || len(dst) < w*n || len(src) < (w-1)*ld+n) {
		panic("simd: Interleave: bad sizes")
	}
}

// checkStrided panics unless CopyStrided's slices hold n rows of panels groups.
func checkStrided(dst, src []float32, w, ld, n, panels int) {
	if n < 0 || panels < 0 || n > 0 && panels > 0 && (w < 1 || ld < panels*w || len(dst) < panels*n*w || len(src) < (n-1)*ld+panels*w) {
		panic("simd: CopyStrided: bad sizes")
	}
}
