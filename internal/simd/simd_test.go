package simd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// vectorData returns n values on a grid of 1/4 in [−2, 2] (so that equalities with the
// thresholds occur), with a NaN and infinities sprinkled in.
func vectorData(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.IntN(17)-8) / 4
		switch rng.IntN(40) {
		case 0:
			x[i] = float32(math.NaN())
		case 1:
			x[i] = float32(math.Inf(1))
		case 2:
			x[i] = float32(math.Inf(-1))
		}
	}
	return x
}

// upTo returns the lengths 0, 1, …, n, then long.
func upTo(n int, long ...int) []int {
	ns := make([]int, 0, n+1+len(long))
	for k := range n + 1 {
		ns = append(ns, k)
	}
	return append(ns, long...)
}

// same32 and same64 report whether x and y have the same bits or are both NaN.
func same32(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) || x != x && y != y }
func same64(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) || x != x && y != y }

// TestCounts compares CountGE, IndexIn and Add (vector code where the processor has it) with
// the plain-Go loops, on every length up to 70 and some longer ones, at every offset of 0..3.
func TestCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range upTo(70, 1000, 1024, 4099) {
		for off := range 4 {
			x := vectorData(rng, n+off)[off:]
			lo := float32(rng.IntN(9)-4) / 4
			hi := lo + float32(rng.IntN(3))/4
			a, b := CountGE(x, lo, hi)
			var wa, wb int
			wi := -1
			for i, v := range x {
				if v >= lo {
					wa++
				}
				if v >= hi {
					wb++
				}
				if wi < 0 && v >= lo && v < hi {
					wi = i
				}
			}
			if a != wa || b != wb {
				t.Fatalf("n %d off %d: CountGE(%v, %v) = %d, %d, want %d, %d", n, off, lo, hi, a, b, wa, wb)
			}
			if i := IndexIn(x, lo, hi); i != wi {
				t.Fatalf("n %d off %d: IndexIn(%v, %v) = %d, want %d", n, off, lo, hi, i, wi)
			}
			y := vectorData(rng, n)
			dst := make([]float32, n)
			Add(dst, x, y)
			for i := range dst {
				want := x[i] + y[i]
				if dst[i] != want && !(math.IsNaN(float64(want)) && math.IsNaN(float64(dst[i]))) {
					t.Fatalf("n %d: Add[%d] = %v, want %v", n, i, dst[i], want)
				}
			}
		}
	}
}

// TestAddRows compares AddRows (vector code where the processor has it) bit for bit with a
// plain loop adding one row at a time, for no rows, one, and many in random order with repeats,
// onto a nonzero start, 16, 32 and 48 columns wide, with values of mixed magnitudes (so that the
// order of the additions shows in the rounding); a row out of range (by its index, or by the
// width past the data's end) and a width that is not a multiple of 16 or exceeds the stride
// panic, leaving acc as it was.
func TestAddRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	const rows, stride = 50, 51
	data := make([]float64, (rows-1)*stride+48)
	for i := range data {
		data[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)-6))
	}
	for _, w := range []int{16, 32, 48} {
		for _, n := range []int{0, 1, 2, 1000} {
			idx := make([]int32, n)
			for i := range idx {
				idx[i] = int32(rng.IntN(rows))
			}
			got, want := make([]float64, w), make([]float64, w)
			for j := range got {
				got[j] = float64(j) / 3
				want[j] = got[j]
			}
			AddRows(got, data, stride, idx)
			for _, i := range idx {
				for j := range want {
					want[j] += data[int(i)*stride+j]
				}
			}
			for j := range got {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
					t.Errorf("width %d, %d rows: acc[%d] = %v, want %v", w, n, j, got[j], want[j])
				}
			}
		}
	}
	for _, c := range []struct {
		name   string
		acc    int
		stride int
		rows   []float64
		idx    []int32
	}{
		{"row past the end", 16, stride, data, []int32{0, rows}},
		{"negative row", 16, stride, data, []int32{-1}},
		{"width past the data", 48, stride, data[:len(data)-1], []int32{0, rows - 1}},
		{"width not a multiple of 16", 20, stride, data, []int32{0}},
		{"width above the stride", 64, stride, data, []int32{0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			acc := make([]float64, c.acc)
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
				for j, v := range acc {
					if v != 0 {
						t.Errorf("acc[%d] = %v after the panic, want 0", j, v)
					}
				}
			}()
			AddRows(acc, c.rows, c.stride, c.idx)
		})
	}
}

// TestAdam compares Adam (vector code where the processor has it) bit for bit with adamGo, on
// every length up to 40 and a longer one, with gradients and moments of mixed magnitudes, zero
// moments (a first step) and a clipping scale.
func TestAdam(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	p := AdamStep{Scale: 0.7, B1: 0.9, B2: 0.999, Eps: 1e-8, StepSize: 0.01, InvSqrtBC2: 22.4}
	for _, n := range upTo(40, 1000) {
		w, g, st := make([]float32, n), make([]float32, n), make([]float32, 2*n)
		for i := range w {
			w[i] = float32(rng.NormFloat64())
			g[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(8)-6)))
			if rng.IntN(4) > 0 {
				st[2*i], st[2*i+1] = float32(rng.NormFloat64()*1e-3), float32(rng.Float64()*1e-4)
			}
		}
		w2, st2 := append([]float32(nil), w...), append([]float32(nil), st...)
		Adam(w, g, st, p)
		adamGo(w2, g, st2, p)
		for i := range w {
			if math.Float32bits(w[i]) != math.Float32bits(w2[i]) || math.Float32bits(st[2*i]) != math.Float32bits(st2[2*i]) ||
				math.Float32bits(st[2*i+1]) != math.Float32bits(st2[2*i+1]) {
				t.Fatalf("n %d, element %d: w %v m %v v %v, plain Go: w %v m %v v %v", n, i, w[i], st[2*i], st[2*i+1], w2[i], st2[2*i], st2[2*i+1])
			}
		}
	}
}

// TestElementwise compares AddReLU, ReLUGrad and AddScaled (vector code where the processor has
// it) with the plain-Go loops, bit for bit (any NaN for a NaN), on every length up to 40 and a
// longer one, on values with equalities, NaNs, infinities and zeros of both signs.
func TestElementwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, n := range upTo(40, 1000) {
		a, b := vectorData(rng, n), vectorData(rng, n)
		for i := range a {
			if rng.IntN(8) == 0 {
				a[i], b[i] = float32(math.Copysign(0, -1)), float32(math.Copysign(0, -1))
			}
		}
		c := float32(rng.NormFloat64())
		wide := rng.NormFloat64() * 1e-3
		for _, f := range []struct {
			name     string
			vec, ref func(dst []float32)
		}{
			{"AddReLU", func(d []float32) { AddReLU(d, a, b) }, func(d []float32) { addReLUGo(d, a, b) }},
			{"ReLUGrad", func(d []float32) { ReLUGrad(d, a, b) }, func(d []float32) { reluGradGo(d, a, b) }},
			{"AddScaled", func(d []float32) { AddScaled(d, c, a) }, func(d []float32) { addScaledGo(d, c, a) }},
			{"Mul", func(d []float32) { Mul(d, a, b) }, func(d []float32) { mulGo(d, a, b) }},
			{"MulScalar", func(d []float32) { MulScalar(d, a, c) }, func(d []float32) { mulScalarGo(d, a, c) }},
			{"MulScalar in place", func(d []float32) { MulScalar(d, d, c) }, func(d []float32) { mulScalarGo(d, d, c) }},
			{"AddScalar", func(d []float32) { AddScalar(d, a, c) }, func(d []float32) { addScalarGo(d, a, c) }},
			{"MulWide", func(d []float32) { MulWide(d, a, wide) }, func(d []float32) { mulWideGo(d, a, wide) }},
		} {
			got, want := append([]float32(nil), b...), append([]float32(nil), b...)
			f.vec(got)
			f.ref(want)
			for i := range got {
				if !same32(got[i], want[i]) {
					t.Fatalf("%s, n %d: [%d] = %v, plain Go: %v", f.name, n, i, got[i], want[i])
				}
			}
		}
	}
	// The plain loops against their definitions on the edge cases.
	negZero := float32(math.Copysign(0, -1))
	d := []float32{0}
	if addReLUGo(d, []float32{negZero}, []float32{negZero}); math.Signbit(float64(d[0])) {
		t.Error("AddReLU(−0 + −0) is −0, want +0")
	}
	if reluGradGo(d, []float32{negZero}, []float32{5}); d[0] != 0 {
		t.Errorf("ReLUGrad at y = −0: %v, want 0", d[0])
	}
}

// TestDot: Dot (vector code where the processor has it) equals the plain loop bit for bit on
// every length up to 40 and a longer one, and both are within float32 rounding of the sum in
// float64.
func TestDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, n := range upTo(40, 1000) {
		a, b := make([]float32, n), make([]float32, n+3)
		var exact, mass float64
		for i := range a {
			a[i], b[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
			exact += float64(a[i]) * float64(b[i])
			mass += math.Abs(float64(a[i]) * float64(b[i]))
		}
		got, want := Dot(a, b), dotGo(a, b[:n])
		if !same32(got, want) {
			t.Fatalf("n %d: Dot %v, plain Go %v", n, got, want)
		}
		if math.Abs(float64(got)-exact) > 1e-6*(1+mass) {
			t.Errorf("n %d: Dot %v, the sum in float64 %v", n, got, exact)
		}
	}
}

// TestExpNeg: the fast exponential against math.Exp on [−708, 0], and its edge cases.
func TestExpNeg(t *testing.T) {
	worst := 0.0
	for k := 0; k <= 2_000_000; k++ {
		x := -708 * float64(k) / 2_000_000
		want := math.Exp(x)
		worst = math.Max(worst, math.Abs(ExpNeg(x)-want)/want)
	}
	if worst > 1e-15 {
		t.Errorf("ExpNeg: max relative error %g on [-708, 0]", worst)
	}
	for _, tc := range []struct{ x, want float64 }{{0, 1}, {math.Copysign(0, -1), 1}, {-708.5, 0}, {math.Inf(-1), 0}} {
		if got := ExpNeg(tc.x); got != tc.want || math.Signbit(got) {
			t.Errorf("ExpNeg(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
	if !math.IsNaN(ExpNeg(math.NaN())) {
		t.Error("ExpNeg(NaN) is not NaN")
	}
}

// TestExpNegShift: the vector lanes give ExpNeg's bits, on every length up to 40 and a long one,
// with values over and beyond ExpNeg's range (below −708, above 0, infinities, NaN, −0), in place
// and into another slice, and ExpNegShiftTo their narrowed bits and the same sum.
func TestExpNegShift(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, n := range upTo(40, 100_000) {
		x := make([]float64, n)
		for i := range x {
			switch rng.IntN(50) {
			case 0:
				x[i] = math.NaN()
			case 1:
				x[i] = math.Inf(-1)
			case 2:
				x[i] = math.Inf(1)
			case 3:
				x[i] = math.Copysign(0, -1)
			case 4:
				x[i] = -708 + rng.Float64()
			default:
				x[i] = -750*rng.Float64() + 5
			}
		}
		shift := []float64{0, 1.5, -2}[rng.IntN(3)]
		got := make([]float64, n)
		sum := ExpNegShift(got, x, shift)
		to, xc := make([]float32, n), append([]float64(nil), x...)
		if sumTo := ExpNegShiftTo(to, xc, shift); !same64(sumTo, sum) {
			t.Fatalf("n %d: ExpNegShiftTo's sum %v, want %v", n, sumTo, sum)
		}
		for i, v := range got {
			if !same32(to[i], float32(v)) {
				t.Fatalf("n %d: ExpNegShiftTo[%d] = %v, want %v", n, i, to[i], float32(v))
			}
		}
		in := append([]float64(nil), x...)
		sumIn := ExpNegShift(in, in, shift)
		wantSum := 0.0
		for i, v := range x {
			want := ExpNeg(v - shift)
			if !same64(got[i], want) || !same64(in[i], want) {
				t.Fatalf("n %d: ExpNeg(%v − %v) = %v (in place %v), want %v", n, v, shift, got[i], in[i], want)
			}
			wantSum += want
		}
		if !same64(sum, wantSum) || !same64(sumIn, wantSum) {
			t.Fatalf("n %d: sum %v (in place %v), want %v", n, sum, sumIn, wantSum)
		}
		// Terms of one order of magnitude, so that the sum is finite and its order shows in its
		// last bits.
		for i := range x {
			x[i] = shift - 2*rng.Float64()
		}
		wantSum = 0.0
		for _, v := range x {
			wantSum += ExpNeg(v - shift)
		}
		if sum := ExpNegShift(got, x, shift); sum != wantSum {
			t.Fatalf("n %d: sum of finite terms %v, want %v", n, sum, wantSum)
		}
		// Narrow: float32 conversions (NaN, infinities, overflow to ±Inf, subnormals and ties).
		x = append(x, math.MaxFloat64, -math.MaxFloat64, 1e-310, 1+1.0/(1<<24), 1+3.0/(1<<24))
		n32 := make([]float32, len(x))
		Narrow(n32, x)
		for i, v := range x {
			if w := float32(v); !same32(n32[i], w) {
				t.Fatalf("Narrow(%v) = %v, want %v", v, n32[i], w)
			}
		}
	}
}

// TestWidenMax: the lanes' maximum is the loop's, bit for bit, on rows with NaNs, infinities,
// zeros of both signs and ties, for every length up to 40 and a long one, and every start m.
func TestWidenMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	negZero := float32(math.Copysign(0, -1))
	for _, n := range upTo(40, 1000) {
		for trial := range 20 {
			x := vectorData(rng, n)
			for i := range x {
				switch {
				case trial%4 == 0: // rows of zeros and negatives
					x[i] = []float32{0, negZero, -1}[rng.IntN(3)]
				case trial%4 == 1:
					x[i] = -float32(rng.IntN(3)) // ties
				}
			}
			m := []float64{math.Inf(-1), math.Copysign(0, -1), 0, -0.5, math.NaN()}[trial%5]
			got, want := make([]float64, n), make([]float64, n)
			gm, wm := WidenMax(got, x, m), widenMaxGo(want, x, m)
			if !same64(gm, wm) {
				t.Fatalf("n %d, m %v, x %v: max %v, loop %v", n, m, x, gm, wm)
			}
			for i := range got {
				if !same64(got[i], want[i]) {
					t.Fatalf("n %d: dst[%d] = %v, want %v", n, i, got[i], want[i])
				}
			}
		}
	}
}

// TestCopyStrided: every group lands where the definition puts it, for groups of 6, 16 (vector
// code where the processor has it) and 5 values, one to five panels, every count up to 20 and
// strides at and above the panels' width; bad sizes panic.
func TestCopyStrided(t *testing.T) {
	for _, w := range []int{5, 6, 16} {
		for _, panels := range []int{1, 2, 3, 5} {
			for _, ld := range []int{panels * w, panels*w + 1, 3 * panels * w} {
				for n := range 21 {
					src := make([]float32, max(0, (n-1)*ld+panels*w))
					for k := range src {
						src[k] = float32(k) + 0.5
					}
					dst := make([]float32, panels*n*w+3)
					CopyStrided(dst, src, w, ld, n, panels)
					for q := range panels {
						for l := range n {
							for r := range w {
								if got, want := dst[(q*n+l)*w+r], src[l*ld+q*w+r]; got != want {
									t.Fatalf("w %d panels %d ld %d n %d: dst[%d] = %v, want %v", w, panels, ld, n, (q*n+l)*w+r, got, want)
								}
							}
						}
					}
					for _, v := range dst[panels*n*w:] {
						if v != 0 {
							t.Fatalf("w %d panels %d ld %d n %d: wrote past the groups", w, panels, ld, n)
						}
					}
				}
			}
		}
	}
	for _, tc := range []struct {
		name             string
		dst, src         int
		w, ld, n, panels int
	}{
		{"short source", 12, 10, 6, 6, 2, 1},
		{"short destination", 23, 24, 6, 12, 2, 2},
		{"stride below the panels", 24, 30, 6, 6, 2, 2},
		{"negative count", 12, 12, 6, 6, -1, 1},
		{"negative panels", 12, 12, 6, 6, 2, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("did not panic")
				}
			}()
			CopyStrided(make([]float32, tc.dst), make([]float32, tc.src), tc.w, tc.ld, tc.n, tc.panels)
		})
	}
}

// TestInterleave: every value lands where the definition puts it, for six and sixteen rows
// (eight groups at a time in vector registers where the processor has AVX-512 or AVX2, then the
// rest) and five (plain Go), every count up to 40 and the ranking's 64, 100 and 128, rows that
// overlap (ld < n), follow one another (ld = n: the next panel is prefetched) or lie apart, with
// nothing written past the groups; bad sizes panic.
func TestInterleave(t *testing.T) {
	for _, w := range []int{5, 6, 16} {
		for _, ldc := range []int{0, 1, 7, 41, 100} {
			for _, n := range upTo(40, 64, 100, 128) {
				ld := ldc
				if ld == 0 {
					ld = max(n, 1) // rows one after another, as the ranking's item panels
				}
				src := make([]float32, (w-1)*ld+n)
				for k := range src {
					src[k] = float32(k) + 0.5
				}
				dst := make([]float32, w*n+5)
				Interleave(dst, src, w, ld, n)
				for l := range n {
					for r := range w {
						if dst[l*w+r] != src[r*ld+l] {
							t.Fatalf("w %d ld %d n %d: dst[%d] = %v, want %v", w, ld, n, l*w+r, dst[l*w+r], src[r*ld+l])
						}
					}
				}
				for _, v := range dst[w*n:] {
					if v != 0 {
						t.Fatalf("w %d ld %d n %d: wrote past the groups", w, ld, n)
					}
				}
			}
		}
	}
	for _, tc := range []struct {
		name     string
		dst, src int
		w, ld, n int
	}{
		{"short source", 48, 5*8 + 7, 6, 8, 8},
		{"short source, sixteen rows", 128, 15*8 + 7, 16, 8, 8},
		{"short destination", 127, 15*8 + 8, 16, 8, 8},
		{"negative count", 48, 48, 6, 8, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("did not panic")
				}
			}()
			Interleave(make([]float32, tc.dst), make([]float32, tc.src), tc.w, tc.ld, tc.n)
		})
	}
}

// TestPrefetch: Prefetch leaves every value as it was, on every length up to 40 and at every
// offset of 0..15 (the hint covers the last line of the slice, and never faults).
func TestPrefetch(t *testing.T) {
	x := make([]float32, 64)
	for i := range x {
		x[i] = float32(i)
	}
	for off := range 16 {
		for n := range 41 {
			if off+n > len(x) {
				continue
			}
			Prefetch(x[off : off+n])
		}
	}
	for i, v := range x {
		if v != float32(i) {
			t.Fatalf("x[%d] = %v after Prefetch", i, v)
		}
	}
}
