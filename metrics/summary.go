package metrics

import (
	"context"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/simd"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// column is one value of a tally's rows: a metric at K, and, for a ratio, the column (of the
// same τ) whose mean divides this one's mean. A column without a metric is only a denominator
// and is not reported.
type column struct {
	metric Metric
	k      int
	den    int // index of the denominator column within the τ's columns; -1 for a plain mean
}

// tally adds up metric vectors: per τ k (of taus), value i of a row at k*width+i, columns as cols
// says.
type tally struct {
	cols   []column
	taus   []float64
	nt, np int
	// rows holds what each row (a test pair, or a query) adds to a metric vector, at
	// rows[p*stride:], nt·width values padded with zeros to stride, a multiple of 16.
	rows   []float64
	stride int
}

func (t *tally) width() int { return len(t.cols) }

// newTally returns a tally of np rows with the columns cols for the strengths taus of post-hoc
// logit adjustment; fill sets the row of τ taus[k] and row p (zeros in, width values).
func newTally(cols []column, taus []float64, np int, fill func(k, p int, row []float64)) *tally {
	nt := len(taus)
	t := &tally{cols: cols, taus: taus, nt: nt, np: np}
	w := t.width()
	t.stride = (nt*w + 15) / 16 * 16
	t.rows = make([]float64, np*t.stride)
	for p := range np {
		for k := range nt {
			fill(k, p, t.rows[p*t.stride+k*w:p*t.stride+(k+1)*w])
		}
	}
	return t
}

// rankColumns are the columns of a rank tally: recall for each K, ndcg for each K, mrr.
func rankColumns(ks []int, recall, ndcg, mrr Metric) []column {
	var cols []column
	for _, m := range []Metric{recall, ndcg} {
		for _, k := range ks {
			cols = append(cols, column{m, k, -1})
		}
	}
	return append(cols, column{mrr, 0, -1})
}

// rankRow sets the rank columns of a row for the rank r: 1 and the NDCG gain 1/log2(r+1) for
// every K with r ≤ K (zeros for the others), and the reciprocal rank.
func rankRow(ks []int, r int32, row []float64) {
	nk := len(ks)
	gain := 1 / math.Log2(float64(r)+1)
	for i, K := range ks {
		if int(r) <= K {
			row[i], row[nk+i] = 1, gain
		}
	}
	row[2*nk] = 1 / float64(r)
}

// rankTally tabulates the metric values of ranks (per τ k and pair p at ranks[k*np+p]).
func rankTally(ks []int, taus []float64, np int, ranks []int32) *tally {
	return newTally(rankColumns(ks, MetricRecall, MetricNDCG, MetricMRR), taus, np, func(k, p int, row []float64) {
		rankRow(ks, ranks[k*np+p], row)
	})
}

// sum sets sum (nt·width values) to the metric sums of the rows idx, adding them in the order of
// idx, 16 values at a time (simd.AddRows). Every recall and NDCG sum adds 1 and the gain where
// rank ≤ K and zeros elsewhere, without a branch on the rank: the sums are those of adding only
// where rank ≤ K, since a sum of nonnegative terms is unchanged by adding +0.
func (t *tally) sum(sum []float64, idx []int32) {
	acc := make([]float64, (len(sum)+15)/16*16)
	simd.AddRows(acc, t.rows, t.stride, idx)
	copy(sum, acc)
}

// ratios turns means (nt·width values, in place) into values: a ratio column's mean is divided
// by its denominator's.
func (t *tally) ratios(v []float64) {
	w := t.width()
	for k := range t.nt {
		for i, c := range t.cols {
			if c.den >= 0 {
				v[k*w+i] /= v[k*w+c.den]
			}
		}
	}
}

// group is a set of rows a Result is over: a slice's test pairs (rows may repeat, as in a
// resample), and the slice's corpus items.
type group struct {
	name  Slice
	pairs []int32
	items int
}

// sliceGroups returns the groups of the rows idx of pairs (nil: every pair once), "all" first,
// then head, torso, tail, or the bins, of itemSlice (nil: "all" only); m items in the corpus.
func sliceGroups(pairs []Pair, idx []int32, itemSlice []Slice, m int) []group {
	if idx == nil {
		idx = make([]int32, len(pairs))
		for p := range idx {
			idx[p] = int32(p)
		}
	}
	groups := []group{{name: SliceAll, pairs: idx, items: m}}
	if itemSlice != nil {
		for _, sl := range presentSlices(itemSlice) {
			g := group{name: sl}
			for _, p := range idx {
				if itemSlice[pairs[p].Item] == sl {
					g.pairs = append(g.pairs, p)
				}
			}
			for _, x := range itemSlice {
				if x == sl {
					g.items++
				}
			}
			groups = append(groups, g)
		}
	}
	return groups
}

// summarize turns ranks (per τ k and pair p at ranks[k*len(pairs)+p]) into Results.
// It returns ctx.Err() within one bootstrap resample of ctx being done.
func summarize(ctx context.Context, ranks []int32, pairs []Pair, itemSlice []Slice, m int, s *Settings, seed int64) ([]Result, error) {
	t := rankTally(s.K, s.LogitAdjust, len(pairs), ranks)
	return t.results(ctx, sliceGroups(pairs, nil, itemSlice, m), s, seed, 0)
}

// results returns the Results of every group's rows, grouped by τ (in the tally's order), then
// group, then column, with bootstrap intervals drawn from streams g0 + the group's index (see
// bootstrap). A group without rows is left out, and so are the columns without a metric. Each
// Result's Pairs is its group's number of rows.
func (t *tally) results(ctx context.Context, groups []group, s *Settings, seed int64, g0 uint64) ([]Result, error) {
	w := t.width()
	perTau := make([][]Result, t.nt)
	for gi, g := range groups {
		if len(g.pairs) == 0 {
			continue
		}
		mean := make([]float64, t.nt*w)
		t.sum(mean, g.pairs)
		for i := range mean {
			mean[i] /= float64(len(g.pairs))
		}
		t.ratios(mean)
		lo, hi := mean, mean
		if s.Bootstrap > 0 {
			var err error
			if lo, hi, err = t.bootstrap(ctx, g.pairs, s.Bootstrap, s.Workers, seed, g0+uint64(gi)); err != nil {
				return nil, err
			}
		}
		for k, tau := range t.taus {
			for i, c := range t.cols {
				if c.metric == "" {
					continue
				}
				j := k*w + i
				perTau[k] = append(perTau[k], Result{Tau: tau, Slice: g.name, Metric: c.metric, K: c.k,
					Value: mean[j], Lo: lo[j], Hi: hi[j], Pairs: len(g.pairs), Items: g.items})
			}
		}
	}
	return slices.Concat(perTau...), nil
}

// bootstrap returns the 2.5% and 97.5% empirical quantiles of the metric values over b resamples
// (with replacement, of size len(pairs)) of pairs. Resample i of group g draws from a PCG seeded
// with (seed, g<<32 | i), so the result does not depend on the number of workers.
func (t *tally) bootstrap(ctx context.Context, pairs []int32, b, workers int, seed int64, g uint64) (lo, hi []float64, err error) {
	w := t.nt * t.width()
	means := make([]float64, b*w) // resample i at means[i*w:]
	n := len(pairs)
	src := make([]*rand.PCG, max(1, min(workers, b)))
	draws := make([][]int32, len(src))
	err = parallel.Each(ctx, b, len(src), func(wk, i int) error {
		if src[wk] == nil {
			src[wk], draws[wk] = &rand.PCG{}, make([]int32, n)
		}
		src[wk].Seed(uint64(seed), g<<32|uint64(i))
		for j := range draws[wk] {
			draws[wk][j] = pairs[intN(src[wk], uint64(n))]
		}
		sum := means[i*w : (i+1)*w]
		t.sum(sum, draws[wk])
		for j := range sum {
			sum[j] /= float64(n)
		}
		t.ratios(sum)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}

	lo, hi = make([]float64, w), make([]float64, w)
	col := make([]float64, b)
	for j := range w {
		for i := range col {
			col[i] = means[i*w+j]
		}
		slices.Sort(col)
		lo[j] = stat.Quantile(0.025, stat.Empirical, col, nil)
		hi[j] = stat.Quantile(0.975, stat.Empirical, col, nil)
	}
	return lo, hi, nil
}

// intN is rand.New(src).IntN(n) for n > 0, the same numbers from the same state (math/rand/v2's
// reduction: the high word of the 128-bit product of a draw and n, Lemire's rejection where the
// low word falls below 2⁶⁴ mod n). It calls the PCG directly rather than through rand.Source,
// which the bootstrap's draws, about half of its time, would otherwise pay for each index.
func intN(src *rand.PCG, n uint64) int {
	if n&(n-1) == 0 {
		return int(src.Uint64() & (n - 1))
	}
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return int(hi)
}

// MeanCI aggregates one metric across seeds: its mean and the 95% Student-t confidence interval
// mean ± t(0.975; n-1)·sd/√n, with sd the sample standard deviation (n-1 denominator); lo = hi =
// mean for n = 1, and all three are NaN for n = 0. Up to the rounding of computing them, as
// Equal judges it: values equal up to rounding have no spread (lo = hi = mean), and a mean of at
// most rounding × the largest |value| is 0 (the paired differences +d, −d and 0 of three seeds
// average to 0, not to the 1e-19 their floating-point sum leaves).
func MeanCI(values []float64) (mean, lo, hi float64) {
	n := len(values)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	mean, sd := stat.MeanStdDev(values, nil)
	if n == 1 {
		return mean, mean, mean
	}
	var largest float64
	for _, v := range values {
		largest = math.Max(largest, math.Abs(v))
	}
	if math.Abs(mean) <= rounding*largest {
		mean = 0
	}
	if Equal(values) {
		return mean, mean, mean
	}
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
	half := q * sd / math.Sqrt(float64(n))
	return mean, mean - half, mean + half
}

// presentSlices lists the slices of itemSlice in increasing order, each once.
func presentSlices(itemSlice []Slice) []Slice {
	var present [256]bool
	for _, sl := range itemSlice {
		present[sl] = true
	}
	var out []Slice
	for sl, ok := range present {
		if ok {
			out = append(out, Slice(sl))
		}
	}
	return out
}
