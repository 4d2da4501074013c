package simd

import "math"

// The surrogates of float32 operands, computed in float32 arithmetic with Cephes' single
// precision expf and atanf (S. L. Moshier, Cephes Math Library), every product rounded before it
// is added (the conversions keep the compiler from fusing them), so that the eight-lane vector
// code (surrogates8) gives the same bits. The tests hold them to math's float64 functions.

// Constants of expNeg32 (Cephes expf): ln 2 in two parts, the polynomial's coefficients, the
// magic number that rounds to an integer (1.5·2^23) and the argument below which e^t is not a
// normal float32.
const (
	log2e32  float32 = 1.44269504088896341
	ln2Hi32  float32 = 0.693359375
	ln2Lo32  float32 = -2.12194440e-4
	expP0    float32 = 1.9875691500e-4
	expP1    float32 = 1.3981999507e-3
	expP2    float32 = 8.3334519073e-3
	expP3    float32 = 4.1665795894e-2
	expP4    float32 = 1.6666665459e-1
	expP5    float32 = 5.0000001201e-1
	magic32  float32 = 12582912
	expMin32 float32 = -87.33654
)

// expNeg32 is e^t for t ≤ 0 in float32 (Cephes expf: t = n·ln 2 + r, e^r by a degree-7
// polynomial, 2^n from its exponent bits), 0 below −87.33654 (where e^t is not a normal
// float32); NaN gives NaN.
func expNeg32(t float32) float32 {
	if t < expMin32 {
		return 0
	}
	k := float32(t*log2e32) + magic32
	n := k - magic32
	r := (t - float32(n*ln2Hi32)) - float32(n*ln2Lo32)
	z := r * r
	p := float32(expP0*r) + expP1
	p = float32(p*r) + expP2
	p = float32(p*r) + expP3
	p = float32(p*r) + expP4
	p = float32(p*r) + expP5
	p = (float32(p*z) + r) + 1
	e := int32(math.Float32bits(k)) - int32(math.Float32bits(magic32)) + 127
	return p * math.Float32frombits(uint32(e)<<23)
}

// Constants of atan32 (Cephes atanf): the polynomial's coefficients, tan(3π/8), tan(π/8), π/2
// and π/4 rounded to float32, and the largest float32 not above −tan 1 (float32(−tan 1) is
// below it), where 1 + arctan x ≤ 0.
const (
	atanA0     float32 = 8.05374449538e-2
	atanA1     float32 = -1.38776856032e-1
	atanA2     float32 = 1.99777106478e-1
	atanA3     float32 = -3.33329491539e-1
	tan3pio832 float32 = 2.414213562373095
	tanpio832  float32 = 0.4142135623730950
	pio232     float32 = math.Pi / 2
	pio432     float32 = math.Pi / 4
	atanKink32 float32 = -1.5574077246549023
)

// atan32 is arctan x in float32 (Cephes atanf: the argument reduced to [0, tan(π/8)] by
// tan(π/4 − t) or 1/t, then a degree-9 odd polynomial).
func atan32(x float32) float32 {
	t := math.Float32frombits(math.Float32bits(x) &^ (1 << 31))
	y0, r := float32(0), t
	switch {
	case t > tan3pio832:
		y0, r = pio232, -1/t
	case t > tanpio832:
		y0, r = pio432, (t-1)/(t+1)
	}
	z := r * r
	p := float32(atanA0*z) + atanA1
	p = float32(p*z) + atanA2
	p = float32(p*z) + atanA3
	a := y0 + (float32(float32(p*z)*r) + r)
	return math.Float32frombits(math.Float32bits(a) ^ math.Float32bits(x)&(1<<31))
}

// surrogate32 returns a·f(x) and f'(x) for the surrogate f in float32, as Surrogates computes
// them for float32 operands:
//
//	Tanh1: with e = e^{−2|x|} (expNeg32) and q = 2/(1 + e), f = q for x ≥ 0 and q·e below,
//	       f' = q·(q·e) = 4e/(1 + e)² (no cancellation where f is near 2);
//	Atan1: f = 1 + atan32(x), f' = 1/(1 + x²), both 0 for x ≤ −tan 1;
//	ReLU1: f = x + 1, f' = 1, both 0 for x ≤ −1.
func surrogate32(f Surrogate, x, a float32) (y, dy float32) {
	switch f {
	case Tanh1:
		e := expNeg32(-2 * math.Float32frombits(math.Float32bits(x)&^(1<<31)))
		q := 2 / (1 + e)
		qe := q * e
		y = q
		if x < 0 {
			y = qe
		}
		return a * y, q * qe
	case Atan1:
		if x <= atanKink32 {
			return 0, 0
		}
		return a * (1 + atan32(x)), 1 / (1 + float32(x*x))
	}
	v := x + 1
	if v <= 0 {
		return 0, 0
	}
	return a * v, 1
}
