package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ulps is the distance between x and y in units in the last place of float64 (0 for equal
// values, both NaN included).
func ulps(x, y float64) float64 {
	if same64(x, y) || x == y {
		return 0
	}
	return math.Abs(x-y) / (math.Nextafter(math.Abs(y), math.Inf(1)) - math.Abs(y))
}

// TestAtan: atan is within 1 ulp of math.Atan, which evaluates the same Cephes approximation, on
// a sweep of [−40, 40], at the ends of its argument reductions (0.66, tan(3π/8)), over many
// magnitudes, and at ±0, ±Inf and NaN.
func TestAtan(t *testing.T) {
	xs := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 0.66, tan3pio8, 1e-300, 1e300, 5e-324}
	for _, b := range []float64{0.66, tan3pio8} {
		xs = append(xs, math.Nextafter(b, 0), math.Nextafter(b, 10))
	}
	for k := -400_000; k <= 400_000; k++ {
		xs = append(xs, float64(k)/10_000)
	}
	for e := -30; e <= 30; e++ {
		xs = append(xs, 1.2345*math.Pow(10, float64(e)))
	}
	for _, x := range xs {
		for _, v := range []float64{x, -x} {
			if got, want := atan(v), math.Atan(v); ulps(got, want) > 1 || math.Signbit(got) != math.Signbit(want) {
				t.Fatalf("atan(%v) = %v, math.Atan %v", v, got, want)
			}
		}
	}
	if !math.IsNaN(atan(math.NaN())) {
		t.Error("atan(NaN) is not NaN")
	}
}

// surrogateData returns n float32 values: differences of cosine scores in [−2.5, 2.5], values on
// either side of the surrogates' kinks (−1, −tan 1) and of atan's reductions, large and tiny
// magnitudes, ±0, infinities and NaN.
func surrogateData(rng *rand.Rand, n int) []float32 {
	special := []float32{-1, float32(-tanOne), math.Nextafter32(float32(-tanOne), 0), math.Nextafter32(float32(-tanOne), -10),
		0.66, -0.66, float32(tan3pio8), -float32(tan3pio8), 0, float32(math.Copysign(0, -1)), 1e-30, -1e-30, 1e30, -1e30,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 400, -400, 20, -20}
	x := make([]float32, n)
	for i := range x {
		if rng.IntN(10) == 0 {
			x[i] = special[rng.IntN(len(special))]
		} else {
			x[i] = float32(5*rng.Float64() - 2.5)
		}
	}
	return x
}

// ulps32 is the distance between got and the float32 rounding of want in units in its last place
// (0 for equal values, both NaN included).
func ulps32(got float32, want float64) float64 {
	w := float32(want)
	if same32(got, w) || got == w {
		return 0
	}
	return math.Abs(float64(got)-want) / float64(math.Nextafter32(float32(math.Abs(want)), float32(math.Inf(1)))-float32(math.Abs(want)))
}

// TestSurrogates: for float32 operands the vector lanes give surrogate32's bits (every length
// up to 40 and a long one); surrogate32 is within 3 ulp of the float32 rounding of tanh x + 1
// and 5 ulp of its derivative 4e^{−2|x|}/(1 + e^{−2|x|})² (on [−40, 40]; below 1e-37 beyond),
// within 2 ulp of 1 + arctan x where it is at least 0.5 and 2.5e-7 below, 2 ulp of 1/(1 + x²)
// (below 1e-37 where x² overflows),
// and exactly x + 1, on a sweep of [−40, 40] and over many magnitudes; for float64 operands, surrogate's tanh x + 1 and its
// derivative are within 2e-15 of math's, 1 + arctan x within 2 ulp of 1 + math.Atan and
// 1/(1 + x²) within 2 ulp; each function is 0 where it is said to be (x ≤ −tan 1, x ≤ −1).
func TestSurrogates(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	exact := func(f Surrogate, x float64) (y, dy float64) {
		switch f {
		case Tanh1:
			// tanh x + 1 = 2/(1 + e^{−2x}), without math.Tanh(x) + 1's cancellation below 0.
			e := math.Exp(-2 * math.Abs(x))
			if x < 0 {
				return 2 * e / (1 + e), 4 * e / ((1 + e) * (1 + e))
			}
			return 2 / (1 + e), 4 * e / ((1 + e) * (1 + e))
		case Atan1:
			if x > -tanOne {
				return 1 + math.Atan(x), 1 / math.FMA(x, x, 1)
			}
		case ReLU1:
			if x > -1 {
				return x + 1, 1
			}
		}
		return 0, 0
	}
	for _, f := range []Surrogate{Tanh1, Atan1, ReLU1} {
		for _, n := range upTo(40, 10_000) {
			x := surrogateData(rng, n)
			a := []float64{1, 0.5, 3}[rng.IntN(3)]
			y, dy := make([]float32, n), make([]float32, n)
			Surrogates(f, y, dy, x, a)
			for i, v := range x {
				wy, wdy := surrogate32(f, v, float32(a))
				if !same32(y[i], wy) || !same32(dy[i], wdy) {
					t.Fatalf("f %d n %d: at %v: %v, %v, want %v, %v", f, n, v, y[i], dy[i], wy, wdy)
				}
			}
		}
		xs := []float32{float32(-tanOne), math.Nextafter32(float32(-tanOne), 0), -1, math.Nextafter32(-1, 0), 0,
			float32(math.Copysign(0, -1)), float32(tan3pio832), tanpio832, -tanpio832, 1e-30, -1e-30, 1e30, -1e30}
		for k := -400_000; k <= 400_000; k++ {
			xs = append(xs, float32(k)/10_000)
		}
		for e := -30; e <= 30; e++ {
			xs = append(xs, float32(1.2345*math.Pow(10, float64(e))), float32(-1.2345*math.Pow(10, float64(e))))
		}
		tolY, tolDY := 3.0, 5.0
		switch f {
		case Atan1:
			tolY, tolDY = 2, 2
		case ReLU1:
			tolY, tolDY = 0, 0
		}
		for _, x := range xs {
			y, dy := surrogate32(f, x, 1)
			wy, wdy := exact(f, float64(x))
			badY := ulps32(y, wy) > tolY
			if f == Atan1 && wy < 0.5 { // 1 + arctan x rounds where arctan x is near −1
				badY = math.Abs(float64(y)-wy) > 2.5e-7
			}
			// Beyond |x| = 40 Tanh1's f' is below 1e-37, and beyond 1e19 Atan1's (x² overflows).
			tiny := f == Tanh1 && math.Abs(float64(x)) > 40 || f == Atan1 && math.Abs(float64(x)) > 1e19
			badDY := ulps32(dy, wdy) > tolDY
			if tiny {
				badDY = math.Abs(float64(dy)-wdy) > 1e-37
			}
			if badY || badDY {
				t.Fatalf("f %d float32 at %v: %v, %v, want %v, %v (%.1f, %.1f ulp)", f, x, y, dy, wy, wdy, ulps32(y, wy), ulps32(dy, wdy))
			}
		}
		x64 := make([]float64, 0, 8001)
		for k := -4000; k <= 4000; k++ {
			x64 = append(x64, float64(k)/1000)
		}
		x64 = append(x64, -tanOne, math.Nextafter(-tanOne, 0), -1, math.Inf(1), math.Inf(-1))
		y, dy := make([]float64, len(x64)), make([]float64, len(x64))
		Surrogates(f, y, dy, x64, 1)
		for i, x := range x64 {
			wy, wdy := exact(f, x)
			if f == Tanh1 {
				if math.Abs(y[i]-wy) > 2e-15 || math.Abs(dy[i]-wdy) > 2e-15 {
					t.Fatalf("tanh1(%v) = %v, %v, want %v, %v", x, y[i], dy[i], wy, wdy)
				}
				continue
			}
			if ulps(y[i], wy) > 2 || ulps(dy[i], wdy) > 2 {
				t.Fatalf("f %d at %v: %v, %v, want %v, %v", f, x, y[i], dy[i], wy, wdy)
			}
		}
	}
}

// softplusRowLanes is SoftplusRow of float32 operands with every entry taken by the plain-Go
// step.
func softplusRowLanes(sig, z, w []float32) (float64, bool) {
	sum, bad := 0.0, false
	for lo := 0; lo < len(sig); lo += SoftplusChunk {
		hi := min(lo+SoftplusChunk, len(sig))
		var acc [16]float64
		for j := lo; j < hi; j++ {
			if softplusStep32(&sig[j], z[j], w[j], &acc, (j-lo)&7) {
				bad = true
			}
		}
		sum += softplusChunk32(&acc)
	}
	return sum, bad
}

// TestSoftplusRow: for float32 operands the vector lanes give the plain-Go lanes' bits (every
// length up to 40, rows over several chunks, masks of 0 and 1, values with infinities and NaN),
// the sum is within 1e-6 of Σ log1p(e^z) over the mask in float64 and σ within 3 ulp (below
// float32's smallest normal value, 0); for float64
// operands within 1e-13 and 1e-15 (rows of 1 to 5000 entries, logits up to ±800, where the
// products would overflow without the chunks); a mask value other than 0 and 1 is reported.
func TestSoftplusRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, n := range upTo(40, 1024, 1027, 5000) {
		z := vectorData(rng, n)
		w := make([]float32, n)
		for i := range w {
			w[i] = float32(rng.IntN(2))
		}
		sig, want := make([]float32, n), make([]float32, n)
		sum, bad := SoftplusRow(sig, z, w)
		wsum, wbad := softplusRowLanes(want, z, w)
		if !same64(sum, wsum) || bad != wbad || bad {
			t.Fatalf("n %d: sum %v (bad %v), want %v (bad %v)", n, sum, bad, wsum, wbad)
		}
		for i := range sig {
			if !same32(sig[i], want[i]) {
				t.Fatalf("n %d: σ[%d] = %v, want %v", n, i, sig[i], want[i])
			}
		}
	}
	for _, n := range []int{1, 7, 1024, 5000} {
		for _, scale := range []float64{1, 20, 800} {
			z, w := make([]float64, n), make([]float64, n)
			z32, w32 := make([]float32, n), make([]float32, n)
			want, want32 := 0.0, 0.0
			for i := range z {
				z[i] = scale * (2*rng.Float64() - 1)
				z32[i] = float32(z[i])
				if rng.IntN(5) > 0 {
					w[i], w32[i] = 1, 1
					want += math.Max(z[i], 0) + math.Log1p(math.Exp(-math.Abs(z[i])))
					v := float64(z32[i])
					want32 += math.Max(v, 0) + math.Log1p(math.Exp(-math.Abs(v)))
				}
			}
			sig := make([]float64, n)
			sum, bad := SoftplusRow(sig, z, w)
			if bad || math.Abs(sum-want) > 1e-13*math.Abs(want) {
				t.Fatalf("n %d scale %v: sum %v, want %v", n, scale, sum, want)
			}
			for i, v := range z {
				if ws := w[i] / (1 + math.Exp(-v)); math.Abs(sig[i]-ws) > 1e-15 {
					t.Fatalf("σ(%v) = %v, want %v", v, sig[i], ws)
				}
			}
			sig32 := make([]float32, n)
			sum, bad = SoftplusRow(sig32, z32, w32)
			if bad || math.Abs(sum-want32) > 1e-6*math.Abs(want32)+1e-37 { // below 1e-37: e^z underflows float32
				t.Fatalf("float32 n %d scale %v: sum %v, want %v", n, scale, sum, want32)
			}
			for i, v := range z32 {
				if ws := float64(w32[i]) / (1 + math.Exp(-float64(v))); ulps32(sig32[i], ws) > 3 && math.Abs(float64(sig32[i])-ws) > 1.2e-38 {
					t.Fatalf("float32 σ(%v) = %v, want %v (%.1f ulp)", v, sig32[i], ws, ulps32(sig32[i], ws))
				}
			}
		}
	}
	for _, n := range []int{3, 8, 1030} {
		for _, v := range []float32{0.5, 2, float32(math.NaN())} {
			z, w := make([]float32, n), make([]float32, n)
			for i := range w {
				w[i] = 1
			}
			w[n-2] = v
			if _, bad := SoftplusRow(make([]float32, n), z, w); !bad {
				t.Errorf("n %d: mask value %v not reported", n, v)
			}
		}
	}
}

// TestPowRow: the vector lanes give the plain-Go lanes' bits (every length up to 40 and a long
// one, exponents 0 to 64, masks with zeros, zeros in x, NaN), and q is within 64 ulp of
// math.Pow(x·c, n) (float64: the repeated squaring rounds once per product), 0 where x·m = 0.
func TestPowRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, n := range upTo(40, 3001) {
		x, m := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i] = float32(2 * rng.Float64())
			m[i] = float32(min(rng.IntN(4), 1))
			switch rng.IntN(20) {
			case 0:
				x[i] = 0
			case 1:
				x[i] = float32(math.NaN())
			}
		}
		e := rng.IntN(65)
		c := 1 / (1 + rng.Float64())
		q, want := make([]float32, n), make([]float32, n)
		sum := PowRow(q, x, m, c, e)
		var acc [4]float64
		for j := range want {
			powStep(&want[j], x[j], m[j], c, e, &acc[j&3])
		}
		if ws := (acc[0] + acc[1]) + (acc[2] + acc[3]); !same64(sum, ws) {
			t.Fatalf("n %d e %d: sum %v, want %v", n, e, sum, ws)
		}
		for j := range q {
			if !same32(q[j], want[j]) {
				t.Fatalf("n %d e %d: q[%d] = %v, want %v", n, e, j, q[j], want[j])
			}
		}
	}
	for _, e := range []int{0, 1, 2, 19, 64} {
		x, m := make([]float64, 1000), make([]float64, 1000)
		for i := range x {
			x[i] = 2 * rng.Float64()
			m[i] = float64(min(rng.IntN(4), 1))
		}
		x[0], m[0] = 0, 1
		q := make([]float64, len(x))
		PowRow(q, x, m, 0.5, e)
		for i, v := range x {
			want := math.Pow(v*0.5, float64(e))
			if v == 0 || m[i] == 0 {
				want = 0
			}
			if ulps(q[i], want) > 64 {
				t.Fatalf("e %d: (%v·0.5)^%d = %v, want %v", e, v, e, q[i], want)
			}
		}
	}
}

// TestMaskedMax: the vector lanes find the plain loop's maximum and validity (every length up
// to 40 and a long one), with masks of 0, 1 and other values, masked negatives, NaN and −0, and
// the maximum of a row without a positive masked value is +0.
func TestMaskedMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	for _, n := range upTo(40, 3001) {
		for trial := range 20 {
			x, m := make([]float32, n), make([]float32, n)
			for i := range x {
				x[i] = float32(3 * rng.Float64())
				m[i] = float32(min(rng.IntN(3), 1))
				if trial%4 == 0 && rng.IntN(n+1) == 0 {
					switch rng.IntN(4) {
					case 0:
						x[i] = -1
					case 1:
						x[i] = float32(math.NaN())
					case 2:
						m[i] = 0.5
					case 3:
						x[i] = float32(math.Copysign(0, -1))
					}
				}
			}
			if trial == 1 {
				for i := range x {
					x[i] = float32(math.Copysign(0, -1))
				}
			}
			var want float32
			wok := true
			for i, v := range x {
				if m[i] == 1 {
					wok = wok && v >= 0
					if v > want {
						want = v
					}
				} else if m[i] != 0 {
					wok = false
				}
			}
			top, ok := MaskedMax(x, m)
			if !same32(top, want) || ok != wok || math.Signbit(float64(top)) {
				t.Fatalf("n %d trial %d: MaskedMax = %v, %v, want %v, %v", n, trial, top, ok, want, wok)
			}
		}
	}
}

// TestSum: the vector lanes give the eight plain partial sums' bits (every length up to 40 and
// long ones, terms of mixed magnitudes whose order shows in the last bits), and an infinity or
// NaN among the terms gives the sum's.
func TestSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	for _, n := range upTo(40, 1000, 1027) {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)-6)))
		}
		var s [8]float64
		for k, v := range x {
			s[k&7] += float64(v)
		}
		want := ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]))
		if got := Sum(x); !same64(got, want) {
			t.Fatalf("n %d: Sum = %v, want %v", n, got, want)
		}
		if n > 9 {
			x[9] = float32(math.Inf(-1))
			if got := Sum(x); !math.IsInf(got, -1) {
				t.Fatalf("n %d: Sum with −Inf = %v", n, got)
			}
			x[3] = float32(math.NaN())
			if got := Sum(x); !math.IsNaN(got) {
				t.Fatalf("n %d: Sum with NaN = %v", n, got)
			}
		}
	}
}

// TestAffineMax: the vector lanes give the plain loop's values and maximum, bit for bit (every
// length up to 40 and a long one, with and without offsets, with NaN, infinities and zeros of
// both signs among the values and as the maximum).
func TestAffineMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	for _, n := range upTo(40, 1001) {
		for trial := range 8 {
			x := vectorData(rng, n)
			var off []float64
			if trial%2 == 1 {
				off = make([]float64, n)
				for j := range off {
					off[j] = float64(rng.IntN(5)-2) / 2
				}
			}
			a, b, m := []float64{20, 1, -3}[trial%3], []float64{0, 0.5, -1}[trial%3], math.Inf(-1)
			if trial >= 6 { // every value ±0: the maximum's sign is the loop's
				for j := range x {
					x[j] = float32(math.Copysign(0, float64(rng.IntN(2)*2-1)))
				}
				a, b, off = 1, 0, nil
				if trial == 7 {
					m = math.Copysign(0, -1)
				}
			}
			dst := make([]float64, n)
			got := AffineMax(dst, x, a, off, b, m)
			want := m
			for j, v := range x {
				y := float64(float64(v) * a)
				if off != nil {
					y += off[j]
				}
				y += b
				if !same64(dst[j], y) {
					t.Fatalf("n %d trial %d: dst[%d] = %v, want %v", n, trial, j, dst[j], y)
				}
				if y > want {
					want = y
				}
			}
			if !same64(got, want) {
				t.Fatalf("n %d trial %d: max %v, want %v", n, trial, got, want)
			}
		}
	}
}

// TestScaleAddWidenMax: the vector lanes give the float32 loop's values and maximum, bit for bit
// (every length up to 40 and a long one, with and without the addend, the addend 0 or −Inf as a
// mask's log, NaN, infinities and zeros of both signs among the values and as the maximum).
func TestScaleAddWidenMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 14))
	for _, n := range upTo(40, 1001) {
		for trial := range 8 {
			x := vectorData(rng, n)
			var m []float32
			if trial%2 == 1 {
				m = make([]float32, n)
				for j := range m {
					if rng.IntN(4) == 0 {
						m[j] = float32(math.Inf(-1))
					}
				}
			}
			a, mx := []float32{20, 1, -3}[trial%3], math.Inf(-1)
			if trial >= 6 { // every value ±0: the maximum's sign is the loop's
				for j := range x {
					x[j] = float32(math.Copysign(0, float64(rng.IntN(2)*2-1)))
				}
				a, m = 1, nil
				if trial == 7 {
					mx = math.Copysign(0, -1)
				}
			}
			dst := make([]float64, n)
			got := ScaleAddWidenMax(dst, x, a, m, mx)
			want := mx
			for j, v := range x {
				y := float32(v * a)
				if m != nil {
					y += m[j]
				}
				if !same64(dst[j], float64(y)) {
					t.Fatalf("n %d trial %d: dst[%d] = %v, want %v", n, trial, j, dst[j], y)
				}
				if float64(y) > want {
					want = float64(y)
				}
			}
			if !same64(got, want) {
				t.Fatalf("n %d trial %d: max %v, want %v", n, trial, got, want)
			}
		}
	}
}
