//go:build !noasm

package simd

// The heads of the loss functions that the vector code takes: the longest prefix of a multiple
// of 4 entries, for float32 operands where the processor has AVX2 (0 otherwise).

func surrogatesHead(f Surrogate, y, dy, x []float32, a float32) int {
	n := len(y) &^ 7
	if !vector || n == 0 {
		return 0
	}
	surrogates8(int(f), &y[0], &dy[0], &x[0], n, a)
	return n
}

func scaleAddHead[T Floats](dst []float64, x []T, a T, m []T, mx float64) (int, float64) {
	x32, ok := any(x).([]float32)
	n := len(dst) &^ 7
	if !ok || !vector || n == 0 {
		return 0, mx
	}
	var mp *float32
	if m != nil {
		mp = &any(m).([]float32)[0]
	}
	return n, scaleAddWidenMax8(&dst[0], &x32[0], n, float32(a), mp, mx)
}

func softplusHead(sig, z, w []float32, acc *[16]float64, bad *bool) int {
	n := len(sig) &^ 7
	if !vector || n == 0 {
		return 0
	}
	if softplus8(&sig[0], &z[0], &w[0], n, acc) {
		*bad = true
	}
	return n
}

func powHead[T Floats](q, x, m []T, c float64, n int, acc *[4]float64) int {
	q32, ok := any(q).([]float32)
	k := len(q) &^ 3
	if !ok || !vector || k == 0 {
		return 0
	}
	powRow4(&q32[0], &any(x).([]float32)[0], &any(m).([]float32)[0], k, c, n, acc)
	return k
}

func maskedMaxHead[T Floats](x, m []T, top *T) (int, bool) {
	x32, ok := any(x).([]float32)
	n := len(x) &^ 7
	if !ok || !vector || n == 0 {
		return 0, true
	}
	t, good := maskedMax8(&x32[0], &any(m).([]float32)[0], n)
	if t > 0 { // a −0 among the masked zeros stays +0
		*top = T(t)
	}
	return n, good
}

func sumHead[T Floats](x []T, acc *[8]float64) int {
	x32, ok := any(x).([]float32)
	n := len(x) &^ 7
	if !ok || !vector || n == 0 {
		return 0
	}
	sum8(&x32[0], n, acc)
	return n
}

func affineMaxHead[T Floats](dst []float64, x []T, a float64, off []float64, b, m float64) (int, float64) {
	x32, ok := any(x).([]float32)
	n := len(dst) &^ 3
	if !ok || !vector || n == 0 {
		return 0, m
	}
	var o *float64
	if off != nil {
		o = &off[0]
	}
	return n, affineMax4(&dst[0], &x32[0], n, a, o, b, m)
}

// surrogates8 is Surrogates of float32 operands (f a Surrogate) for n a multiple of 8.
//
//go:noescape
func surrogates8(f int, y, dy, x *float32, n int, a float32)

// softplus8 runs softplusRow32's lanes over n entries, n a multiple of 8, from zero sums into acc
// (S0..S7, P0..P7); it reports a mask value other than 0 and 1.
//
//go:noescape
func softplus8(sig, z, w *float32, n int, acc *[16]float64) (bad bool)

// powRow4 runs PowRow's lanes over n entries, n a multiple of 4, from zero sums into acc, with
// exponent e.
//
//go:noescape
func powRow4(q, x, m *float32, n int, c float64, e int, acc *[4]float64)

// maskedMax8 is MaskedMax over n entries, n a multiple of 8, from top = 0.
//
//go:noescape
func maskedMax8(x, m *float32, n int) (top float32, ok bool)

// sum8 is Sum's partial sums over n entries, n a multiple of 8, into acc.
//
//go:noescape
func sum8(x *float32, n int, acc *[8]float64)

// affineMax4 is AffineMax over n entries, n a multiple of 4 (off nil: no offsets).
//
//go:noescape
func affineMax4(dst *float64, x *float32, n int, a float64, off *float64, b, m float64) float64

// scaleAddWidenMax8 is ScaleAddWidenMax of float32 operands over n entries, n a multiple of 8
// (m nil: no addend).
//
//go:noescape
func scaleAddWidenMax8(dst *float64, x *float32, n int, a float32, m *float32, mx float64) float64
