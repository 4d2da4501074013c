package estimators

import (
	"fmt"
	"math"
	"unsafe"
)

// Estimator estimates p̂(y): the probability that item y appears in a training batch (step).
type Estimator interface {
	// Observe records the items of the batch at global step t (t >= 1, non-decreasing).
	// For the streaming kinds an item present several times in items is one observation for that
	// step; the exact kind counts occurrences (it estimates the per-example frequency).
	Observe(t int64, items []uint64)
	// Prob returns p̂(item) in (0, 1].
	Prob(item uint64) float64
}

// EmbeddingKeyer is implemented by the lsh estimator: items passed to Observe/Prob are keys
// computed from embeddings.
type EmbeddingKeyer interface {
	Estimator
	// Keys appends to dst[:0] the key of each row of emb (n×dim, row-major) and returns it.
	Keys(dst []uint64, emb []float32, dim int) []uint64
}

// LogProbs fills dst[i] = log p̂(items[i]) (len(dst) == len(items)).
func LogProbs(e Estimator, items []uint64, dst []float64) {
	for i, y := range items {
		dst[i] = math.Log(e.Prob(y))
	}
}

// StateBytes is the memory, in bytes, of the state the estimator of s (resolved here; s is a
// copy) keeps for a corpus of items items, doubled for the copy MarshalBinary makes of it, which
// training holds while it writes a checkpoint: the buckets of streaming, multihash and lsh
// (16 bytes each: the last arrival and the gap), the online exact estimator's counts (8 bytes an
// item). The unigram and static exact estimators read Env.Counts and keep nothing of their own;
// lsh's projections (Projections × dim float64) are left out.
func StateBytes(s Settings, items int) (float64, error) {
	if err := s.Resolve(); err != nil {
		return 0, err
	}
	switch {
	case s.Kind == KindExact && s.Mode == ModeOnline:
		return 2 * 8 * float64(items), nil
	case s.Kind == KindExact || s.Kind == KindUnigram:
		return 0, nil
	}
	return 2 * float64(unsafe.Sizeof(cell{})) * float64(s.Buckets), nil
}

// New builds the estimator of s (resolved here; s is a copy) for the data env; seed seeds the
// hashes and the lsh projections. The lsh kind returns an EmbeddingKeyer.
func New(s Settings, env Env, seed int64) (Estimator, error) {
	if err := s.Resolve(); err != nil {
		return nil, err
	}
	if env.BatchSize < 1 {
		return nil, fmt.Errorf("estimators: Env.BatchSize must be at least 1, got %d", env.BatchSize)
	}
	if env.CorpusSize < 0 {
		return nil, fmt.Errorf("estimators: Env.CorpusSize must not be negative, got %d", env.CorpusSize)
	}
	switch s.Kind {
	case KindExact, KindUnigram:
		return newTable(s, env)
	}
	c, err := newSketchConfig(s, env, seed)
	if err != nil {
		return nil, err
	}
	var e Estimator
	if s.Concurrent {
		e = newAtomicSketch(c)
	} else {
		e = newSketch(c)
	}
	if s.Kind == KindLSH {
		return newLSH(e, s.LSH, env.EmbeddingDim, seed)
	}
	return e, nil
}
