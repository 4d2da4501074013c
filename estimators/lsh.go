package estimators

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// lsh keys embeddings (docs/streaming-estimator.md §8) and feeds the keys to its inner
// streaming or multihash estimator.
type lsh struct {
	Estimator
	dim, bins int
	planes    []float64 // projections × dim, row-major; every row has unit norm
}

func newLSH(inner Estimator, l LSHSettings, dim int, seed int64) (*lsh, error) {
	if dim < 1 {
		return nil, fmt.Errorf("estimators: kind lsh needs Env.EmbeddingDim > 0, got %d", dim)
	}
	rng := rand.New(rand.NewPCG(subSeed(seed, -1), subSeed(seed, -2)))
	planes := make([]float64, l.Projections*dim)
	for j := 0; j < l.Projections; j++ {
		row := planes[j*dim : (j+1)*dim]
		var n2 float64
		for i := range row {
			row[i] = rng.NormFloat64()
			n2 += row[i] * row[i]
		}
		n := math.Sqrt(n2)
		for i := range row {
			row[i] /= n
		}
	}
	return &lsh{Estimator: inner, dim: dim, bins: l.Bins, planes: planes}, nil
}

// Keys appends to dst[:0] the key of each row of emb (n×dim, row-major) and returns it. The key of
// a row x is Σ_j c_j·bins^(P-1-j) where c_j ∈ [0, bins) is the bin of ⟨x/‖x‖, w_j⟩ among bins equal
// bins of [-1, 1] and w_j is the j-th of P seeded Gaussian directions of unit norm. (Bucketing
// against the bin centres, as torch.bucketize does in some implementations, instead gives bins+1
// values with half-width end bins.)
// A zero row has all projections 0. Keys panics if dim is not Env.EmbeddingDim or len(emb) is not a
// multiple of dim (a programming error). It does not allocate when cap(dst) suffices and is safe
// for concurrent use.
func (l *lsh) Keys(dst []uint64, emb []float32, dim int) []uint64 {
	if dim != l.dim || len(emb)%dim != 0 {
		panic(fmt.Sprintf("estimators: Keys of %d values in rows of %d, want rows of %d", len(emb), dim, l.dim))
	}
	dst = dst[:0]
	half := float64(l.bins) / 2
	for r := 0; r < len(emb); r += dim {
		x := emb[r : r+dim]
		var n2 float64
		for _, v := range x {
			n2 += float64(v) * float64(v)
		}
		inv := 0.0
		if n2 > 0 {
			inv = 1 / math.Sqrt(n2)
		}
		var key uint64
		for p := 0; p < len(l.planes); p += dim {
			w := l.planes[p : p+dim]
			var z float64
			for i, v := range x {
				z += float64(v) * w[i]
			}
			c := int((z*inv + 1) * half)
			c = min(max(c, 0), l.bins-1)
			key = key*uint64(l.bins) + uint64(c)
		}
		dst = append(dst, key)
	}
	return dst
}
