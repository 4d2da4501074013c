package metrics

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/setting"
)

// NegativeKind is how the sampled evaluation draws its negatives, SampledSettings.Kind.
type NegativeKind string

// Negative kinds (see SampledSettings.Kind).
const (
	// NegativesNone: no sampled evaluation; the zero value "" means the same.
	NegativesNone NegativeKind = "none"
	// NegativesUniform draws the negatives uniformly among the items that are not the query's
	// known positives.
	NegativesUniform NegativeKind = "uniform"
	// NegativesPopularity draws them with probability ∝ their training count, so that items
	// never seen in training are never drawn.
	NegativesPopularity NegativeKind = "popularity"
)

var negativeKinds = []NegativeKind{NegativesNone, NegativesUniform, NegativesPopularity}

// UnmarshalText sets k from its name; an unknown name is an error that lists the allowed ones.
func (k *NegativeKind) UnmarshalText(b []byte) error { return setting.Unmarshal(k, b, negativeKinds) }

// Defaults of SampledSettings.
const (
	DefaultSampledNegatives = 100
	DefaultVarianceWeight   = 0.1
)

// MaxSampledNegatives bounds SampledSettings.Negatives: the corrected estimator costs
// O(items × negatives) and solves a linear system of Negatives + 1 unknowns.
const MaxSampledNegatives = 1000

// SampledSettings is the [eval.sampled] table: the sampled evaluation of Krichene & Rendle ("On
// Sampled Metrics for Item Recommendation", KDD 2020) beside the full one. Every test pair
// (x, y) gets Negatives distinct items drawn by Kind, none of them a known positive of x (its
// items in train and test) and none y, from a source seeded by the data seed and the pair, so
// that every run on the same data ranks the same candidates; y is ranked among the 1 + n
// candidates by the same decision scores and tie rule as the full ranking as trained (τ_LA = 0,
// or the smallest |τ_LA|), and the sampled rank r̃ gives HR@K (Recall@K over the candidates),
// NDCG@K and MRR, and Krichene & Rendle's corrected estimate of the full Recall@K and NDCG@K
// from r̃. The zero value evaluates nothing sampled.
type SampledSettings struct {
	// Kind is how the negatives are drawn: "uniform", "popularity" (∝ the training count), or
	// "none" (the default: no sampled evaluation).
	Kind NegativeKind `toml:"kind"`
	// Negatives is n, the negatives per test pair, in [1, 1000] and below the corpus size
	// (default DefaultSampledNegatives, with a kind).
	Negatives int `toml:"negatives"`
	// VarianceWeight is γ of Krichene & Rendle's corrected estimator (§5, the bias–variance
	// trade-off): the value of each sampled rank minimises squared bias + γ·variance over
	// true ranks equally likely; in (0, 1], 1 being the least mean squared error (the posterior
	// mean of the metric), small γ the least bias (default DefaultVarianceWeight, with a kind).
	VarianceWeight float64 `toml:"variance_weight"`
}

// On reports whether the sampled evaluation runs.
func (s *SampledSettings) On() bool { return s.Kind != "" && s.Kind != NegativesNone }

// Resolve fills the defaults in place and validates the settings.
func (s *SampledSettings) Resolve() error {
	if s.Kind == NegativesNone {
		s.Kind = ""
	}
	on := s.On()
	if on {
		setting.Default(&s.Negatives, DefaultSampledNegatives)
		setting.Default(&s.VarianceWeight, DefaultVarianceWeight)
	}
	return setting.First(
		setting.EnumFor("kind", s.Kind, negativeKinds, s.Kind != "", ""),
		setting.OnlyFor("negatives", s.Negatives != 0, on, "only used with a kind of sampled evaluation (eval.sampled.kind = %q or %q); leave it 0", NegativesUniform, NegativesPopularity),
		setting.OnlyFor("variance_weight", s.VarianceWeight != 0, on, "only used with a kind of sampled evaluation (eval.sampled.kind = %q or %q); leave it 0", NegativesUniform, NegativesPopularity),
		setting.Require("negatives", !on || (s.Negatives >= 1 && s.Negatives <= MaxSampledNegatives),
			"must be a number of negatives per test pair in [1, %d], got %d", MaxSampledNegatives, s.Negatives),
		setting.Require("variance_weight", !on || (s.VarianceWeight > 0 && s.VarianceWeight <= 1),
			"must be in (0, 1] (1: least mean squared error; small: least bias), got %v", s.VarianceWeight),
	)
}

// negativeStream is the PCG stream of the negatives of test pair p: (1<<61 | p), a stream no
// bootstrap resample, pair sample or debiased resample uses.
func negativeStream(p int) uint64 { return 1<<61 | uint64(p) }

// DrawNegatives draws the sampled evaluation's negatives of every pair (see SampledSettings):
// out[p] holds n distinct items, ascending, none of them pairs[p].Item or one of known[q] (the
// query's known positives, ascending and distinct; nil for none), drawn uniformly (kind
// uniform) or with probability ∝ counts[j] (kind popularity), one after the other without
// replacement. Pair p draws from a PCG seeded with (seed, 1<<61 | p), so the draws do not
// depend on the other pairs or on the number of workers. It is an error, naming
// eval.sampled.negatives, when a pair has fewer than n items to draw from.
func DrawNegatives(ctx context.Context, pairs []Pair, known [][]int32, counts []int64, m int, kind NegativeKind, n int, seed int64, workers int) ([][]int32, error) {
	d := drawer{m: m, n: n}
	if kind == NegativesPopularity {
		if len(counts) != m {
			return nil, fmt.Errorf("metrics: popularity negatives need the training count of each of the %d items, got %d", m, len(counts))
		}
		d.counts, d.cum = counts, make([]int64, m+1)
		for j, c := range counts {
			d.cum[j+1] = d.cum[j] + c
			if c > 0 {
				d.seen++
			}
		}
	}
	out := make([][]int32, len(pairs))
	err := parallel.Each(ctx, len(pairs), max(1, workers), func(_, p int) error {
		var ex []int32
		if known != nil {
			ex = known[pairs[p].Query]
		}
		rng := rand.New(rand.NewPCG(uint64(seed), negativeStream(p)))
		neg, err := d.draw(rng, pairs[p].Item, ex)
		if err != nil {
			return fmt.Errorf("eval.sampled.negatives: test pair %d (query %d, item %d): %w", p, pairs[p].Query, pairs[p].Item, err)
		}
		out[p] = neg
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// drawer draws one pair's negatives: n of m items, uniformly (cum nil) or ∝ counts, whose
// prefix sums cum has (cum[j] = Σ_{i<j} counts[i]); seen items have a positive count.
type drawer struct {
	m, n   int
	counts []int64
	cum    []int64
	seen   int
}

// draw draws n distinct items other than y and the sorted known items. Draws are by rejection
// while that is cheap; a pair whose excluded items leave little to draw from (rejection would
// loop) draws from the list of the items left instead, with the same law.
func (d *drawer) draw(rng *rand.Rand, y int32, known []int32) ([]int32, error) {
	excluded := func(j int32) bool {
		_, ok := slices.BinarySearch(known, j)
		return ok || j == y
	}
	// The items left to draw from and, for popularity, their mass.
	left, total, mass := d.m, int64(0), int64(0)
	if d.cum != nil {
		left, total = d.seen, d.cum[d.m]
		mass = total
	}
	remove := func(j int32) {
		if d.cum == nil {
			left--
		} else if c := d.counts[j]; c > 0 {
			left--
			mass -= c
		}
	}
	for _, j := range known {
		remove(j)
	}
	if _, ok := slices.BinarySearch(known, y); !ok {
		remove(y)
	}
	if left < d.n {
		what := "items that are neither the pair's item nor a known positive of its query"
		if d.cum != nil {
			what = "such items with a training count (popularity negatives draw no item unseen in training)"
		}
		return nil, fmt.Errorf("%d negatives asked, and the corpus of %d items has %d %s", d.n, d.m, left, what)
	}
	out := make([]int32, 0, d.n)
	drawn := make(map[int32]bool, d.n)
	// Rejection: an accepted draw has probability at least 1/4 while at least half of the
	// items (or of the mass) are left to draw.
	cheap := 4*d.n <= left && 2*left >= d.m
	if d.cum != nil {
		cheap = 4*d.n <= left && 2*mass >= total
	}
	for tries := 0; cheap && len(out) < d.n && tries <= 64*d.n+1024; tries++ {
		var j int32
		if d.cum == nil {
			j = int32(rng.IntN(d.m))
		} else {
			u := rng.Int64N(total)
			i, _ := slices.BinarySearch(d.cum, u+1) // the first i with cum[i] > u: item i-1
			j = int32(i - 1)
		}
		if !excluded(j) && !drawn[j] {
			drawn[j] = true
			out = append(out, j)
		}
	}
	if len(out) < d.n {
		// The items left, without the ones already drawn, then successive draws without
		// replacement from them.
		var pool []int32
		var w []int64
		var sum int64
		for j := range int32(d.m) {
			if excluded(j) || drawn[j] || (d.cum != nil && d.counts[j] == 0) {
				continue
			}
			pool = append(pool, j)
			if d.cum != nil {
				w = append(w, d.counts[j])
				sum += d.counts[j]
			}
		}
		for len(out) < d.n {
			var i int
			if d.cum == nil {
				i = rng.IntN(len(pool))
			} else {
				u := rng.Int64N(sum)
				for i = 0; u >= w[i]; i++ {
					u -= w[i]
				}
				sum -= w[i]
				w[i] = w[len(w)-1]
				w = w[:len(w)-1]
			}
			out = append(out, pool[i])
			pool[i] = pool[len(pool)-1]
			pool = pool[:len(pool)-1]
		}
	}
	slices.Sort(out)
	return out, nil
}

// sampledRanks returns the rank of every pair's item among itself and its negatives under τ k:
// 1 + the number of negatives whose decision score x̂ (the full ranking's, see Ties) is at
// least the item's, ties counting against the item.
func (r *ranker) sampledRanks(negatives [][]int32, k, workers int) []int32 {
	np := len(r.pair)
	out := make([]int32, np)
	parallel.Split(np, parallel.Parts(np*len(negatives[0])*r.d, 1<<16, workers), func(_, lo, hi int) {
		for p := lo; p < hi; p++ {
			pr := r.pair[p]
			y := r.decision(pr.Query, pr.Item, k)
			rank := int32(1)
			for _, j := range negatives[p] {
				if r.decision(pr.Query, j, k) >= y {
					rank++
				}
			}
			out[p] = rank
		}
	})
	return out
}
