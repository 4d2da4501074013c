package samplers

import "math"

// StateBytes estimates the memory a sampler of settings s keeps for a run with batches of b
// examples over a corpus of m items, beyond the step it declares: popularity's weights of every
// item, in_batch_unique's mark per item, memory's stored batches and a checkpoint's copy of them,
// and a mixture's components with its buffers; the others keep none. A registered sampler's is
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
