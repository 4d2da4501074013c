package gemm

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/samplingbias/workbench/internal/simd"
)

// sgemmCase is one product: sizes, transposes, the leading dimensions' excess over the widths,
// and the scalars.
type sgemmCase struct {
	tA, tB      blas.Transpose
	m, n, k     int
	pad         int // added to every leading dimension
	alpha, beta float32
}

func (tc sgemmCase) String() string {
	return fmt.Sprintf("%c%c m%d n%d k%d pad%d α%v β%v", tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.pad, tc.alpha, tc.beta)
}

// operands returns random A, B, C for tc with their leading dimensions; C holds NaN when beta
// is 0 (Sgemm must not read it), and every slot outside the matrices holds a sentinel.
func (tc sgemmCase) operands(rng *rand.Rand) (a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	ra, ca := tc.m, tc.k
	if tc.tA == blas.Trans {
		ra, ca = tc.k, tc.m
	}
	rb, cb := tc.k, tc.n
	if tc.tB == blas.Trans {
		rb, cb = tc.n, tc.k
	}
	lda, ldb, ldc = ca+tc.pad, cb+tc.pad, tc.n+tc.pad
	fill := func(rows, cols, ld int, nan bool) []float32 {
		x := make([]float32, rows*ld)
		for i := range x {
			switch {
			case i%ld >= cols:
				x[i] = sentinel
			case nan:
				x[i] = float32(math.NaN())
			default:
				x[i] = float32(rng.NormFloat64())
			}
		}
		return x
	}
	return fill(ra, ca, lda, false), lda, fill(rb, cb, ldb, false), ldb, fill(tc.m, tc.n, ldc, tc.beta == 0), ldc
}

const sentinel = 12345

// reference returns alpha·op(A)·op(B) + beta·C in float64 (C ignored when beta is 0), and the
// scale |alpha|·Σ|a b| + |beta|·|c| of each element's rounding error.
func (tc sgemmCase) reference(a []float32, lda int, b []float32, ldb int, c []float32, ldc int) (want, scale []float64) {
	atA := func(i, l int) float64 {
		if tc.tA == blas.Trans {
			return float64(a[l*lda+i])
		}
		return float64(a[i*lda+l])
	}
	atB := func(l, j int) float64 {
		if tc.tB == blas.Trans {
			return float64(b[j*ldb+l])
		}
		return float64(b[l*ldb+j])
	}
	want, scale = make([]float64, tc.m*tc.n), make([]float64, tc.m*tc.n)
	for i := range tc.m {
		for j := range tc.n {
			var s, abs float64
			for l := range tc.k {
				x := atA(i, l) * atB(l, j)
				s += x
				abs += math.Abs(x)
			}
			w := float64(tc.alpha) * s
			e := math.Abs(float64(tc.alpha)) * abs
			if tc.beta != 0 {
				cij := float64(c[i*ldc+j])
				w += float64(tc.beta) * cij
				e += math.Abs(float64(tc.beta) * cij)
			}
			want[i*tc.n+j], scale[i*tc.n+j] = w, e
		}
	}
	return want, scale
}

// check runs Sgemm on tc and compares C with the float64 reference within γ_t·scale (Higham
// §3.1), t = k plus two roundings (the scaling by alpha and the update of C) per block of terms;
// slots outside C must keep their sentinel.
func check(t *testing.T, rng *rand.Rand, tc sgemmCase) {
	t.Helper()
	a, lda, b, ldb, c, ldc := tc.operands(rng)
	want, scale := tc.reference(a, lda, b, ldb, c, ldc)
	Implementation{}.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
	terms := float64(tc.k + 2*(tc.k/256+1))
	gamma := terms * 0x1p-24 / (1 - terms*0x1p-24)
	for i := range tc.m {
		for j := range ldc {
			got := c[i*ldc+j]
			if j >= tc.n {
				if got != sentinel {
					t.Fatalf("%v: C[%d][%d] outside the matrix changed to %v", tc, i, j, got)
				}
				continue
			}
			w, e := want[i*tc.n+j], scale[i*tc.n+j]
			if math.IsNaN(float64(got)) || math.Abs(float64(got)-w) > gamma*e {
				t.Fatalf("%v: C[%d][%d] = %v, want %v ± %v", tc, i, j, got, w, gamma*e)
			}
		}
	}
}

var transposes = []blas.Transpose{blas.NoTrans, blas.Trans}

// TestSgemmSmall covers every transpose pair, scalar pair and padding on all sizes m, n in 1..20
// (every partial tile) with k in {1, 7}.
func TestSgemmSmall(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tA := range transposes {
		for _, tB := range transposes {
			for _, s := range [][2]float32{{1, 0}, {-0.75, 1}, {2, -0.5}} {
				for m := 1; m <= 20; m++ {
					for n := 1; n <= 20; n++ {
						for _, k := range []int{1, 7} {
							check(t, rng, sgemmCase{tA, tB, m, n, k, (m + n) % 3, s[0], s[1]})
						}
					}
				}
			}
		}
	}
}

// TestSgemmLarge covers odd sizes up to ~300, k across several blocks of kc, padded leading
// dimensions and enough work to run in parallel.
func TestSgemmLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	shapes := [][3]int{{97, 131, 300}, {300, 17, 513}, {5, 301, 64}, {257, 263, 3}, {1, 300, 700}, {299, 1, 257}, {96, 128, 256}}
	if testing.Short() {
		shapes = shapes[:3]
	}
	for _, tA := range transposes {
		for _, tB := range transposes {
			for i, sh := range shapes {
				s := [][2]float32{{1, 0}, {0.5, 1.5}, {-1, -1}}[i%3]
				check(t, rng, sgemmCase{tA, tB, sh[0], sh[1], sh[2], 2 * (i % 2), s[0], s[1]})
			}
		}
	}
}

// TestSgemmDeterministic checks that C is bit-identical whatever GOMAXPROCS, for products split
// along rows and along columns.
func TestSgemmDeterministic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []sgemmCase{
		{blas.NoTrans, blas.NoTrans, 301, 70, 300, 1, 1, 0},
		{blas.Trans, blas.NoTrans, 40, 333, 290, 0, 0.5, 1},
		{blas.NoTrans, blas.Trans, 128, 128, 520, 3, 1, 0.25},
	} {
		a, lda, b, ldb, c0, ldc := tc.operands(rng)
		var first []float32
		for _, procs := range []int{1, 2, 3, 5, 8} {
			runtime.GOMAXPROCS(procs)
			c := append([]float32(nil), c0...)
			Implementation{}.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
			if first == nil {
				first = c
				continue
			}
			for i := range c {
				if math.Float32bits(c[i]) != math.Float32bits(first[i]) {
					t.Fatalf("%v: GOMAXPROCS %d: C[%d] = %v, with 1: %v", tc, procs, i, c[i], first[i])
				}
			}
		}
	}
}

// TestSgemmDegenerate checks the cases handed to gonum: alpha = 0 (C = beta·C), k = 0 (C =
// beta·C, NaNs overwritten when beta = 0), and m = 0 (C untouched).
func TestSgemmDegenerate(t *testing.T) {
	nan := float32(math.NaN())
	ab := []float32{1, 2, 3, 4}
	for _, tc := range []struct {
		name        string
		m, n, k     int
		alpha, beta float32
		c, want     []float32
	}{
		{"alpha 0", 2, 2, 2, 0, 0.5, []float32{1, 2, 3, 4}, []float32{0.5, 1, 1.5, 2}},
		{"k 0, beta 0", 2, 2, 0, 1, 0, []float32{nan, nan, nan, nan}, []float32{0, 0, 0, 0}},
		{"k 0, beta 2", 2, 2, 0, 1, 2, []float32{1, 2, 3, 4}, []float32{2, 4, 6, 8}},
		{"m 0", 0, 2, 2, 1, 0, []float32{nan, 1}, []float32{nan, 1}},
	} {
		Implementation{}.Sgemm(blas.NoTrans, blas.Trans, tc.m, tc.n, tc.k, tc.alpha, ab, 2, ab, 2, tc.beta, tc.c, 2)
		if fmt.Sprint(tc.c) != fmt.Sprint(tc.want) {
			t.Errorf("%s: C = %v, want %v", tc.name, tc.c, tc.want)
		}
	}
}

// TestSgemmPanics checks that bad arguments panic with gonum's messages.
func TestSgemmPanics(t *testing.T) {
	x := make([]float32, 64)
	for _, tc := range []struct {
		name string
		call func(blas.Float32)
	}{
		{"transpose", func(f blas.Float32) { f.Sgemm('x', blas.NoTrans, 2, 2, 2, 1, x, 2, x, 2, 0, x, 2) }},
		{"m", func(f blas.Float32) { f.Sgemm(blas.NoTrans, blas.NoTrans, -1, 2, 2, 1, x, 2, x, 2, 0, x, 2) }},
		{"lda", func(f blas.Float32) { f.Sgemm(blas.NoTrans, blas.NoTrans, 2, 2, 3, 1, x, 2, x, 2, 0, x, 2) }},
		{"ldb", func(f blas.Float32) { f.Sgemm(blas.NoTrans, blas.Trans, 2, 2, 3, 1, x, 3, x, 2, 0, x, 2) }},
		{"ldc", func(f blas.Float32) { f.Sgemm(blas.NoTrans, blas.NoTrans, 2, 3, 2, 1, x, 2, x, 3, 0, x, 2) }},
		{"short a", func(f blas.Float32) { f.Sgemm(blas.NoTrans, blas.NoTrans, 9, 2, 8, 1, x, 8, x, 2, 0, x, 2) }},
		{"short c", func(f blas.Float32) { f.Sgemm(blas.Trans, blas.NoTrans, 4, 17, 2, 1, x, 4, x, 17, 0, x, 17) }},
	} {
		want, got := recovered(func() { tc.call(gonum.Implementation{}) }), recovered(func() { tc.call(Implementation{}) })
		if want == nil || got != want {
			t.Errorf("%s: panic %v, gonum's %v", tc.name, got, want)
		}
	}
}

func recovered(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

// TestSgemmBits checks C bit for bit against a digest, for products with edge tiles in both
// directions, more terms than one block (kc), each transpose, and alpha, beta ≠ 1: the method
// fixes every element's operations, so the AVX2 kernel (reading A in place) and the AVX-512 one
// (four panels at a time, A packed) give the same bits on every processor with AVX2 and FMA. The
// digest was computed by this test on an Intel Xeon (family 6 model 207) with its AVX-512 kernel
// and again with GODEBUG=cpu.avx512f=off, equal; CI runs the test both ways. Without the kernel,
// Sgemm is gonum's, whose bits the digest does not fix.
func TestSgemmBits(t *testing.T) {
	if !simd.Kernel() {
		return
	}
	// Operands from a 64-bit LCG (Knuth's MMIX constants), full 24-bit mantissas in [−1, 1), so
	// that the digest depends on the order of the roundings and on nothing else.
	state := uint64(1)
	next := func() float32 {
		state = state*6364136223846793005 + 1442695040888963407
		return float32(int32(state>>32)) * 0x1p-31
	}
	h := fnv.New64a()
	for _, tc := range []sgemmCase{
		{blas.NoTrans, blas.NoTrans, 151, 70, 300, 1, 1, 0},
		{blas.Trans, blas.NoTrans, 53, 45, 290, 0, 0.5, 1},
		{blas.NoTrans, blas.Trans, 97, 128, 520, 3, 1.25, 0.25},
		{blas.Trans, blas.Trans, 30, 33, 17, 2, -1, -2},
	} {
		ra, ca, rb, cb := tc.m, tc.k, tc.k, tc.n
		if tc.tA == blas.Trans {
			ra, ca = ca, ra
		}
		if tc.tB == blas.Trans {
			rb, cb = cb, rb
		}
		lda, ldb, ldc := ca+tc.pad, cb+tc.pad, tc.n+tc.pad
		a, b, c := make([]float32, ra*lda), make([]float32, rb*ldb), make([]float32, tc.m*ldc)
		for _, x := range [][]float32{a, b, c} {
			for i := range x {
				x[i] = next()
			}
		}
		Implementation{}.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, c, ldc)
		var w [4]byte
		for _, v := range c {
			binary.LittleEndian.PutUint32(w[:], math.Float32bits(v))
			h.Write(w[:])
		}
	}
	const want uint64 = 0xb8ee5c7ca4cff58c
	if got := h.Sum64(); got != want {
		t.Errorf("digest of C %#x, want %#x", got, want)
	}
}

// TestSgemmRows: SgemmRows gives, bit for bit, what Sgemm gives for the matrix of the listed rows
// gathered into a matrix of their own, for lists with repeats, runs of consecutive rows (which
// its packing reads in place) and neither, edge tiles in both directions, more terms than one
// block (kc) and a padded leading dimension; CI runs it with the AVX2 kernel as well
// (GODEBUG=cpu.avx512f=off). A row outside A panics.
func TestSgemmRows(t *testing.T) {
	if !simd.Kernel() {
		if (Implementation{}).SgemmRows(1, 1, []int32{0}, []float32{1}, 1, []float32{1}, 1, make([]float32, 1), 1) {
			t.Fatal("SgemmRows computed without the micro-kernel")
		}
		return
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const aRows = 40
	lists := map[string][]int32{"consecutive": nil, "repeats": nil, "mixed": nil}
	for i := range 37 {
		lists["consecutive"] = append(lists["consecutive"], int32(i+2))
		lists["repeats"] = append(lists["repeats"], int32(rng.IntN(7)))
		if i%9 < 6 {
			lists["mixed"] = append(lists["mixed"], int32(i))
		} else {
			lists["mixed"] = append(lists["mixed"], int32(aRows-1-i%9))
		}
	}
	lists["one"] = []int32{5}
	for name, rows := range lists {
		for _, nk := range [][2]int{{16, 8}, {45, 300}, {3, 1}, {130, 257}} {
			n, k := nk[0], nk[1]
			t.Run(fmt.Sprintf("%s/n=%d/k=%d", name, n, k), func(t *testing.T) {
				lda, ldb, ldc := k+3, n+1, n+2
				a, b := make([]float32, aRows*lda), make([]float32, k*ldb)
				for _, x := range [][]float32{a, b} {
					for i := range x {
						x[i] = float32(rng.NormFloat64())
					}
				}
				m := len(rows)
				gathered := make([]float32, m*lda)
				for i, r := range rows {
					copy(gathered[i*lda:(i+1)*lda], a[int(r)*lda:])
				}
				want, got := make([]float32, m*ldc), make([]float32, m*ldc)
				Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, gathered, lda, b, ldb, 0, want, ldc)
				if !(Implementation{}).SgemmRows(n, k, rows, a, lda, b, ldb, got, ldc) {
					t.Fatal("SgemmRows did not compute")
				}
				for i := range want {
					if i%ldc < n && math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("C[%d][%d] = %v, want %v (Sgemm of the gathered rows)", i/ldc, i%ldc, got[i], want[i])
					}
				}
			})
		}
	}
	if recovered(func() {
		Implementation{}.SgemmRows(2, 2, []int32{0, 3}, make([]float32, 6), 2, make([]float32, 4), 2, make([]float32, 4), 2)
	}) == nil {
		t.Error("a row outside A did not panic")
	}
}
