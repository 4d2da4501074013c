package selectk

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKthLargest: the selection gives the k-th largest of every k, duplicates included.
func TestKthLargest(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for range 200 {
		n := 1 + rng.IntN(50)
		xs := make([]float32, n)
		for i := range xs {
			xs[i] = float32(rng.IntN(12))
		}
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		k := 1 + rng.IntN(n)
		if got := KthLargest(slices.Clone(xs), k); got != sorted[n-k] {
			t.Fatalf("%v: %d-th largest %v, want %v", xs, k, got, sorted[n-k])
		}
	}
}
