package metrics

import (
	"math"
	"slices"
)

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
	// Families are what the evaluations beyond the full ranking's metrics keep: the top lists,
	// max(K) items of 4 bytes per test pair (a bound on the queries' lists) and kept τ, with
	// their decision scores (8 bytes more) for run files; a test pair's popularity weight and
	// stratified-recall row; and with the sampled evaluation its negatives.
	Families float64
}

// EvalMemoryOf estimates the memory an evaluation of resolved settings s allocates for pairs
// test pairs over a corpus of items embeddings of dim values; multiLabel says that the data is
// multi-label (Input.MultiLabel), whose PSP@K reads the top lists of the ranking as trained.
func EvalMemoryOf(s Settings, pairs, items, dim int, multiLabel bool) EvalMemory {
	adjust, metrics := float64(len(s.LogitAdjust)), float64(2*len(s.K)+1)
	ranks := float64(pairs) * adjust
	values := float64(pairs) * math.Ceil(adjust*metrics/16) * 16
	means := adjust * metrics * 4
	return EvalMemory{
		Packed:    float64(items) * float64(dim) * 4,
		Ranks:     ranks*8 + values*8,
		Resamples: math.Max(float64(s.Bootstrap), 0) * (means + 1) * 8,
		Families:  familiesMemory(&s, float64(pairs), multiLabel),
	}
}

// familiesMemory is EvalMemory.Families.
func familiesMemory(s *Settings, pairs float64, multiLabel bool) float64 {
	taus := 1.0
	switch {
	case s.Exposure == ExposureAll || s.WriteRun:
		taus = float64(len(s.LogitAdjust))
	case s.Exposure == ExposureOff && !multiLabel:
		taus = 0
	}
	perItem := 4.0
	if s.WriteRun {
		perItem += 8
	}
	kmax := 0
	if len(s.K) > 0 {
		kmax = slices.Max(s.K)
	}
	lists := pairs * float64(kmax) * taus * perItem
	strat := pairs * (8 + math.Ceil(float64(len(s.LogitAdjust)*(len(s.K)+1))/16)*16*8)
	var negatives float64
	if s.Sampled.On() {
		negatives = pairs * float64(s.Sampled.Negatives) * 4
	}
	return lists + strat + negatives
}
