package metrics

import (
	"context"
	"math"
	"slices"
)

// exposure evaluates the top-K lists of the test queries as trained, or under every τ with
// Settings.Exposure "all" (see "Exposure" and
// "Propensity-scored metrics" in the package documentation): with Settings.Exposure, the
// average recommended popularity, the long-tail share (when there are slices), the item
// coverage, the Gini coefficient of exposure and the novelty; on multi-label data, PSP@K and
// PSRecall@K. The means over queries get bootstrap intervals over the queries; coverage and
// Gini, properties of all the lists at once, get none (Lo = Hi = Value). Every Result is of slice
// "all", its Pairs the number of test queries.
func exposure(ctx context.Context, r *ranker, in *Input, s *Settings, seed int64) ([]Result, error) {
	nq, nk := len(r.queries), len(s.K)
	counts := in.Counts
	var total int64
	for _, c := range counts {
		total += c
	}
	// The self-information of every item: −log2 of its add-one smoothed training share.
	info := func(j int32) float64 {
		return -math.Log2(float64(counts[j]+1) / float64(total+int64(r.m)))
	}
	tail := longTail(in.ItemSlice)
	var inv []float64 // 1/p of every label
	if in.MultiLabel {
		inv = Propensities(counts, in.TrainQueries, s.Propensity)
		for l, p := range inv {
			inv[l] = 1 / p
		}
	}
	on := s.Exposure != ExposureOff
	if !on && inv == nil {
		return nil, nil
	}
	// The τ of the lists: every kept one with exposure "all" or run files, else the reference.
	var ks []int
	for _, k := range r.top.kept() {
		if s.Exposure == ExposureAll || k == RefTau(s.LogitAdjust) {
			ks = append(ks, k)
		}
	}
	taus := make([]float64, len(ks))
	for i, k := range ks {
		taus[i] = s.LogitAdjust[k]
	}
	// The columns of every family, nk each, and where they start (-1: absent).
	var cols []column
	add := func(m Metric, den int) int {
		at := len(cols)
		for i, k := range s.K {
			c := column{m, k, -1}
			if den >= 0 {
				c.den = den + i
			}
			cols = append(cols, c)
		}
		return at
	}
	arp, aplt, nov, psp, ideal, psr := -1, -1, -1, -1, -1, -1
	if on {
		arp = add(MetricARP, -1)
		if tail != nil {
			aplt = add(MetricAPLT, -1)
		}
		nov = add(MetricNovelty, -1)
	}
	if inv != nil {
		psp = add(MetricPSP, len(cols)+nk) // over the ideal ranking's, the next nk columns
		ideal = add("", -1)
		psr = add(MetricPSRecall, -1)
	}
	t := newTally(cols, taus, nq, func(i, a int, row []float64) {
		list, _ := r.top.list(ks[i], a)
		if on {
			for i, K := range s.K {
				top := list[:min(K, len(list))]
				if len(top) == 0 {
					continue
				}
				var pop, long, self float64
				for _, j := range top {
					pop += float64(counts[j])
					self += info(j)
					if tail != nil && tail[j] {
						long++
					}
				}
				n := float64(len(top))
				row[arp+i], row[nov+i] = pop/n, self/n
				if aplt >= 0 {
					row[aplt+i] = long / n
				}
			}
		}
		if inv != nil {
			rel := r.relevant(a)
			var all float64
			best := make([]float64, len(rel))
			for e, l := range rel {
				best[e] = inv[l]
				all += inv[l]
			}
			slices.Sort(best)
			slices.Reverse(best)
			for i, K := range s.K {
				var hit, top float64
				for _, j := range list[:min(K, len(list))] {
					if _, ok := slices.BinarySearch(rel, j); ok {
						hit += inv[j]
					}
				}
				for _, v := range best[:min(K, len(best))] {
					top += v
				}
				row[psp+i], row[ideal+i], row[psr+i] = hit/float64(K), top/float64(K), hit/all
			}
		}
	})
	all := make([]int32, nq)
	for a := range all {
		all[a] = int32(a)
	}
	res, err := t.results(ctx, []group{{name: SliceAll, pairs: all, items: r.m}}, s, seed, streamExposure)
	if err != nil || !on {
		return res, err
	}
	// Coverage and Gini, per τ, after the τ's other exposure metrics.
	perTau := len(res) / len(ks)
	var out []Result
	for i, tau := range taus {
		mine := res[i*perTau : (i+1)*perTau]
		at := slices.IndexFunc(mine, func(x Result) bool { return x.Metric == MetricNovelty })
		out = append(out, mine[:at]...)
		cov, gini := r.exposureCounts(ks[i], s.K)
		for _, m := range []Metric{MetricCoverage, MetricGini} {
			for i, K := range s.K {
				v := cov[i]
				if m == MetricGini {
					v = gini[i]
				}
				out = append(out, Result{Tau: tau, Slice: SliceAll, Metric: m, K: K, Value: v, Lo: v, Hi: v, Pairs: nq, Items: r.m})
			}
		}
		out = append(out, mine[at:]...)
	}
	return out, nil
}

// exposureCounts returns, under τ k and for every cut-off K of ks, the share of the corpus in
// some query's top K (item coverage@K) and the Gini coefficient of the items' exposure: the
// number of the queries' top-K lists each of the M items is in, never-shown items counting as 0
// (exposureOf).
func (r *ranker) exposureCounts(k int, ks []int) (coverage, gini []float64) {
	lists := make([][]int32, len(r.queries))
	total := 0
	for a := range r.queries {
		lists[a], _ = r.top.list(k, a)
		total += min(slices.Max(ks), len(lists[a]))
	}
	return exposureOf(lists, r.m, ks, 4*total >= r.m)
}

// exposureOf returns the coverage@K and Gini@K of the lists of items of a corpus of m items, for
// every K of ks. The items are counted in an array of the corpus when dense (the lists hold at
// least a quarter as many items as the corpus), else sorted, so that the memory stays in
// proportion to the lists; both give the same.
func exposureOf(lists [][]int32, m int, ks []int, dense bool) (coverage, gini []float64) {
	coverage, gini = make([]float64, len(ks)), make([]float64, len(ks))
	var count []int32
	if dense {
		count = make([]int32, m)
	}
	var shown []int32
	var times []float64
	for i, K := range ks {
		times = times[:0]
		if dense {
			clear(count)
			for _, l := range lists {
				for _, j := range l[:min(K, len(l))] {
					count[j]++
				}
			}
			for _, c := range count {
				if c > 0 {
					times = append(times, float64(c))
				}
			}
		} else {
			shown = shown[:0]
			for _, l := range lists {
				shown = append(shown, l[:min(K, len(l))]...)
			}
			slices.Sort(shown)
			for s := 0; s < len(shown); {
				e := s
				for e < len(shown) && shown[e] == shown[s] {
					e++
				}
				times = append(times, float64(e-s))
				s = e
			}
		}
		slices.Sort(times)
		coverage[i], gini[i] = float64(len(times))/float64(m), giniSorted(times, m)
	}
	return coverage, gini
}

// relevant returns the distinct items of the pairs of queries[a], ascending: a multi-label
// example's test labels.
func (r *ranker) relevant(a int) []int32 {
	var out []int32
	for _, p := range r.pairIdx[r.pairOff[a]:r.pairOff[a+1]] {
		out = append(out, r.pair[p].Item)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// longTail marks the long-tail items of APLT: the tail slice or, with popularity bins, the
// rarest bin that holds items; nil without slices.
func longTail(itemSlice []Slice) []bool {
	if itemSlice == nil {
		return nil
	}
	last := SliceTail
	if _, bin := slices.Max(itemSlice).Bin(); bin {
		last = slices.Max(itemSlice)
	}
	out := make([]bool, len(itemSlice))
	for j, sl := range itemSlice {
		out[j] = sl == last
	}
	return out
}
