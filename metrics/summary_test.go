package metrics

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestTallySum checks tally.sum, which adds zeros instead of branching on the rank, 16 values at a
// time, against the sums of adding each drawn pair's values one by one only where rank ≤ K, bit
// for bit, over random draws of pairs whose ranks fall on, next to and far from the cut-offs
// (given in no particular order), with three τ (more values than one block of 16).
func TestTallySum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ks := []int{50, 1, 10, 300}
	const nt, np = 3, 200
	ranks := make([]int32, nt*np) // per τ k and pair p at ranks[k*np+p], as summarize gets them
	for i := range ranks {
		switch r := int32(rng.IntN(3)); r {
		case 0, 1: // on a cut-off, or one past it
			ranks[i] = int32(ks[rng.IntN(len(ks))]) + r
		default:
			ranks[i] = 1 + int32(rng.IntN(1000))
		}
	}
	tl := rankTally(ks, make([]float64, nt), np, ranks)
	w := tl.width()
	draws := make([]int32, 5000)
	want := make([]float64, nt*w)
	for d := range draws {
		p := int32(rng.IntN(np))
		draws[d] = p
		for k := range nt {
			r := ranks[k*np+int(p)]
			for i, K := range ks {
				if int(r) <= K {
					want[k*w+i]++
					want[k*w+len(ks)+i] += 1 / math.Log2(float64(r)+1)
				}
			}
			want[k*w+2*len(ks)] += 1 / float64(r)
		}
	}
	got := make([]float64, nt*w)
	tl.sum(got, draws)
	for j := range got {
		if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
			t.Errorf("sum %d = %v, want %v", j, got[j], want[j])
		}
	}
}

// BenchmarkBootstrap measures the intervals of the main job's evaluation (configs/wiki.toml):
// 11,977 test pairs in four slices (all, head, torso, tail), five logit-adjustment strengths,
// K = 10, 50, 100, 300, 1,000 resamples; it reports resampled pairs per second.
func BenchmarkBootstrap(b *testing.B) {
	const np, m = 11977, 4604
	s := Settings{K: []int{10, 50, 100, 300}, LogitAdjust: []float64{-1, -0.5, 0, 0.5, 1}, Bootstrap: 1000}
	if err := s.Resolve(); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	pairs := make([]Pair, np)
	itemSlice := make([]Slice, m)
	for j := range itemSlice {
		itemSlice[j] = []Slice{SliceHead, SliceTorso, SliceTail}[j%3]
	}
	for p := range pairs {
		pairs[p] = Pair{Query: int32(p), Item: int32(rng.IntN(m))}
	}
	// Log-uniform ranks in [1, m], as a trained model's are spread: about a quarter within 10,
	// two thirds within 300.
	ranks := make([]int32, len(s.LogitAdjust)*np)
	for i := range ranks {
		ranks[i] = int32(math.Pow(m, rng.Float64()))
	}
	for b.Loop() {
		if _, err := summarize(context.Background(), ranks, pairs, itemSlice, m, &s, 1); err != nil {
			b.Fatal(err)
		}
	}
	// Every resample of each of the four groups draws as many pairs as the group has: 2·np.
	b.ReportMetric(float64(2*np*s.Bootstrap)*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
}

// TestIntN checks the bootstrap's index draw against math/rand/v2 from the same PCG state
// (Uint64N, the reduction IntN calls, so that sizes past int's range are covered): the same
// numbers, for sizes that are powers of two, odd, the main job's 11,977 test pairs, and one just
// above 2⁶³ (about half of whose draws are rejected and drawn again).
func TestIntN(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 7, 1 << 20, 11977, 1<<63 + 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			src, ref := rand.NewPCG(5, n), rand.NewPCG(5, n)
			std := rand.New(ref)
			for d := range 100_000 {
				want := uint64(std.Uint64N(n))
				if got := uint64(intN(src, n)); got != want {
					t.Fatalf("draw %d: %d, want %d", d, got, want)
				}
			}
		})
	}
}
