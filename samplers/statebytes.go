package samplers

import "math"

// StateBytes estimates the memory a sampler of settings s keeps for a run with batches of b
// examples over a corpus of m items, beyond the step it declares: popularity's weights of every
// item, in_batch_unique's mark per item, memory's stored batches and a checkpoint's copy of them,
// the weights, inclusion probabilities and trees of the samplers without replacement (and of
// hard's uniform pool), the buffers of hard and sce (the towers' outputs they read are the
// model's), and a mixture's components with its buffers; the others keep none. A registered sampler's is
// not known and counts 0.
func StateBytes(s Settings, b, m int) (float64, error) {
	if err := s.Resolve(); err != nil {
		return 0, err
	}
	items, batch := float64(m), float64(b)
	switch s.Kind {
	case KindPopularity:
		return 16 * items, nil // count^β and its cumulative sums, float64
	case KindInBatchUnique:
		return 8*items + 4*batch, nil // the step each item was last seen at; the step's distinct items
	case KindMemory:
		return 2 * 4 * float64(s.MemoryBatches) * batch, nil // the stored positives, and a checkpoint's copy
	case KindUniformWithoutReplacement, KindPopularityWithoutReplacement:
		return withoutReplacementBytes(items), nil
	case KindHard:
		if s.Pool == PoolUniform { // the pool's draws, its items and the rows' positives, a row's scores
			pool := float64(s.PoolSize)
			return withoutReplacementBytes(items) + 4*(pool+batch) + 12*pool, nil
		}
		return 8*items + 16*batch, nil // the step each item joined the pool at; the pool, a row's scores
	case KindSCE: // every item's id, a bucket's projections and order, the buckets' items, per row its best
		n := math.Max(items, batch)
		return 4*items + 12*n + 4*float64(s.Buckets*s.Negatives) + 12*batch, nil
	case KindMixture:
		total := 0.0
		for _, o := range s.Of {
			x, err := StateBytes(o, b, m)
			if err != nil {
				return 0, err
			}
			total += x
		}
		smp, err := newKind(s)
		if err != nil {
			return 0, err
		}
		sh := smp.Shape()
		rows := float64(sh.ItemRows(sh.Rows(b), m))
		n := math.Min(rows, items) // the step's distinct items
		// The components' own rows and the step's (int32), the lister's slot per item, and per
		// distinct item its first row and index, the two components' log q and log p, and a
		// component's declaration of it (its row, item, log q and log p).
		return total + 4*3*rows + 4*items + 72*n, nil
	}
	return 0, nil
}

// withoutReplacementBytes is the state of a sampler without replacement over m items: each item's
// weight, inclusion probability, two Fenwick trees and the step it was last drawn at.
func withoutReplacementBytes(m float64) float64 { return 40 * m }
