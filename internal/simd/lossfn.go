package simd

import "math"

// The elementwise functions and row reductions of the losses' primitives. Each is written here
// in plain Go, generic over the float type of its operands and computed in float64 (but the
// surrogates of float32 operands, in float32: surrogate32.go); on amd64 with AVX2 the float32
// operands are taken four (eight) at a time in vector registers (lossfn_amd64.s) by the same
// operations in the same order, so that the two give the same bits. The lanes' order of
// summation is part of each definition: four partial sums over the indices modulo 4, combined
// as (s0 + s1) + (s2 + s3), unless said otherwise.

// Floats are the operand types of the loss functions.
type Floats interface{ ~float32 | ~float64 }

// Constants of atan: the coefficients of the rational approximation of Cephes' atan (S. L.
// Moshier), which math.Atan evaluates too, and its argument reduction.
const (
	atanP0 = -8.750608600031904122785e-01
	atanP1 = -1.615753718733365076637e+01
	atanP2 = -7.500855792314704667340e+01
	atanP3 = -1.228866684490136173410e+02
	atanP4 = -6.485021904942025371773e+01
	atanQ0 = +2.485846490142306297962e+01
	atanQ1 = +1.650270098316988542046e+02
	atanQ2 = +4.328810604912902668951e+02
	atanQ3 = +4.853903996359136964868e+02
	atanQ4 = +1.945506571482613964425e+02
	// morebits is π/2 less its float64 rounding; tan3pio8 is tan(3π/8).
	morebits = 6.123233995736765886130e-17
	tan3pio8 = 2.41421356237309504880
)

// atan is arctan x, evaluated as math.Atan evaluates it (Cephes: the argument reduced to
// [0, 0.66] by tan(π/4 − t) or 1/t, then a rational function of degree 4/5 in x²) with every
// product rounded before it is added, so that no compiler fuses them: within 1 ulp of math.Atan
// (its bits where math.Atan's products are not fused either, as on amd64), itself within 2 ulp
// of arctan (Cephes reports a relative error of 2.2e-16 over ±10).
func atan(x float64) float64 {
	t := math.Abs(x)
	y0, mb, r := 0.0, 0.0, t
	switch {
	case t > tan3pio8:
		y0, mb, r = math.Pi/2, morebits, -1/t
	case t > 0.66:
		y0, mb, r = math.Pi/4, 0.5*morebits, (t-1)/(t+1)
	}
	z := r * r
	p := float64(atanP0*z) + atanP1
	p = float64(p*z) + atanP2
	p = float64(p*z) + atanP3
	p = float64(p*z) + atanP4
	q := z + atanQ0
	q = float64(q*z) + atanQ1
	q = float64(q*z) + atanQ2
	q = float64(q*z) + atanQ3
	q = float64(q*z) + atanQ4
	z = z * p / q
	a := (y0 + (float64(r*z) + r)) + mb
	if x < 0 || x == 0 && math.Signbit(x) {
		return -a
	}
	return a
}

// Surrogate is an elementwise function that Surrogates computes with its derivative: the
// surrogate activations of the pairwise softmax loss (Yang et al., NeurIPS 2024), each 1 at 0.
type Surrogate int

// The surrogates: where a function's value is not positive it is 0, and so is its derivative.
const (
	Tanh1 Surrogate = iota // tanh x + 1, derivative 1 − tanh² x
	Atan1                  // max(arctan x + 1, 0), derivative 1/(1 + x²)
	ReLU1                  // max(x + 1, 0), derivative 1
)

// tanOne is tan 1: 1 + arctan x ≤ 0 for x ≤ −tan 1.
var tanOne = math.Tan(1)

// surrogate returns a·f(x) and f'(x) for the surrogate f, as Surrogates computes them:
//
//	Tanh1: with e = e^{−2|x|} (ExpNeg), f = 2/(1 + e) for x ≥ 0 and 2e/(1 + e) below, f' = f·(2 − f);
//	Atan1: f = 1 + atan(x), f' = 1/(1 + x²), both 0 for x ≤ −tan 1;
//	ReLU1: f = x + 1, f' = 1, both 0 for x ≤ −1.
func surrogate(f Surrogate, x, a float64) (y, dy float64) {
	switch f {
	case Tanh1:
		e := ExpNeg(-2 * math.Abs(x))
		num := 2.0
		if x < 0 {
			num = 2 * e
		}
		v := num / (1 + e)
		return a * v, v * (2 - v)
	case Atan1:
		if x <= -tanOne {
			return 0, 0
		}
		return a * (1 + atan(x)), 1 / (1 + float64(x*x))
	}
	v := x + 1
	if v <= 0 {
		return 0, 0
	}
	return a * v, 1
}

// Surrogates sets y[i] = a·f(x[i]) and dy[i] = f'(x[i]) for the surrogate f and i < len(y):
// for float64 operands in float64 as surrogate says (Tanh1's e^{−2|x|} is ExpNeg's, Atan1's
// arctan within 1 ulp of math.Atan), for float32 ones in float32 as surrogate32 says (Cephes'
// expf and atanf), eight at a time in vector registers where the processor has them: Tanh1's f
// within 3 ulp of the float32 rounding of the exact value and f' within 5, Atan1's f within 2
// ulp (2.5e-7 where it is below 0.5: 1 + arctan x rounds near the kink) and f' within 2, ReLU1
// exact (TestSurrogates). x and dy must be at least as long as y.
func Surrogates[T Floats](f Surrogate, y, dy, x []T, a float64) {
	x, dy = x[:len(y)], dy[:len(y)]
	if y32, ok := any(y).([]float32); ok {
		dy32, x32, a32 := any(dy).([]float32), any(x).([]float32), float32(a)
		head := surrogatesHead(f, y32, dy32, x32, a32)
		for i, v := range x32[head:] {
			y32[head+i], dy32[head+i] = surrogate32(f, v, a32)
		}
		return
	}
	for i, v := range x {
		s, ds := surrogate(f, float64(v), a)
		y[i], dy[i] = T(s), T(ds)
	}
}

// SoftplusChunk is the number of entries of which SoftplusRow multiplies the factors before it
// takes a logarithm: each lane multiplies at most 256 factors 1 + e^{−|z|} ≤ 2, a product below
// 2^256 (at most 2^1024 for a pair of lanes combined).
const SoftplusChunk = 1024

// SoftplusRow sets sig[j] = w[j]·σ(z[j]) and returns Σ_j w[j]·log(1 + e^{z[j]}) for a mask w of
// zeros and ones, and whether w has another value (bad; the results are then meaningless). It
// takes no logarithm per entry: log(1 + e^z) = max(z, 0) + log(1 + e^{−|z|}), and the second
// terms of a chunk of SoftplusChunk entries are summed as the log1p of their product less one,
// kept in lanes and updated as P + a + P·a (exact to rounding for small a = e^{−|z|}), in
// float64. Each σ(z) is e^{−max(−z, 0)}/(1 + e^{−|z|}), from the same exponential. Float64
// operands are computed in float64 in four lanes (lane u the entries j ≡ u mod 4 of the chunk),
// a chunk adding (S0 + S1) + (S2 + S3) + (log1p(P01) + log1p(P23)) to the sum, S_u the lanes'
// sums of max(z, 0) and P01 = P0 + P1 + P0·P1; float32 operands have their exponentials and σ in
// float32 (expNeg32, within 2 ulp) in eight lanes, max(z, 0) and a widened to float64 for the
// sums, a chunk adding ((S0 + S1) + (S2 + S3)) + ((S4 + S5) + (S6 + S7)) + (log1p(P0123) +
// log1p(P4567)), the products combined as above. len(z), len(w) ≥ len(sig).
func SoftplusRow[T Floats](sig, z, w []T) (sum float64, bad bool) {
	z, w = z[:len(sig)], w[:len(sig)]
	if s32, ok := any(sig).([]float32); ok {
		return softplusRow32(s32, any(z).([]float32), any(w).([]float32))
	}
	for lo := 0; lo < len(sig); lo += SoftplusChunk {
		hi := min(lo+SoftplusChunk, len(sig))
		var acc [8]float64 // S0..S3, P0..P3
		for j := lo; j < hi; j++ {
			if softplusStep(&sig[j], z[j], w[j], &acc, (j-lo)&3) {
				bad = true
			}
		}
		p01 := acc[4] + acc[5] + float64(acc[4]*acc[5])
		p23 := acc[6] + acc[7] + float64(acc[6]*acc[7])
		sum += (acc[0] + acc[1]) + (acc[2] + acc[3]) + (math.Log1p(p01) + math.Log1p(p23))
	}
	return sum, bad
}

// softplusStep is SoftplusRow's operations on one float64 entry in lane u of acc; it reports a
// mask value other than 0 and 1.
func softplusStep[T Floats](sig *T, zj, wj T, acc *[8]float64, u int) bool {
	z, w := float64(zj), float64(wj)
	a := float64(ExpNeg(-math.Abs(z)) * w)
	pos, num := 0.0, a
	if z > 0 {
		pos = z
	}
	if z >= 0 {
		num = w
	}
	acc[u] += float64(pos * w)
	acc[4+u] += a + float64(acc[4+u]*a)
	*sig = T(num / (1 + a))
	return w != 0 && w != 1
}

// softplusRow32 is SoftplusRow of float32 operands.
func softplusRow32(sig, z, w []float32) (sum float64, bad bool) {
	for lo := 0; lo < len(sig); lo += SoftplusChunk {
		hi := min(lo+SoftplusChunk, len(sig))
		var acc [16]float64 // S0..S7, P0..P7
		head := softplusHead(sig[lo:hi], z[lo:hi], w[lo:hi], &acc, &bad)
		for j := lo + head; j < hi; j++ {
			if softplusStep32(&sig[j], z[j], w[j], &acc, (j-lo)&7) {
				bad = true
			}
		}
		sum += softplusChunk32(&acc)
	}
	return sum, bad
}

// softplusChunk32 is the sum of a chunk of softplusRow32 from its lanes' sums (S0..S7, P0..P7).
func softplusChunk32(acc *[16]float64) float64 {
	pair := func(p, q float64) float64 { return p + q + float64(p*q) }
	p0123 := pair(pair(acc[8], acc[9]), pair(acc[10], acc[11]))
	p4567 := pair(pair(acc[12], acc[13]), pair(acc[14], acc[15]))
	return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7])) +
		(math.Log1p(p0123) + math.Log1p(p4567))
}

// softplusStep32 is softplusRow32's operations on one entry in lane u of acc (S_u at acc[u], P_u
// at acc[8+u]); it reports a mask value other than 0 and 1.
func softplusStep32(sig *float32, z, w float32, acc *[16]float64, u int) bool {
	e := expNeg32(math.Float32frombits(math.Float32bits(z) | 1<<31))
	a := e * w
	var pos float32
	if z > 0 {
		pos = z
	}
	num := a
	if z >= 0 {
		num = w
	}
	acc[u] += float64(pos * w)
	a64 := float64(a)
	acc[8+u] += a64 + float64(acc[8+u]*a64)
	*sig = num / (1 + a)
	return w != 0 && w != 1
}

// PowRow sets q[j] = r_j^n with r_j = x[j]·c·m[j], taken by repeated squaring (the product of
// r_j^(2^k) over the bits k of n, from the lowest), where x[j]·m[j] ≠ 0 and q[j] = 0 where it is
// 0 (also for n = 0), and returns Σ_j q_j·x[j]·c with the q_j before rounding to T, in four
// lanes (see the package's lanes). n ≥ 0; len(x), len(m) ≥ len(q).
func PowRow[T Floats](q, x, m []T, c float64, n int) float64 {
	x, m = x[:len(q)], m[:len(q)]
	var acc [4]float64
	head := powHead(q, x, m, c, n, &acc)
	for j := head; j < len(q); j++ {
		powStep(&q[j], x[j], m[j], c, n, &acc[j&3])
	}
	return (acc[0] + acc[1]) + (acc[2] + acc[3])
}

// powStep is PowRow's operations on one entry, its term added to acc.
func powStep[T Floats](q *T, xj, mj T, c float64, n int, acc *float64) {
	x := float64(xj)
	r := x * c * float64(mj)
	p := 1.0
	for e := n; e > 0; e >>= 1 {
		if e&1 == 1 {
			p *= r
		}
		r *= r
	}
	if xj == 0 || mj == 0 {
		p = 0
	}
	*q = T(p)
	*acc += float64(p * x * c)
}

// MaskedMax returns the largest x[j] with m[j] = 1, at least +0, and whether every m[j] is 0 or
// 1 and every x[j] with m[j] = 1 is ≥ 0 (not NaN): the scale of a row of LogSumPow. len(m) ≥
// len(x).
func MaskedMax[T Floats](x, m []T) (top T, ok bool) {
	m = m[:len(x)]
	head, ok := maskedMaxHead(x, m, &top)
	for j, v := range x[head:] {
		switch mv := m[head+j]; {
		case mv == 1:
			ok = ok && v >= 0
			if v > top {
				top = v
			}
		case mv != 0:
			ok = false
		}
	}
	return top, ok
}

// Sum returns Σ x[k] in float64, in eight partial sums s_u over k mod 8, added as ((s0 + s4) +
// (s1 + s5)) + ((s2 + s6) + (s3 + s7)).
func Sum[T Floats](x []T) float64 {
	var s [8]float64
	k := sumHead(x, &s)
	for ; k < len(x); k++ {
		s[k&7] += float64(x[k])
	}
	return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]))
}

// AffineMax sets dst[j] = (float64(x[j])·a + off[j]) + b, or float64(x[j])·a + b where off is
// nil, for j < len(dst), and returns the largest of m and the dst[j] as the loop
// `if v > m { m = v }` finds it (NaNs skipped, the first of equal values kept): the logits of a
// softmax row and their maximum. x, and off unless nil, must be at least as long as dst.
func AffineMax[T Floats](dst []float64, x []T, a float64, off []float64, b, m float64) float64 {
	x = x[:len(dst)]
	if off != nil {
		off = off[:len(dst)]
	}
	m0 := m
	head, m := affineMaxHead(dst, x, a, off, b, m)
	if head > 0 && m == 0 {
		// Zeros of both signs compare equal, and the lanes see them in another order than the
		// loop: its sign is the loop's.
		head, m = 0, m0
	}
	for j, v := range x[head:] {
		j += head
		y := float64(float64(v) * a)
		if off != nil {
			y += off[j]
		}
		y += b
		dst[j] = y
		if y > m {
			m = y
		}
	}
	return m
}

// ScaleAddWidenMax sets dst[j] = float64(x[j]·a + m[j]), or float64(x[j]·a) where m is nil,
// the product and sum formed in T (float32 for float32 operands), for j < len(dst), and returns
// the largest of mx and the dst[j] as the loop `if v > mx { mx = v }` finds it: the logits of a
// softmax row formed as the elementwise ops that would have made them. x, and m unless nil, must
// be at least as long as dst.
func ScaleAddWidenMax[T Floats](dst []float64, x []T, a T, m []T, mx float64) float64 {
	x = x[:len(dst)]
	if m != nil {
		m = m[:len(dst)]
	}
	m0 := mx
	head, mx := scaleAddHead(dst, x, a, m, mx)
	if head > 0 && mx == 0 { // as in AffineMax: the sign of a zero maximum is the loop's
		head, mx = 0, m0
	}
	for j, v := range x[head:] {
		j += head
		y := T(v * a)
		if m != nil {
			y += m[j]
		}
		dst[j] = float64(y)
		if dst[j] > mx {
			mx = dst[j]
		}
	}
	return mx
}
