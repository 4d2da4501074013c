package prob

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// bruteInclusion enumerates every ordered sample of k distinct items, each with its probability
// under successive sampling, Π_j w_{s_j}/(W − w_{s_1} − … − w_{s_{j−1}}), and sums them by item.
func bruteInclusion(w []float64, k int) []float64 {
	pi := make([]float64, len(w))
	taken := make([]bool, len(w))
	var draw func(depth int, prob float64)
	draw = func(depth int, prob float64) {
		if depth == k {
			for i, t := range taken {
				if t {
					pi[i] += prob
				}
			}
			return
		}
		rest := 0.0 // summed, not subtracted, so that tiny weights keep their digits
		for i, v := range w {
			if !taken[i] {
				rest += v
			}
		}
		for i, v := range w {
			if taken[i] || v == 0 {
				continue
			}
			taken[i] = true
			draw(depth+1, prob*v/rest)
			taken[i] = false
		}
	}
	draw(0, 1)
	return pi
}

// zipfCounts is n integer popularity counts ⌈c/i^a⌉: ties among the light items, as in the
// training counts of a long-tailed corpus.
func zipfCounts(n int, c, a float64) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = math.Ceil(c / math.Pow(float64(i+1), a))
	}
	return w
}

// TestSuccessiveBruteForce: on every weight vector of up to six items below (skewed, tied, with
// zero weights) and every k, π equals the enumeration of all ordered samples within the stated
// accuracy.
func TestSuccessiveBruteForce(t *testing.T) {
	for _, w := range [][]float64{
		{1, 2},
		{5, 1, 1},
		{1, 2, 3, 4},
		{100, 1, 1, 1, 0.01},
		{3, 3, 1, 1, 1, 7},
		{1000, 30, 30, 2, 0, 1},
		{0.001, 0.002, 0.004, 0.008, 0.016, 1000},
		{1, 1e-9, 1e-9, 2, 2, 2},
	} {
		positive := 0
		for _, v := range w {
			if v > 0 {
				positive++
			}
		}
		for k := 1; k <= positive; k++ {
			t.Run(fmt.Sprintf("%v/k=%d", w, k), func(t *testing.T) {
				got, err := SuccessiveInclusion(w, k)
				if err != nil {
					t.Fatal(err)
				}
				want := bruteInclusion(w, k)
				for i := range w {
					if math.Abs(got[i]-want[i]) > SuccessiveAccuracy {
						t.Errorf("π_%d = %.15g, enumeration %.15g", i, got[i], want[i])
					}
				}
			})
		}
	}
}

// TestSuccessiveUniform: equal weights give π = k/M exactly (items of weight 0 aside), and k = M
// gives 1.
func TestSuccessiveUniform(t *testing.T) {
	for _, c := range []struct {
		w []float64
		k int
	}{
		{[]float64{2, 2, 2, 2, 2, 2, 2}, 3},
		{[]float64{0.5, 0, 0.5, 0.5, 0}, 2},
		{make([]float64, 100000), 256},
		{[]float64{1, 3, 0, 2}, 3},
	} {
		if c.w[0] == 0 {
			for i := range c.w {
				c.w[i] = 1
			}
		}
		got, err := SuccessiveInclusion(c.w, c.k)
		if err != nil {
			t.Fatal(err)
		}
		positive := 0
		for _, v := range c.w {
			if v > 0 {
				positive++
			}
		}
		uniform := true
		for _, v := range c.w {
			uniform = uniform && (v == 0 || v == c.w[0])
		}
		for i, v := range c.w {
			want := float64(c.k) / float64(positive)
			switch {
			case v == 0:
				want = 0
			case !uniform && c.k < positive:
				continue
			}
			if got[i] != want {
				t.Errorf("w = %v…, k = %d: π_%d = %v, want %v", c.w[:min(len(c.w), 8)], c.k, i, got[i], want)
				break
			}
		}
	}
}

// TestSuccessiveClosedForms: k = 1 is the first draw, π_i = w_i/W; k = 2 adds the second,
// π_i = w_i/W + Σ_{j≠i} (w_j/W)·w_i/(W − w_j); on 300 Zipf counts (ties) and 300 distinct
// weights spanning eight decades.
func TestSuccessiveClosedForms(t *testing.T) {
	distinct := make([]float64, 300)
	for i := range distinct {
		distinct[i] = math.Pow(10, 8*float64(i)/299)
	}
	for name, w := range map[string][]float64{"counts": zipfCounts(300, 5000, 1.1), "distinct": distinct} {
		total := 0.0
		for _, v := range w {
			total += v
		}
		one, err := SuccessiveInclusion(w, 1)
		if err != nil {
			t.Fatal(err)
		}
		two, err := SuccessiveInclusion(w, 2)
		if err != nil {
			t.Fatal(err)
		}
		for i, wi := range w {
			second := 0.0
			for j, wj := range w {
				if j != i {
					second += wj / total * wi / (total - wj)
				}
			}
			if math.Abs(one[i]-wi/total) > SuccessiveAccuracy || math.Abs(two[i]-(wi/total+second)) > SuccessiveAccuracy {
				t.Errorf("%s: item %d: π = %.15g (k = 1), %.15g (k = 2); want %.15g, %.15g", name, i, one[i], two[i], wi/total, wi/total+second)
				break
			}
		}
	}
}

// TestSuccessiveSum: Σ_i π_i = k, every π_i ∈ [0, 1] and π non-decreasing in the weight, on 5000
// Zipf counts for several k, from one to nearly all of the items.
func TestSuccessiveSum(t *testing.T) {
	w := zipfCounts(5000, 20000, 1.2)
	for _, k := range []int{1, 7, 64, 700, 4990} {
		pi, err := SuccessiveInclusion(w, k)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for i, v := range pi {
			sum += v
			if v < 0 || v > 1 || (i > 0 && w[i] < w[i-1] && v > pi[i-1]) {
				t.Fatalf("k = %d: π_%d = %v (π_%d = %v)", k, i, v, i-1, pi[max(i-1, 0)])
			}
		}
		if math.Abs(sum-float64(k)) > float64(len(w))*SuccessiveAccuracy {
			t.Errorf("k = %d: Σπ = %.12g", k, sum)
		}
	}
}

// TestSuccessiveMonteCarlo draws 10⁶ samples of k = 8 from 30 skewed weights (ties among them)
// by the definition — k successive draws, each proportional to weight among the items not yet
// drawn — and requires every item's inclusion frequency within 3 standard errors of π. The same
// check on the naive k·w_i/Σw, which treats the draws as independent, fails: the heavy items'
// naive values are far above their inclusion probabilities (above 1 for the heaviest).
func TestSuccessiveMonteCarlo(t *testing.T) {
	w := zipfCounts(30, 1000, 1.5)
	const k, draws = 8, 1_000_000
	pi, err := SuccessiveInclusion(w, k)
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, v := range w {
		total += v
	}
	rng := rand.New(rand.NewPCG(3, 17))
	counts := make([]int, len(w))
	rest := make([]float64, len(w))
	for range draws {
		copy(rest, w)
		left := total
		for range k {
			u := rng.Float64() * left
			i := 0
			for ; i < len(rest)-1; i++ {
				if u < rest[i] {
					break
				}
				u -= rest[i]
			}
			for rest[i] == 0 { // rounding at the end of the walk
				i--
			}
			counts[i]++
			left -= rest[i]
			rest[i] = 0
		}
	}
	within := func(p []float64) (bad []string) {
		for i, c := range counts {
			freq := float64(c) / draws
			se := math.Sqrt(math.Max(p[i]*(1-p[i]), 1e-12) / draws)
			if math.Abs(freq-p[i]) > 3*se {
				bad = append(bad, fmt.Sprintf("item %d: frequency %.5f, π %.5f (%.1f SE)", i, freq, p[i], math.Abs(freq-p[i])/se))
			}
		}
		return bad
	}
	if bad := within(pi); len(bad) > 0 {
		t.Errorf("exact π outside 3 SE:\n%s", strings.Join(bad, "\n"))
	}
	naive := make([]float64, len(w))
	for i, v := range w {
		naive[i] = k * v / total
	}
	if bad := within(naive); len(bad) == 0 {
		t.Error("the naive k·w/Σw passed the check it must fail")
	} else {
		t.Logf("naive k·w/Σw: %d of %d items outside 3 SE, e.g. %s", len(bad), len(w), bad[0])
	}
}

// TestSuccessiveErrors: bad weights and impossible sample sizes are one error each; k = 0 draws
// nothing.
func TestSuccessiveErrors(t *testing.T) {
	for _, c := range []struct {
		w    []float64
		k    int
		want string
	}{
		{[]float64{1, -1}, 1, "prob: weight 1 is -1; weights must be finite and ≥ 0"},
		{[]float64{1, math.NaN()}, 1, "prob: weight 1 is NaN; weights must be finite and ≥ 0"},
		{[]float64{math.Inf(1), 1}, 1, "prob: weight 0 is +Inf; weights must be finite and ≥ 0"},
		{[]float64{1, 0, 2}, 3, "prob: cannot draw k = 3 items without replacement from 2 items of positive weight"},
		{[]float64{1, 2}, -1, "prob: cannot draw k = -1 items"},
	} {
		if _, err := SuccessiveInclusion(c.w, c.k); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("SuccessiveInclusion(%v, %d) = %v, want %q", c.w, c.k, err, c.want)
		}
	}
	pi, err := SuccessiveInclusion([]float64{1, 2}, 0)
	if err != nil || pi[0] != 0 || pi[1] != 0 {
		t.Errorf("k = 0: %v, %v", pi, err)
	}
}

// BenchmarkSuccessiveInclusion: k = 256 of M = 100,000 items with Zipf popularity counts
// ⌈10⁶/i⌉ (ties among the light items, the workbench's case), and of M = 10,000 distinct Zipf
// weights 1/i (no ties, the costliest case: a node's cost grows as M·k).
func BenchmarkSuccessiveInclusion(b *testing.B) {
	const k = 256
	distinct := make([]float64, 10_000)
	for i := range distinct {
		distinct[i] = 1 / float64(i+1)
	}
	for _, c := range []struct {
		name string
		w    []float64
	}{{"counts_100000", zipfCounts(100_000, 1e6, 1)}, {"distinct_10000", distinct}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				if _, err := SuccessiveInclusion(c.w, k); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
