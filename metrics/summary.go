package metrics

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/simd"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// tally adds up metric vectors: per τ k, recall@K_i at k*width+i, ndcg@K_i at
// k*width+len(K)+i and the reciprocal rank at k*width+2·len(K).
type tally struct {
	ks     []int
	nt, np int
	// rows holds what each pair adds to a metric vector, at rows[p*stride:], nt·width values
	// padded with zeros to stride, a multiple of 16: 1 and the NDCG gain 1/log2(rank+1) for
	// every K with rank ≤ K (zeros for the others), and the reciprocal rank.
	rows   []float64
	stride int
}

func (t *tally) width() int { return 2*len(t.ks) + 1 }

// newTally tabulates the metric values of ranks (per τ k and pair p at ranks[k*np+p]).
func newTally(ks []int, nt, np int, ranks []int32) *tally {
	t := &tally{ks: ks, nt: nt, np: np}
	w, nk := t.width(), len(ks)
	t.stride = (nt*w + 15) / 16 * 16
	t.rows = make([]float64, np*t.stride)
	for x, r := range ranks {
		k, p := x/np, x%np
		row := t.rows[p*t.stride+k*w : p*t.stride+(k+1)*w]
		gain := 1 / math.Log2(float64(r)+1)
		for i, K := range ks {
			if int(r) <= K {
				row[i], row[nk+i] = 1, gain
			}
		}
		row[2*nk] = 1 / float64(r)
	}
	return t
}

// sum sets sum (nt·width values) to the metric sums of the pairs idx, adding them in the order of
// idx, 16 values at a time (simd.AddRows16). Every recall and NDCG sum adds 1 and the gain where
// rank ≤ K and zeros elsewhere, without a branch on the rank: the sums are those of adding only
// where rank ≤ K, since a sum of nonnegative terms is unchanged by adding +0.
func (t *tally) sum(sum []float64, idx []int32) {
	for c := 0; c < len(sum); c += 16 {
		var acc [16]float64
		simd.AddRows16(&acc, t.rows[c:], t.stride, idx)
		copy(sum[c:], acc[:])
	}
}

// summarize turns ranks (per τ k and pair p at ranks[k*len(pairs)+p]) into Results.
// It returns ctx.Err() within one bootstrap resample of ctx being done.
func summarize(ctx context.Context, ranks []int32, pairs []Pair, itemSlice []Slice, m int, s *Settings, seed int64) ([]Result, error) {
	t := newTally(s.K, len(s.LogitAdjust), len(pairs), ranks)

	// The pairs and items of each slice: "all" first, then head, torso, tail, or the bins.
	type group struct {
		name  Slice
		pairs []int32
		items int
	}
	all := make([]int32, len(pairs))
	for p := range all {
		all[p] = int32(p)
	}
	groups := []group{{name: SliceAll, pairs: all, items: m}}
	if itemSlice != nil {
		for _, sl := range presentSlices(itemSlice) {
			g := group{name: sl}
			for p, pr := range pairs {
				if itemSlice[pr.Item] == sl {
					g.pairs = append(g.pairs, int32(p))
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
		lo, hi := mean, mean
		if s.Bootstrap > 0 {
			var err error
			if lo, hi, err = t.bootstrap(ctx, g.pairs, s.Bootstrap, s.Workers, seed, uint64(gi)); err != nil {
				return nil, err
			}
		}
		for k, tau := range s.LogitAdjust {
			for i := range w {
				metric, K := MetricMRR, 0
				if i < 2*len(s.K) {
					metric, K = MetricRecall, s.K[i%len(s.K)]
					if i >= len(s.K) {
						metric = MetricNDCG
					}
				}
				j := k*w + i
				perTau[k] = append(perTau[k], Result{Tau: tau, Slice: g.name, Metric: metric, K: K,
					Value: mean[j], Lo: lo[j], Hi: hi[j], Pairs: len(g.pairs), Items: g.items})
			}
		}
	}
	return slices.Concat(perTau...), nil
}

// bootstrap returns the 2.5% and 97.5% empirical quantiles of the metric means over b resamples
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
		rng := rand.New(src[wk])
		for j := range draws[wk] {
			draws[wk][j] = pairs[rng.IntN(n)]
		}
		sum := means[i*w : (i+1)*w]
		t.sum(sum, draws[wk])
		for j := range sum {
			sum[j] /= float64(n)
		}
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

// MeanCI aggregates one metric across seeds: its mean and the 95% Student-t confidence interval
// mean ± t(0.975; n-1)·sd/√n, with sd the sample standard deviation (n-1 denominator); lo = hi =
// mean for n = 1, and all three are NaN for n = 0.
func MeanCI(values []float64) (mean, lo, hi float64) {
	n := len(values)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	mean, sd := stat.MeanStdDev(values, nil)
	if n == 1 {
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
