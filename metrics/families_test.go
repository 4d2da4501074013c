package metrics

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// goldenInput is ExampleEvaluate's corpus with training counts: query 0 scores the items
// [3, 2, 1, 0.5, 0], query 1 [3, 0, 1, 2, 0.5]; items 0 and 1 are head, 2 torso, 3 and 4 tail
// (counts 500, 120, 40, 3, 0). The pairs are (0, 1), (1, 3) and (1, 4): ranks 2, 2 and 4.
func goldenInput() Input {
	counts := []int64{500, 120, 40, 3, 0}
	return Input{
		U:         []float32{1, 0, 0, 1},
		V:         []float32{3, 3, 2, 0, 1, 1, 0.5, 2, 0, 0.5},
		Dim:       2,
		Pairs:     []Pair{{Query: 0, Item: 1}, {Query: 1, Item: 3}, {Query: 1, Item: 4}},
		ItemSlice: AssignSlices(counts, SliceSettings{}),
		Counts:    counts,
	}
}

// find returns the value of the result of metric at k, slice and test set (τ 0).
func find(t *testing.T, res []Result, m Metric, k int, sl Slice, test TestSet) float64 {
	t.Helper()
	for _, r := range res {
		if r.Metric == m && r.K == k && r.Slice == sl && r.Test == test && r.Tau == 0 {
			return r.Value
		}
	}
	t.Fatalf("no result %s@%d %s %s", m, k, sl, test)
	return 0
}

// TestExposureGolden checks the exposure metrics against values computed by hand on
// goldenInput, K = 1 and 2. The queries' lists are [0, 1] and [0, 3]; items 3 and 4 are the
// long tail; the smoothed training shares are (c+1)/(663+5).
func TestExposureGolden(t *testing.T) {
	ev, err := EvaluateAll(context.Background(), goldenInput(), Settings{K: []int{1, 2}, Bootstrap: -1}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	info := func(c float64) float64 { return -math.Log2((c + 1) / 668) }
	for _, c := range []struct {
		m    Metric
		k    int
		want float64
		why  string
	}{
		{MetricARP, 1, 500, "both lists start with item 0 (count 500)"},
		{MetricARP, 2, ((500+120)/2.0 + (500+3)/2.0) / 2, "(500+120)/2 and (500+3)/2"},
		{MetricAPLT, 1, 0, "no tail item first"},
		{MetricAPLT, 2, 0.25, "0/2 and 1/2 (item 3)"},
		{MetricCoverage, 1, 0.2, "{0} of 5 items"},
		{MetricCoverage, 2, 0.6, "{0, 1, 3} of 5 items"},
		{MetricGini, 1, 0.8, "exposure [2, 0, 0, 0, 0]: (n−1)/n"},
		{MetricGini, 2, 0.5, "exposure [2, 1, 0, 1, 0]: Σ|x_i−x_j| = 20 over 2·25·0.8"},
		{MetricNovelty, 1, math.Log2(4.0 / 3), "−log2(501/668) = log2(4/3)"},
		{MetricNovelty, 2, ((info(500)+info(120))/2 + (info(500)+info(3))/2) / 2, "2.66966 by hand"},
	} {
		if got := find(t, ev.Results, c.m, c.k, SliceAll, TestNatural); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s@%d = %v, want %v (%s)", c.m, c.k, got, c.want, c.why)
		}
	}
	if nov := find(t, ev.Results, MetricNovelty, 2, SliceAll, TestNatural); math.Abs(nov-2.6696550865577993) > 1e-12 {
		t.Errorf("novelty@2 = %v, want 2.66965508655780 (by hand)", nov)
	}
	// With logit adjustment, the ranking as trained only ("on") or every τ ("all").
	for _, c := range []struct {
		e    Exposure
		taus []float64
	}{{ExposureOn, []float64{0}}, {ExposureAll, []float64{-1, 0, 1}}} {
		in := goldenInput()
		in.LogPrior = []float64{-1, -2, -3, -4, -5}
		ev, err := EvaluateAll(context.Background(), in, Settings{K: []int{1, 2}, Bootstrap: -1, Exposure: c.e, LogitAdjust: []float64{-1, 0, 1}}, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		var taus []float64
		for _, r := range ev.Results {
			if r.Metric == MetricGini && r.K == 1 {
				taus = append(taus, r.Tau)
			}
		}
		if !slices.Equal(taus, c.taus) {
			t.Errorf("exposure %q: Gini@1 at τ %v, want %v", c.e, taus, c.taus)
		}
	}
	off, err := EvaluateAll(context.Background(), goldenInput(), Settings{K: []int{1, 2}, Bootstrap: -1, Exposure: ExposureOff}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range off.Results {
		if slices.Contains(ExposureMetrics(), r.Metric) {
			t.Errorf("exposure off gave %s@%d", r.Metric, r.K)
		}
	}
}

// TestPSPGolden checks PSP@K and PSRecall@K against Jain et al.'s definitions computed by hand
// on goldenInput as multi-label data with 100 training examples: with A = 0.55, B = 1.5,
// C = (ln 100 − 1)·2.5^0.55 = 5.96750, the propensities of items 1, 3 and 4 (120, 3 and 0
// training positives) are 0.701327, 0.277061 and 0.173170. Query 0's label is item 1, query
// 1's items 3 and 4; their top 2 are [0, 1] and [0, 3].
func TestPSPGolden(t *testing.T) {
	in := goldenInput()
	in.MultiLabel, in.TrainQueries = true, 100
	ev, err := EvaluateAll(context.Background(), in, Settings{K: []int{1, 2}, Bootstrap: -1}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := Propensities(in.Counts, 100, PropensitySettings{})
	for j, want := range map[int]float64{1: 0.7013267986527593, 3: 0.27706116767505784, 4: 0.17317032497262708} {
		if math.Abs(p[j]-want) > 1e-12 {
			t.Errorf("propensity of item %d = %v, want %v", j, p[j], want)
		}
	}
	inv1, inv3, inv4 := 1/p[1], 1/p[3], 1/p[4]
	for _, c := range []struct {
		m    Metric
		k    int
		want float64
	}{
		{MetricPSP, 1, 0},      // no label first
		{MetricPSRecall, 1, 0}, // likewise
		// Σ_queries Σ_top2 y/p over Σ_queries of the best top 2's: (1/p1 + 1/p3)/(1/p1 + 1/p3 + 1/p4).
		{MetricPSP, 2, (inv1 + inv3) / (inv1 + inv3 + inv4)},
		// Per query the propensity-weighted share of its labels found: 1 and (1/p3)/(1/p3 + 1/p4).
		{MetricPSRecall, 2, (1 + inv3/(inv3+inv4)) / 2},
	} {
		if got := find(t, ev.Results, c.m, c.k, SliceAll, TestNatural); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s@%d = %v, want %v", c.m, c.k, got, c.want)
		}
	}
	if got := find(t, ev.Results, MetricPSP, 2, SliceAll, TestNatural); math.Abs(got-0.4657959202744217) > 1e-12 {
		t.Errorf("psp@2 = %v, want 0.465796 (by hand)", got)
	}
}

// TestStratifiedGolden checks popularity-stratified Recall@K (γ = 1) by hand on goldenInput:
// the pairs' items have 120+1, 3+1 and 0+1 interactions in train and test and ranks 2, 2, 4, so
// Recall@2 = (1/121 + 1/4)/(1/121 + 1/4 + 1) = 125/609 over all pairs and 1/5 over the tail's.
func TestStratifiedGolden(t *testing.T) {
	ev, err := EvaluateAll(context.Background(), goldenInput(), Settings{K: []int{1, 2}, Bootstrap: -1}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		k    int
		sl   Slice
		want float64
	}{{1, SliceAll, 0}, {2, SliceAll, 125.0 / 609}, {2, SliceTail, 0.2}, {2, SliceHead, 1}} {
		if got := find(t, ev.Results, MetricStratRecall, c.k, c.sl, TestNatural); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("strat_recall@%d %s = %v, want %v", c.k, c.sl, got, c.want)
		}
	}
}

// TestSampledGolden checks the sampled evaluation by hand on goldenInput with 3 negatives and
// known positives that leave exactly 3 items to draw: query 0's pair gets {0, 2, 3} (scores 3,
// 1, 0.5 against its item's 2: rank 2), query 1's pairs {0, 1, 2} (scores 3, 0, 1 against 2 and
// 0.5: ranks 2 and 3). So HR@1 = 0, HR@2 = 2/3, MRR = (1/2 + 1/2 + 1/3)/3 = 4/9 and NDCG@2 =
// 2/(3·log2 3); the corrected values are CorrectedValues' at those ranks.
func TestSampledGolden(t *testing.T) {
	in := goldenInput()
	in.Known = [][]int32{{1, 4}, {3, 4}}
	s := Settings{K: []int{1, 2}, Bootstrap: -1, Sampled: SampledSettings{Kind: NegativesUniform, Negatives: 3, VarianceWeight: 0.5}}
	ev, err := EvaluateAll(context.Background(), in, s, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int32{{0, 2, 3}, {0, 1, 2}, {0, 1, 2}}
	for p := range want {
		if !slices.Equal(ev.Negatives[p], want[p]) {
			t.Errorf("pair %d: negatives %v, want %v", p, ev.Negatives[p], want[p])
		}
	}
	if !slices.Equal(ev.SampledRanks, []int32{2, 2, 3}) {
		t.Errorf("sampled ranks %v, want [2 2 3]", ev.SampledRanks)
	}
	rec2, err := CorrectedValues(5, 3, 0.5, func(int) float64 { return 1 }, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m    Metric
		k    int
		want float64
	}{
		{MetricSampledRecall, 1, 0},
		{MetricSampledRecall, 2, 2.0 / 3},
		{MetricSampledMRR, 0, 4.0 / 9},
		{MetricSampledNDCG, 2, 2 / (3 * math.Log2(3))},
		{MetricCorrectedRecall, 2, (2*rec2[1] + rec2[2]) / 3},
	} {
		if got := find(t, ev.Results, c.m, c.k, SliceAll, TestNatural); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s@%d = %v, want %v", c.m, c.k, got, c.want)
		}
	}
}

// TestCorrectedValuesGolden checks Krichene & Rendle's corrected estimator on the smallest
// case, by hand: 3 items, 1 negative, Recall@1. The sampled rank of full rank r = 1, 2, 3 is 1
// with probability 1, 1/2, 0. With γ = 1 each sampled rank gets the posterior mean of the
// metric, (1·1 + ½·0)/(1 + ½) = 2/3 and 0. With γ = ½ the normal equations are
// [[1.375, 0.125], [0.125, 1.375]]·x = [1, 0] (½·AᵀA + ½·diag(1.5, 1.5), AᵀA = [[1.25, 0.25],
// [0.25, 1.25]]), so x = (11/15, −1/15).
func TestCorrectedValuesGolden(t *testing.T) {
	for _, c := range []struct {
		gamma float64
		want  []float64
	}{{1, []float64{2.0 / 3, 0}}, {0.5, []float64{11.0 / 15, -1.0 / 15}}} {
		got, err := CorrectedValues(3, 1, c.gamma, func(int) float64 { return 1 }, 1)
		if err != nil {
			t.Fatal(err)
		}
		for s := range got {
			if math.Abs(got[s]-c.want[s]) > 1e-14 {
				t.Errorf("γ = %v: x = %v, want %v", c.gamma, got, c.want)
				break
			}
		}
	}
	for _, bad := range []struct{ m, n int }{{5, 5}, {5, 0}} {
		if _, err := CorrectedValues(bad.m, bad.n, 0.5, func(int) float64 { return 1 }, 1); err == nil {
			t.Errorf("%d negatives of %d items: no error", bad.n, bad.m)
		}
	}
}

// TestCorrectedValuesReference checks CorrectedValues against a plain implementation of the
// least-squares problem: the binomial matrix A[r][s] = C(n, s)·p^s·(1−p)^(n−s), p = (r−1)/(m−1),
// written out whole, and the normal equations solved by LU, for Recall@5 and NDCG@5 at several
// γ and corpus sizes (the power sums of the log domain replace O(m·n²) by O(m·n)).
func TestCorrectedValuesReference(t *testing.T) {
	for _, m := range []int{40, 1000} {
		for _, n := range []int{1, 6, 30} {
			for _, gamma := range []float64{0.05, 0.3, 1} {
				for name, value := range map[string]func(int) float64{
					"recall": func(int) float64 { return 1 },
					"ndcg":   func(r int) float64 { return 1 / math.Log2(float64(r)+1) },
				} {
					got, err := CorrectedValues(m, n, gamma, value, 5)
					if err != nil {
						t.Fatal(err)
					}
					want := referenceCorrection(m, n, gamma, value, 5)
					for s := range want {
						if math.Abs(got[s]-want[s]) > 1e-7*(1+math.Abs(want[s])) {
							t.Errorf("m=%d n=%d γ=%v %s: x[%d] = %v, want %v", m, n, gamma, name, s, got[s], want[s])
							break
						}
					}
				}
			}
		}
	}
}

// referenceCorrection solves Krichene & Rendle's normal equations with A written out.
func referenceCorrection(m, n int, gamma float64, value func(int) float64, maxRank int) []float64 {
	a := mat.NewDense(m, n+1, nil)
	for r := 1; r <= m; r++ {
		p := float64(r-1) / float64(m-1)
		for s := 0; s <= n; s++ {
			a.Set(r-1, s, binomial(n, s)*math.Pow(p, float64(s))*math.Pow(1-p, float64(n-s)))
		}
	}
	var ata mat.Dense
	ata.Mul(a.T(), a)
	sys := mat.NewDense(n+1, n+1, nil)
	b := mat.NewVecDense(n+1, nil)
	for i := 0; i <= n; i++ {
		var c float64
		for r := 0; r < m; r++ {
			c += a.At(r, i)
			if r+1 <= maxRank {
				b.SetVec(i, b.AtVec(i)+a.At(r, i)*value(r+1))
			}
		}
		for j := 0; j <= n; j++ {
			sys.Set(i, j, (1-gamma)*ata.At(i, j))
		}
		sys.Set(i, i, sys.At(i, i)+gamma*c)
	}
	var x mat.VecDense
	if err := x.SolveVec(sys, b); err != nil {
		panic(err)
	}
	return x.RawVector().Data
}

func binomial(n, s int) float64 {
	out := 1.0
	for i := 1; i <= s; i++ {
		out = out * float64(n-s+i) / float64(i)
	}
	return out
}

// TestDrawNegatives checks the sampled evaluation's draws: n distinct items, ascending, never the
// pair's item nor a known positive, the same for any number of workers; popularity never draws an
// item unseen in training; uniform draws are uniform (chi-square over 20,000 pairs, p > 0.001 for
// this seed); too few items left is an error naming the key; and a pair whose known items leave
// few to draw from gets them from the list of those left.
func TestDrawNegatives(t *testing.T) {
	const m = 40
	counts := make([]int64, m)
	for j := range counts {
		counts[j] = int64(j % 4) // items 0, 4, 8, ... never seen
	}
	pairs := make([]Pair, 20000)
	for p := range pairs {
		pairs[p] = Pair{Query: int32(p % 2), Item: int32(p % m)}
	}
	known := [][]int32{{1, 2}, {5, 19}}
	for _, kind := range []NegativeKind{NegativesUniform, NegativesPopularity} {
		one, err := DrawNegatives(context.Background(), pairs, known, counts, m, kind, 5, 9, 1)
		if err != nil {
			t.Fatal(err)
		}
		three, err := DrawNegatives(context.Background(), pairs, known, counts, m, kind, 5, 9, 3)
		if err != nil {
			t.Fatal(err)
		}
		freq := make([]float64, m)
		for p, neg := range one {
			if !slices.Equal(neg, three[p]) {
				t.Fatalf("%s: pair %d: %v with 1 worker, %v with 3", kind, p, neg, three[p])
			}
			if len(neg) != 5 || !slices.IsSorted(neg) || len(slices.Compact(slices.Clone(neg))) != 5 {
				t.Fatalf("%s: pair %d: %v is not 5 distinct ascending items", kind, p, neg)
			}
			for _, j := range neg {
				if j == pairs[p].Item || slices.Contains(known[pairs[p].Query], j) {
					t.Fatalf("%s: pair %d (%v) drew %d", kind, p, pairs[p], j)
				}
				if kind == NegativesPopularity && counts[j] == 0 {
					t.Fatalf("popularity drew item %d, unseen in training", j)
				}
				freq[j]++
			}
		}
		if kind != NegativesUniform {
			continue
		}
		// Pair p of query q can draw the m − 3 items other than its item and q's two known ones.
		expect := make([]float64, m)
		for _, pr := range pairs {
			for j := range int32(m) {
				if j != pr.Item && !slices.Contains(known[pr.Query], j) {
					expect[j] += 5.0 / float64(m-3+btoi(slices.Contains(known[pr.Query], pr.Item)))
				}
			}
		}
		var chi float64
		for j := range m {
			chi += (freq[j] - expect[j]) * (freq[j] - expect[j]) / expect[j]
		}
		if p := (distuv.ChiSquared{K: m - 1}).Survival(chi); p < 0.001 {
			t.Errorf("uniform draws: chi-square %.1f on %d degrees of freedom, p = %.2g", chi, m-1, p)
		}
	}
	// Pair 0 (item 0, unseen, of query 0 who knows items 1 and 2, both seen) has 37 items left,
	// 28 of them seen in training.
	if _, err := DrawNegatives(context.Background(), pairs[:2], known, counts, m, NegativesUniform, 38, 1, 1); err == nil ||
		!strings.Contains(err.Error(), "eval.sampled.negatives: test pair 0") {
		t.Errorf("38 uniform negatives of 37 left: error %v", err)
	}
	if _, err := DrawNegatives(context.Background(), pairs[:2], known, counts, m, NegativesPopularity, 29, 1, 1); err == nil ||
		!strings.Contains(err.Error(), "28 such items with a training count") {
		t.Errorf("29 popularity negatives of 28 seen: error %v", err)
	}
	// A corpus almost all known: the draws come from the items left.
	var many []int32
	for j := range int32(36) {
		many = append(many, j)
	}
	neg, err := DrawNegatives(context.Background(), []Pair{{0, 39}}, [][]int32{many}, counts, m, NegativesUniform, 3, 1, 1)
	if err != nil || !slices.Equal(neg[0], []int32{36, 37, 38}) {
		t.Errorf("3 negatives of the 3 items left: %v, %v", neg, err)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestDebiasedSample checks that the debiased test set's items follow pop^−γ: 5,000 test pairs
// of a Zipf-like corpus of 50 items, resampled 200,000 times with γ = 1 (and 0.5), item j is
// drawn with probability ∝ n_test(j)·pop(j)^−γ (chi-square p > 0.001 for this seed); and the
// resample is the same for the same seed.
func TestDebiasedSample(t *testing.T) {
	const m, np = 50, 5000
	rng := rand.New(rand.NewPCG(5, 6))
	counts := make([]int64, m)
	for j := range counts {
		counts[j] = int64(2000 / (j + 1))
	}
	pairs := make([]Pair, np)
	for p := range pairs {
		pairs[p] = Pair{Query: int32(p), Item: int32(min(m-1, int(rng.ExpFloat64()*8)))}
	}
	for _, gamma := range []float64{1, 0.5} {
		w := popularityWeights(counts, pairs, pairs, gamma)
		idx := DebiasedSample(w, 200000, 3)
		if !slices.Equal(idx, DebiasedSample(w, 200000, 3)) {
			t.Fatal("two resamples with one seed differ")
		}
		test := make([]float64, m)
		for _, p := range pairs {
			test[p.Item]++
		}
		expect := make([]float64, m)
		var total float64
		for j := range m {
			expect[j] = test[j] * math.Pow(float64(counts[j])+test[j], -gamma)
			total += expect[j]
		}
		freq := make([]float64, m)
		for _, p := range idx {
			freq[pairs[p].Item]++
		}
		var chi float64
		df := -1
		for j := range m {
			if expect[j] == 0 {
				if freq[j] != 0 {
					t.Errorf("γ = %v: item %d has no test pair and was drawn %v times", gamma, j, freq[j])
				}
				continue
			}
			e := expect[j] / total * float64(len(idx))
			chi += (freq[j] - e) * (freq[j] - e) / e
			df++
		}
		if p := (distuv.ChiSquared{K: float64(df)}).Survival(chi); p < 0.001 {
			t.Errorf("γ = %v: chi-square %.1f on %d degrees of freedom, p = %.2g", gamma, chi, df, p)
		}
	}
}

// TestDebiasedResults checks the debiased test set's rows: its own results, marked "debiased",
// over a resample of as many pairs as the test set, whose Recall@K equals the mean over the
// resample of the pairs' hits (recomputed here from the ranks).
func TestDebiasedResults(t *testing.T) {
	in := benchInput(300, 500, 8)
	in.Counts = make([]int64, 500)
	for j := range in.Counts {
		in.Counts[j] = int64(1000 / (j + 1))
	}
	in.TestSeed = 4
	s := Settings{K: []int{10}, Bootstrap: -1, Debiased: true, Gamma: 0.7}
	ev, err := EvaluateAll(context.Background(), in, s, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := popularityWeights(in.Counts, in.Pairs, in.Pairs, 0.7)
	idx := DebiasedSample(w, len(in.Pairs), 4)
	var hits float64
	for _, p := range idx {
		if ev.Ranks[p] <= 10 {
			hits++
		}
	}
	got := find(t, ev.Results, MetricRecall, 10, SliceAll, TestDebiased)
	if want := hits / float64(len(idx)); math.Abs(got-want) > 1e-12 {
		t.Errorf("debiased Recall@10 = %v, want %v", got, want)
	}
	n := 0
	for _, r := range ev.Results {
		if r.Test == TestDebiased {
			n++
			if r.Slice == SliceAll && r.Pairs != len(in.Pairs) {
				t.Errorf("debiased %s has %d pairs, want %d", r.Metric, r.Pairs, len(in.Pairs))
			}
		}
	}
	if n == 0 {
		t.Error("no debiased result")
	}
}

// TestTopLists checks the top lists kept while ranking against sorting every query's decision
// scores, with exact ties (duplicated item embeddings), two τ, several pairs per query and every
// filter, and each pair's run-file list: its item at its rank whenever the rank is at most
// max(K), the other items those of the brute-force ranking without the pair's removed items.
func TestTopLists(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, m, d = 30, 300, 6
	in := benchInput(n, m, d)
	for j := 0; j < 60; j += 2 { // items j and j+100 tie
		copy(in.V[(j+100)*d:(j+101)*d], in.V[j*d:(j+1)*d])
		in.LogPrior[j+100] = in.LogPrior[j]
	}
	in.Pairs = nil
	in.Exclude = make([][]int32, n)
	for q := range n {
		for range 1 + q%3 {
			in.Pairs = append(in.Pairs, Pair{int32(q), int32(rng.IntN(m))})
		}
		for range rng.IntN(8) {
			in.Exclude[q] = append(in.Exclude[q], int32(rng.IntN(m)))
		}
	}
	for _, p := range in.Pairs { // "known": the test items are excluded too
		in.Exclude[p.Query] = append(in.Exclude[p.Query], p.Item)
	}
	for q := range in.Exclude {
		slices.Sort(in.Exclude[q])
		in.Exclude[q] = slices.Compact(in.Exclude[q])
	}
	in.Counts = make([]int64, m)
	for _, filter := range []Filter{FilterNone, FilterKnown} {
		s := Settings{K: []int{1, 7, 25}, LogitAdjust: []float64{0, 0.8}, Bootstrap: -1, Filter: filter, WriteRun: true, Workers: 2}
		ev, err := EvaluateAll(context.Background(), in, s, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, tau := range s.LogitAdjust {
			for p, pr := range in.Pairs {
				scores := refScores(&in, pr.Query, tau)
				var want []int32
				for j := range int32(m) {
					if j == pr.Item || !filter.Excludes() || !slices.Contains(in.Exclude[pr.Query], j) {
						want = append(want, j)
					}
				}
				slices.SortStableFunc(want, func(a, b int32) int {
					if c := cmp.Compare(scores[b], scores[a]); c != 0 {
						return c
					}
					switch { // the pair's item after the items of its score
					case a == pr.Item:
						return 1
					case b == pr.Item:
						return -1
					}
					return cmp.Compare(a, b)
				})
				want = want[:25]
				got, x, err := ev.PairList(k, p)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("filter %q, τ %v, pair %d: list %v, want %v", filter, tau, p, got, want)
				}
				for i, j := range got {
					if x[i] != scores[j] {
						t.Fatalf("pair %d: score of item %d = %v, want %v", p, j, x[i], scores[j])
					}
				}
				rank := int(ev.Ranks[k*len(in.Pairs)+p])
				if at := slices.Index(got, pr.Item); (rank <= 25) != (at >= 0) || at >= 0 && at+1 != rank {
					t.Errorf("filter %q, τ %v, pair %d: rank %d, item at list position %d", filter, tau, p, rank, at+1)
				}
			}
		}
	}
}

// TestGiniSorted checks the O(n) Gini coefficient against the pairwise definition, zeros given
// implicitly.
func TestGiniSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for range 20 {
		n := 1 + rng.IntN(30)
		x := make([]float64, n)
		var nonzero []float64
		for i := range x {
			if rng.IntN(3) > 0 {
				x[i] = float64(rng.IntN(10))
				nonzero = append(nonzero, x[i])
			}
		}
		var sum, diff float64
		for _, a := range x {
			sum += a
			for _, b := range x {
				diff += math.Abs(a - b)
			}
		}
		want := 0.0
		if sum > 0 {
			want = diff / (2 * float64(n) * sum)
		}
		slices.Sort(nonzero)
		if got := giniSorted(nonzero, n); math.Abs(got-want) > 1e-12 {
			t.Errorf("%v: %v, want %v", x, got, want)
		}
	}
}

// TestExposureOf: counting the lists' items in an array of the corpus and sorting them give the
// same coverage and Gini coefficient.
func TestExposureOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	lists := make([][]int32, 40)
	for a := range lists {
		for range 1 + rng.IntN(12) {
			lists[a] = append(lists[a], int32(rng.IntN(60)))
		}
	}
	ks := []int{1, 5, 20}
	c1, g1 := exposureOf(lists, 60, ks, true)
	c2, g2 := exposureOf(lists, 60, ks, false)
	if !slices.Equal(c1, c2) || !slices.Equal(g1, g2) {
		t.Errorf("dense %v %v, sorted %v %v", c1, g1, c2, g2)
	}
}
