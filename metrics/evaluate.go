package metrics

import (
	"fmt"
	"math"
	"slices"
)

// Pair is a test pair: Query indexes a row of Input.U, Item a row of Input.V.
type Pair struct{ Query, Item int32 }

// Input is what Evaluate ranks: embeddings, test pairs and per-item data.
type Input struct {
	// U and V are the row-major query (N×Dim) and item (M×Dim) embeddings; score(x, y) = U[x]·V[y].
	U, V []float32
	Dim  int
	// Pairs are the test pairs; a query may appear in several.
	Pairs []Pair
	// Exclude lists, per query row, the items dropped from its ranking when Settings.Filter is
	// set (nil = none); when Filter is set, Exclude must have N rows (a row may be empty). The
	// pair's own item is never dropped. Ignored when Filter is not set.
	Exclude [][]int32
	// ItemSlice is the slice of every item (nil = report the "all" slice only).
	ItemSlice []Slice
	// LogPrior is log π of every item, finite; needed when Settings.LogitAdjust has a non-zero τ
	// and ignored otherwise.
	LogPrior []float64
}

// Result is one number of an evaluation.
type Result struct {
	Tau    float64 // post-hoc logit-adjustment tau (0 = none)
	Slice  string  // "all", "head", "torso", "tail"
	Metric string  // "recall", "ndcg", "mrr"
	K      int     // 0 for mrr
	// Value is the mean over the slice's test pairs; Lo and Hi bound its bootstrap 95%
	// percentile interval (Lo = Hi = Value when Settings.Bootstrap is -1).
	Value, Lo, Hi float64
	// Pairs and Items are the slice sizes: test pairs whose item is in the slice, and corpus
	// items in the slice.
	Pairs, Items int
}

// Evaluate ranks the whole corpus for every test pair and returns Recall@K and NDCG@K for every K
// of s and MRR, for every τ of s.LogitAdjust, over all pairs and per slice of the pair's item,
// with bootstrap 95% intervals drawn from a source seeded by seed. s is resolved on a copy, so the
// zero value works.
//
// Results come grouped by τ (in s.LogitAdjust order), then slice ("all", "head", "torso",
// "tail"; a slice with no test pair is left out, and only "all" is reported when
// in.ItemSlice is nil), then metric: recall for each K (in s.K order), ndcg for each K, mrr.
func Evaluate(in Input, s Settings, seed int64) ([]Result, error) {
	if err := s.Resolve(); err != nil {
		return nil, fmt.Errorf("metrics: eval settings: %w", err)
	}
	r, err := newRanker(in, &s)
	if err != nil {
		return nil, err
	}
	if err := r.run(newBackend(in.U, in.V, in.Dim, s.Workers), s.Workers); err != nil {
		return nil, err
	}
	return summarize(r.ranks, in.Pairs, in.ItemSlice, r.m, &s, seed), nil
}

// checkInput validates everything Evaluate reads; s must be resolved.
func checkInput(in *Input, s *Settings) error {
	d := in.Dim
	if d < 1 {
		return fmt.Errorf("metrics: Dim must be positive, got %d", d)
	}
	if len(in.U)%d != 0 || len(in.V)%d != 0 {
		return fmt.Errorf("metrics: len(U) = %d and len(V) = %d must be multiples of Dim = %d", len(in.U), len(in.V), d)
	}
	n, m := len(in.U)/d, len(in.V)/d
	if m == 0 {
		return fmt.Errorf("metrics: no items (V is empty)")
	}
	if m > math.MaxInt32 {
		return fmt.Errorf("metrics: %d items, more than an int32 index allows", m)
	}
	if i := slices.IndexFunc(in.U, notFinite32); i >= 0 {
		return fmt.Errorf("metrics: U[%d][%d] = %v is not finite", i/d, i%d, in.U[i])
	}
	if i := slices.IndexFunc(in.V, notFinite32); i >= 0 {
		return fmt.Errorf("metrics: V[%d][%d] = %v is not finite", i/d, i%d, in.V[i])
	}
	if len(in.Pairs) == 0 {
		return fmt.Errorf("metrics: no test pairs")
	}
	for i, p := range in.Pairs {
		if p.Query < 0 || int(p.Query) >= n || p.Item < 0 || int(p.Item) >= m {
			return fmt.Errorf("metrics: Pairs[%d] = (%d, %d) out of range: %d queries, %d items", i, p.Query, p.Item, n, m)
		}
	}
	if in.ItemSlice != nil {
		if len(in.ItemSlice) != m {
			return fmt.Errorf("metrics: len(ItemSlice) = %d, want %d items", len(in.ItemSlice), m)
		}
		if j := slices.IndexFunc(in.ItemSlice, func(s Slice) bool { return s > Tail }); j >= 0 {
			return fmt.Errorf("metrics: ItemSlice[%d] = %v is not head, torso or tail", j, in.ItemSlice[j])
		}
	}
	if s.needsPrior() {
		if len(in.LogPrior) != m {
			return fmt.Errorf("metrics: logit_adjust has a non-zero tau, so LogPrior needs %d items, got %d", m, len(in.LogPrior))
		}
		for j, lp := range in.LogPrior {
			if math.IsNaN(lp) || math.IsInf(lp, 0) {
				return fmt.Errorf("metrics: LogPrior[%d] = %v is not finite", j, lp)
			}
		}
	}
	if s.Filter {
		if len(in.Exclude) != n {
			return fmt.Errorf("metrics: filter is set, so Exclude needs %d query rows, got %d", n, len(in.Exclude))
		}
		for q, ex := range in.Exclude {
			for i, j := range ex {
				if j < 0 || int(j) >= m {
					return fmt.Errorf("metrics: Exclude[%d][%d] = %d out of range: %d items", q, i, j, m)
				}
			}
		}
	}
	return nil
}

func notFinite32(x float32) bool { return math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) }

// adjustments returns, per τ, the float32 term -τ·log π(j) added to every score (nil for τ = 0).
func adjustments(taus, logPrior []float64) ([][]float32, error) {
	out := make([][]float32, len(taus))
	for k, t := range taus {
		if t == 0 {
			continue
		}
		b := make([]float32, len(logPrior))
		for j, lp := range logPrior {
			b[j] = float32(-t * lp)
			if notFinite32(b[j]) {
				return nil, fmt.Errorf("metrics: logit adjustment -%v·LogPrior[%d] = %v overflows float32", t, j, -t*lp)
			}
		}
		out[k] = b
	}
	return out, nil
}
