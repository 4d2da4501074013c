package metrics

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/samplingbias/workbench/internal/progress"
	"github.com/samplingbias/workbench/internal/simd"
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
	// Counts is the training count of every item, at least 0. nil leaves out the metrics that
	// need it: popularity-stratified recall, the debiased test set, exposure, the
	// propensity-scored metrics and popularity negatives (Settings.Sampled.Kind "popularity"
	// is then an error).
	Counts []int64
	// MultiLabel marks multi-label data, whose queries are examples and items their labels:
	// PSP@K and PSRecall@K (Settings.Propensity) are evaluated, over the queries, with
	// TrainQueries training examples.
	MultiLabel   bool
	TrainQueries int
	// Known lists, per query row, its known positives in train and test, ascending and
	// distinct: the items the sampled evaluation never draws as negatives. Needed (N rows)
	// with Settings.Sampled.
	Known [][]int32
	// TestSeed seeds what every run on the same data shares, so that they are compared on the
	// same test: the sampled evaluation's negatives and the debiased test set.
	TestSeed int64
}

// Result is one number of an evaluation.
type Result struct {
	Tau    float64 // post-hoc logit-adjustment tau (0 = none)
	Slice  Slice   // SliceAll, SliceHead, SliceTorso, SliceTail
	Metric Metric  // MetricRecall, MetricNDCG, MetricMRR
	K      int     // 0 for mrr
	// Value is the mean over the slice's test pairs; Lo and Hi bound its bootstrap 95%
	// percentile interval (Lo = Hi = Value when Settings.Bootstrap is -1).
	Value, Lo, Hi float64
	// Pairs and Items are the slice sizes: test pairs whose item is in the slice (the evaluated
	// ones: the sample's, under Settings.MaxPairs), and corpus items in the slice.
	Pairs, Items int
	// TestPairs is the number of the slice's test pairs before sampling (= Pairs when every
	// pair is evaluated).
	TestPairs int
	// Test is the test set: the natural one (TestNatural, omitted in JSON) or the debiased
	// resample (TestDebiased).
	Test TestSet `json:",omitempty"`
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
	return EvaluateContext(context.Background(), in, s, seed, nil)
}

// EvaluateContext is Evaluate that stops, returning ctx.Err(), within one tile of scoring or one
// bootstrap resample of ctx being done, and reports its progress to w (nil discards it): a live
// bar with pairs/s and ETA when w is a terminal, else a plain line at most every
// s.LogSeconds and one at the end.
func EvaluateContext(ctx context.Context, in Input, s Settings, seed int64, w io.Writer) ([]Result, error) {
	ev, err := EvaluateAll(ctx, in, s, seed, w)
	if err != nil {
		return nil, err
	}
	return ev.Results, nil
}

// samplePairs returns the test pairs an evaluation ranks: SamplePairs' seeded sample of at most
// maxPairs, or all of them.
func samplePairs(pairs []Pair, itemSlice []Slice, maxPairs int, seed int64) []Pair {
	return pairsAt(pairs, SamplePairs(pairs, itemSlice, maxPairs, seed))
}

// pairsAt returns the pairs at the indices keep (SamplePairs'), or all of them when keep is nil.
func pairsAt(pairs []Pair, keep []int32) []Pair {
	if keep == nil {
		return pairs
	}
	out := make([]Pair, len(keep))
	for i, p := range keep {
		out[i] = pairs[p]
	}
	return out
}

// setTestPairs records in each result of the natural test set the number of test pairs of its
// slice before sampling.
func setTestPairs(res []Result, full []Pair, itemSlice []Slice) {
	var before [256]int
	before[SliceAll] = len(full)
	if itemSlice != nil {
		for _, p := range full {
			before[itemSlice[p.Item]]++
		}
	}
	for i := range res {
		if res[i].Test == TestNatural {
			res[i].TestPairs = before[res[i].Slice]
		}
	}
}

// report shows the ranking's progress on w, from a goroutine polling r.done, until the
// returned function is called.
func (r *ranker) report(w io.Writer, s *Settings) (stop func()) {
	if w == nil {
		return func() {}
	}
	total := int64(len(r.pair))
	m := progress.New(w, total, "pairs", time.Duration(s.LogSeconds*float64(time.Second)))
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		var shown int64
		update := func(last bool) {
			done := r.done.Load()
			m.Add(done-shown, fmt.Sprintf("eval pairs %d/%d", done, total))
			m.Line(done, last, fmt.Sprintf("eval pairs %d/%d", done, total))
			shown = done
		}
		for {
			select {
			case <-tick.C:
				update(false)
			case <-quit:
				update(true)
				m.Close()
				return
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
	}
}

// SamplePairs returns the indices, ascending, of a seeded random sample of size of the pairs,
// stratified by the slice of the pair's item (one stratum when itemSlice is nil), or nil when size
// is 0 or not below len(pairs) (every pair is kept). A slice with n_s of the N pairs gets its
// share size·n_s/N rounded by largest remainder (Hamilton's method: the floors, then one more pair
// for the strata of the largest fractional parts, ties to the earlier slice), so every slice keeps
// its share within one pair and the sample has exactly size pairs; within a slice the pairs are a
// uniform sample without replacement. The source is a PCG seeded with (seed, 1<<62), a stream no
// bootstrap resample uses.
func SamplePairs(pairs []Pair, itemSlice []Slice, size int, seed int64) []int32 {
	n := len(pairs)
	if size <= 0 || size >= n {
		return nil
	}
	const strata = 256 // one per Slice value; most stay empty
	var members [strata][]int32
	for p, pr := range pairs {
		st := 0
		if itemSlice != nil {
			st = int(itemSlice[pr.Item])
		}
		members[st] = append(members[st], int32(p))
	}
	var quota [strata]int
	var frac [strata]float64
	left := size
	for st, mem := range members {
		share := float64(size) * float64(len(mem)) / float64(n)
		quota[st] = int(share)
		frac[st] = share - float64(quota[st])
		left -= quota[st]
	}
	for ; left > 0; left-- {
		best := -1
		for st := range strata {
			if quota[st] < len(members[st]) && (best < 0 || frac[st] > frac[best]) {
				best = st
			}
		}
		quota[best]++
		frac[best] = -1
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 1<<62))
	var out []int32
	for st, mem := range members {
		// Partial Fisher–Yates: the first quota[st] positions get a uniform sample.
		for i := range quota[st] {
			j := i + rng.IntN(len(mem)-i)
			mem[i], mem[j] = mem[j], mem[i]
		}
		out = append(out, mem[:quota[st]]...)
	}
	slices.Sort(out)
	return out
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
	if i := firstNotFinite(in.U); i >= 0 {
		return fmt.Errorf("metrics: U[%d][%d] = %v is not finite", i/d, i%d, in.U[i])
	}
	if i := firstNotFinite(in.V); i >= 0 {
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
		if j := slices.IndexFunc(in.ItemSlice, func(s Slice) bool { _, bin := s.Bin(); return s > SliceTail && !bin }); j >= 0 {
			return fmt.Errorf("metrics: ItemSlice[%d] = %v is not head, torso, tail or a bin", j, in.ItemSlice[j])
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
	if s.Filter.Excludes() {
		if len(in.Exclude) != n {
			return fmt.Errorf("metrics: filter is set, so Exclude needs %d query rows, got %d", n, len(in.Exclude))
		}
		return checkExclude(in.Exclude, m)
	}
	return nil
}

// checkExclude requires every item of the Exclude rows to be one of the m items.
func checkExclude(exclude [][]int32, m int) error {
	for q, ex := range exclude {
		for i, j := range ex {
			if j < 0 || int(j) >= m {
				return fmt.Errorf("metrics: Exclude[%d][%d] = %d out of range: %d items", q, i, j, m)
			}
		}
	}
	return nil
}

func notFinite32(x float32) bool { return math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) }

// firstNotFinite returns the index of the first NaN or infinity in x, or -1. The values at least
// −MaxFloat32 and below +Inf, counted in vector registers, are the finite ones (NaN is neither):
// only an x that has some other value is searched.
func firstNotFinite(x []float32) int {
	atLeastMin, inf := simd.CountGE(x, -math.MaxFloat32, float32(math.Inf(1)))
	if atLeastMin-inf == len(x) {
		return -1
	}
	return slices.IndexFunc(x, notFinite32)
}

// checkAdjustments checks that every adjustment a_j = float32(-τ·log π_j) is finite and returns,
// per τ, max_j |a_j| (0 for τ = 0).
func checkAdjustments(taus, logPrior []float64) ([]float64, error) {
	out := make([]float64, len(taus))
	for k, t := range taus {
		if t == 0 {
			continue
		}
		for j, lp := range logPrior {
			a := float32(-t * lp)
			if notFinite32(a) {
				return nil, fmt.Errorf("metrics: logit adjustment -%v·LogPrior[%d] = %v overflows float32", t, j, -t*lp)
			}
			out[k] = max(out[k], math.Abs(float64(a)))
		}
	}
	return out, nil
}
