package metrics

import "math"

// EvalMemory is what an evaluation (Evaluate) allocates beyond its input, in bytes, part by part.
type EvalMemory struct {
	// Packed is the corpus's embeddings packed for scoring (float32).
	Packed float64
	// Ranks are the ranks and metric values of the test pairs: a rank per pair and logit
	// adjustment, and each pair's values for the bootstrap (recall and NDCG at every K and MRR per
	// logit adjustment, padded to a multiple of 16, the tally's), in float64.
	Ranks float64
	// Resamples are the bootstrap resamples, each with one mean per metric (recall and NDCG at
	// every K, and MRR), slice (all, head, torso, tail) and logit adjustment, in float64.
	Resamples float64
}

// EvalMemoryOf estimates the memory an evaluation of resolved settings s allocates for pairs
// test pairs over a corpus of items embeddings of dim values.
func EvalMemoryOf(s Settings, pairs, items, dim int) EvalMemory {
	adjust, metrics := float64(len(s.LogitAdjust)), float64(2*len(s.K)+1)
	ranks := float64(pairs) * adjust
	values := float64(pairs) * math.Ceil(adjust*metrics/16) * 16
	means := adjust * metrics * 4
	return EvalMemory{
		Packed:    float64(items) * float64(dim) * 4,
		Ranks:     ranks*8 + values*8,
		Resamples: math.Max(float64(s.Bootstrap), 0) * (means + 1) * 8,
	}
}
