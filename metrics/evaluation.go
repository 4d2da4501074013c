package metrics

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
)

// Evaluation is everything an evaluation measured: its Results and what the files beside them
// need (the pairs' ranks for paired tests over test pairs, the sampled negatives, the run files).
type Evaluation struct {
	// Results are Evaluate's, followed by those of the other families, each grouped by τ (see
	// the package documentation): popularity-stratified recall by slice, the debiased test
	// set's recall, NDCG and MRR by slice (Settings.Debiased), the sampled evaluation by slice
	// (Settings.Sampled), the exposure metrics (Settings.Exposure) and the propensity-scored
	// ones (Input.MultiLabel) over all test queries.
	Results []Result
	// Pairs are the evaluated test pairs (a sample under Settings.MaxPairs), in order.
	Pairs []Pair
	// Sample is the index in Input.Pairs of every evaluated pair under Settings.MaxPairs
	// (SamplePairs, ascending); nil when every pair is evaluated.
	Sample []int32
	// Ranks is the full rank of every evaluated pair, per τ k and pair p at Ranks[k*len(Pairs)+p].
	Ranks []int32
	// SampledRanks is every evaluated pair's rank among itself and its negatives in the ranking
	// as trained (τ_LA = SampledTau, LogitAdjust[RefTau]); nil without the sampled evaluation.
	SampledRanks []int32
	SampledTau   float64
	// Negatives are every evaluated pair's sampled negatives, ascending; nil without the
	// sampled evaluation.
	Negatives [][]int32

	r *ranker // the ranking, for the run files (Settings.WriteRun)
}

// EvaluateAll is EvaluateContext returning the whole Evaluation.
func EvaluateAll(ctx context.Context, in Input, s Settings, seed int64, w io.Writer) (*Evaluation, error) {
	if err := s.Resolve(); err != nil {
		return nil, fmt.Errorf("metrics: eval settings: %w", err)
	}
	if err := checkInput(&in, &s); err != nil {
		return nil, err
	}
	full := in.Pairs
	keep := SamplePairs(full, in.ItemSlice, s.MaxPairs, seed)
	in.Pairs = pairsAt(full, keep)
	r, err := newRanker(in, &s)
	if err != nil {
		return nil, err
	}
	ev := &Evaluation{Pairs: in.Pairs, Sample: keep}
	if s.Sampled.On() {
		// Drawn first: a corpus too small for them fails before the ranking.
		if ev.Negatives, err = DrawNegatives(ctx, in.Pairs, in.Known, in.Counts, r.m, s.Sampled.Kind, s.Sampled.Negatives, in.TestSeed, s.Workers); err != nil {
			return nil, err
		}
	}
	if keep := s.listTaus(&in); keep != nil {
		r.top = newTopLists(r, slices.Max(s.K), s.WriteRun, keep)
	}
	stop := r.report(w, &s)
	err = r.run(ctx, newBackend(in.U, in.V, in.Dim), s.Workers)
	stop()
	if err != nil {
		return nil, err
	}
	ev.Ranks = r.ranks
	var weights []float64 // the popularity weights of the pairs, with training counts
	if in.Counts != nil {
		weights = popularityWeights(in.Counts, full, in.Pairs, s.Gamma)
	}
	groups := sliceGroups(in.Pairs, nil, in.ItemSlice, r.m)
	res, err := rankTally(s.K, s.LogitAdjust, len(in.Pairs), r.ranks).results(ctx, groups, &s, seed, 0)
	if err != nil {
		return nil, err
	}
	if weights != nil {
		// Popularity-stratified recall has no bootstrap interval: its intervals are across seeds.
		exact := s
		exact.Bootstrap = -1
		strat, err := stratTally(&s, r, weights).results(ctx, groups, &exact, seed, 0)
		if err != nil {
			return nil, err
		}
		res = append(res, strat...)
	}
	setTestPairs(res, full, in.ItemSlice)
	more, err := ev.families(ctx, r, &in, full, weights, &s, seed)
	if err != nil {
		return nil, err
	}
	ev.Results = append(res, more...)
	if s.WriteRun {
		ev.r = r
	}
	return ev, nil
}

// Bootstrap streams of the families (the g of tally.bootstrap, plus the group's index): the
// natural test set's rank metrics use 0 to 255, as they always did.
const (
	streamSampled  = 2 << 8
	streamDebiased = 3 << 8
	streamExposure = 4 << 8
)

// stratTally tabulates popularity-stratified Recall@K of the full ranking r's pairs, whose
// popularity weights are w (Steck, "Item Popularity and Recommendation Accuracy", RecSys 2011):
// Σ_p w_p·[rank_p ≤ K] / Σ_p w_p over a slice's pairs, w_p = pop(y_p)^−γ.
func stratTally(s *Settings, r *ranker, w []float64) *tally {
	nk, np := len(s.K), len(r.pair)
	cols := make([]column, nk+1)
	for i, k := range s.K {
		cols[i] = column{MetricStratRecall, k, nk}
	}
	cols[nk] = column{den: -1}
	return newTally(cols, s.LogitAdjust, np, func(k, p int, row []float64) {
		rank := r.ranks[k*np+p]
		for i, K := range s.K {
			if int(rank) <= K {
				row[i] = w[p]
			}
		}
		row[nk] = w[p]
	})
}

// families evaluates the families beyond the full ranking's metrics, from the ranking r of the
// pairs in.Pairs, sampled from full, whose popularity weights are w (nil without training
// counts).
func (ev *Evaluation) families(ctx context.Context, r *ranker, in *Input, full []Pair, w []float64, s *Settings, seed int64) ([]Result, error) {
	var out []Result
	add := func(res []Result, err error) error {
		setTestPairs(res, full, in.ItemSlice)
		out = append(out, res...)
		return err
	}
	if w != nil && s.Debiased {
		if err := add(debiased(ctx, r, w, in, s, seed)); err != nil {
			return nil, err
		}
	}
	if ev.Negatives != nil {
		ref := RefTau(s.LogitAdjust)
		ev.SampledRanks, ev.SampledTau = r.sampledRanks(ev.Negatives, ref, s.Workers), s.LogitAdjust[ref]
		if err := add(sampled(ctx, r, ev.SampledRanks, ev.SampledTau, in, s, seed)); err != nil {
			return nil, err
		}
	}
	if r.top != nil && in.Counts != nil {
		if err := add(exposure(ctx, r, in, s, seed)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// popularityWeights returns every evaluated pair's weight pop(y)^−γ, pop(y) the interactions of
// its item in training (counts) and in the test set (full, before any sampling): at least 1.
func popularityWeights(counts []int64, full, pairs []Pair, gamma float64) []float64 {
	test := map[int32]int64{}
	for _, p := range full {
		test[p.Item]++
	}
	w := make([]float64, len(pairs))
	for p, pr := range pairs {
		w[p] = math.Pow(float64(counts[pr.Item]+test[pr.Item]), -gamma)
	}
	return w
}

// DebiasedSample returns a seeded resample with replacement of n of the pairs, ascending, pair p
// drawn with probability weights[p]/Σ weights (positive and finite), from a PCG seeded with
// (seed, 1<<60), a stream no other draw uses.
func DebiasedSample(weights []float64, n int, seed int64) []int32 {
	cum := make([]float64, len(weights)+1)
	for p, x := range weights {
		cum[p+1] = cum[p] + x
	}
	total := cum[len(weights)]
	rng := rand.New(rand.NewPCG(uint64(seed), 1<<60))
	out := make([]int32, n)
	for i := range out {
		u := rng.Float64() * total
		p, _ := slices.BinarySearchFunc(cum[1:], u, func(c, u float64) int {
			if c <= u {
				return -1
			}
			return 1
		}) // the first p with cum[p+1] > u
		out[i] = int32(min(p, len(weights)-1))
	}
	slices.Sort(out)
	return out
}

// debiased evaluates the debiased test set: Recall@K, NDCG@K and MRR by slice over a resample of
// as many pairs as were evaluated, drawn ∝ w with in.TestSeed, so that every run on the same
// data is evaluated on the same resample.
func debiased(ctx context.Context, r *ranker, w []float64, in *Input, s *Settings, seed int64) ([]Result, error) {
	idx := DebiasedSample(w, len(in.Pairs), in.TestSeed)
	t := rankTally(s.K, s.LogitAdjust, len(in.Pairs), r.ranks)
	res, err := t.results(ctx, sliceGroups(in.Pairs, idx, in.ItemSlice, r.m), s, seed, streamDebiased)
	for i := range res {
		res[i].Test, res[i].TestPairs = TestDebiased, res[i].Pairs
	}
	return res, err
}

// sampled evaluates the sampled evaluation by slice from the sampled ranks of the ranking as
// trained (τ_LA = tau): HR@K, NDCG@K and MRR among the 1 + n candidates, and Krichene & Rendle's
// corrected estimates of the full Recall@K and NDCG@K (CorrectedValues).
func sampled(ctx context.Context, r *ranker, ranks []int32, tau float64, in *Input, s *Settings, seed int64) ([]Result, error) {
	n := s.Sampled.Negatives
	nk := len(s.K)
	recall := make([][]float64, nk)
	ndcg := make([][]float64, nk)
	for i, k := range s.K {
		var err error
		if recall[i], err = CorrectedValues(r.m, n, s.Sampled.VarianceWeight, func(int) float64 { return 1 }, k); err != nil {
			return nil, err
		}
		if ndcg[i], err = CorrectedValues(r.m, n, s.Sampled.VarianceWeight, func(rank int) float64 { return 1 / math.Log2(float64(rank)+1) }, k); err != nil {
			return nil, err
		}
	}
	cols := rankColumns(s.K, MetricSampledRecall, MetricSampledNDCG, MetricSampledMRR)
	for _, m := range []Metric{MetricCorrectedRecall, MetricCorrectedNDCG} {
		for _, k := range s.K {
			cols = append(cols, column{m, k, -1})
		}
	}
	t := newTally(cols, []float64{tau}, len(in.Pairs), func(_, p int, row []float64) {
		rank := ranks[p]
		rankRow(s.K, rank, row)
		for i := range s.K {
			row[2*nk+1+i] = recall[i][rank-1]
			row[3*nk+1+i] = ndcg[i][rank-1]
		}
	})
	return t.results(ctx, sliceGroups(in.Pairs, nil, in.ItemSlice, r.m), s, seed, streamSampled)
}
