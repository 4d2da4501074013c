package metrics

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas"

	"github.com/samplingbias/workbench/internal/parallel"
	"github.com/samplingbias/workbench/internal/setting"
)

// Link is how a model's logit f = s/τ reads as its estimate p̂ of P(item | query), the quantity
// Calibrate compares with the truth (docs/calibration.md).
type Link string

// Links.
const (
	// LinkSoftmax: p̂_i = e^{f_i} / Σ_j e^{f_j} over the whole corpus, the probability a softmax
	// loss models (Yi et al. 2019, eq. 1; the full softmax of the candidate-sampling table).
	LinkSoftmax Link = "softmax"
	// LinkSigmoid: p̂_i = σ(f_i), the probability a binary cross-entropy models: what Petrov &
	// Macdonald (gSASRec, RecSys 2023, §4) read off a model trained with sampled negatives, and
	// what sampled logistic regression trains f to be the log-odds of.
	LinkSigmoid Link = "sigmoid"
	// LinkExp: p̂_i = e^{f_i}, the self-normalised log-probability noise-contrastive estimation
	// trains f to be (Mnih & Teh 2012; the candidate-sampling table's NCE row).
	LinkExp Link = "exp"
)

var links = []Link{LinkSoftmax, LinkSigmoid, LinkExp}

// UnmarshalText sets l from its name; an unknown name is an error that lists the allowed ones.
func (l *Link) UnmarshalText(b []byte) error { return setting.Unmarshal(l, b, links) }

// Estimate names which estimate of P(item | query) a reliability curve is of.
type Estimate string

// Estimates.
const (
	// EstimateModel is the model's estimate through its loss's Link.
	EstimateModel Estimate = "model"
	// EstimatePHat is Khrylchenko et al.'s P̂ ("Correcting the LogQ Correction", RecSys 2025):
	// the full softmax's probability of an item estimated from k' uniform negatives
	// (CalibrationInput.PHat).
	EstimatePHat Estimate = "phat"
)

// Calibration metrics (K = 0), by slice of the pair's item and for all pairs (Calibrate).
const (
	// MetricECE is the expected calibration error against the true probability,
	// Σ_b (n_b/n)·|mean p̂ − mean p| over the bins b of p̂ (Naeini et al. 2015; Guo et al. 2017).
	MetricECE Metric = "ece"
	// MetricECERel is ECE over the mean true probability of the pairs, Σ_b |Σ_b (p̂ − p)| / Σ p:
	// the share of the slice's probability mass the model misplaces across its bins.
	MetricECERel Metric = "ece_rel"
	// MetricMassRatio is Σ p̂ / Σ p: above 1 the model is overconfident on the slice's items.
	MetricMassRatio Metric = "mass_ratio"
	// MetricPHatECE, MetricPHatECERel and MetricPHatMassRatio are the same of Khrylchenko et al.'s P̂.
	MetricPHatECE       Metric = "phat_ece"
	MetricPHatECERel    Metric = "phat_ece_rel"
	MetricPHatMassRatio Metric = "phat_mass_ratio"
)

// CalibrationMetrics returns the calibration metrics in reporting order: ece, ece_rel,
// mass_ratio, then the same of P̂.
func CalibrationMetrics() []Metric {
	return []Metric{MetricECE, MetricECERel, MetricMassRatio, MetricPHatECE, MetricPHatECERel, MetricPHatMassRatio}
}

// calibrationMetrics are the three metrics of an estimate, in the order of CalibrationMetrics.
func calibrationMetrics(e Estimate) [3]Metric {
	if e == EstimatePHat {
		return [3]Metric{MetricPHatECE, MetricPHatECERel, MetricPHatMassRatio}
	}
	return [3]Metric{MetricECE, MetricECERel, MetricMassRatio}
}

// MaxCalibrationPairs bounds the (query, item) pairs Calibrate measures in a run:
// CalibrationRows samples the queries down to MaxCalibrationPairs/M of them.
const MaxCalibrationPairs = 1 << 25

// binsPerDecade is the number of reliability bins per decade of p̂.
const binsPerDecade = 4

// CalibrationRows returns the query rows 0..n−1 that Calibrate measures over a corpus of items:
// all of them, or, when n·items exceeds MaxCalibrationPairs, a seeded uniform sample of
// max(1, MaxCalibrationPairs/items) rows, ascending.
func CalibrationRows(n, items int, seed int64) []int32 {
	keep := n
	if int64(n)*int64(items) > MaxCalibrationPairs {
		keep = max(1, MaxCalibrationPairs/items)
	}
	rows := make([]int32, n)
	for i := range rows {
		rows[i] = int32(i)
	}
	if keep < n {
		rng := rand.New(rand.NewPCG(uint64(seed), streamCalibrationRows))
		for i := range keep { // partial Fisher–Yates
			j := i + rng.IntN(n-i)
			rows[i], rows[j] = rows[j], rows[i]
		}
		rows = rows[:keep]
		slices.Sort(rows)
	}
	return rows
}

// Random streams of the calibration, apart from the bootstrap's and SamplePairs'.
const (
	streamCalibrationRows = 0x63616c6962 // "calib"
	streamPHat            = 0x7068617400 // "phat"
)

// ReliabilityEdges returns the lower edges of the reliability bins of p̂ over a corpus of items:
// 0, then 10^(−D + b/4) for b = 0 … 4D − 1, D = ⌈log10 items⌉ + 3 decades below 1, four bins a
// decade. Bin b holds the p̂ in [edge b, edge b+1), the last one every p̂ from 10^(−1/4) up.
func ReliabilityEdges(items int) []float64 {
	d := decades(items)
	edges := make([]float64, 1+binsPerDecade*d)
	for b := 1; b < len(edges); b++ {
		edges[b] = math.Pow(10, -float64(d)+float64(b-1)/binsPerDecade)
	}
	return edges
}

// decades is D of ReliabilityEdges: the uniform probability 1/M lies 3 decades above the lowest
// edge, so that a tail item's probability, a few decades below 1/M, still has bins of its own.
func decades(items int) int { return int(math.Ceil(math.Log10(float64(max(items, 1))))) + 3 }

// binOf returns the reliability bin of p (see ReliabilityEdges; d its decades).
func binOf(p float64, d int) int {
	l := math.Log10(p) + float64(d) // decades above the lowest edge
	if !(l >= 0) {                  // below it, 0, or NaN
		return 0
	}
	return min(binsPerDecade*d, 1+int(math.Floor(l*binsPerDecade)))
}

// CalibrationInput is what Calibrate measures: a model's logits for some queries and the whole
// corpus, and the true probabilities.
type CalibrationInput struct {
	// U (N×Dim) and V (M×Dim) are row-major query and item embeddings whose products are the
	// model's logits f(x, j) = U[x]·V[j] = s/τ.
	U, V []float32
	Dim  int
	// Rows are the query rows of U measured, each with every item of the corpus.
	Rows []int32
	// Truth writes into dst (len M) the true P(item j | query row x) of every item; each row sums
	// to 1.
	Truth func(row int32, dst []float64) error
	// Link turns logits into the model's estimate.
	Link Link
	// ItemSlice is the slice of every item (nil = all pairs only).
	ItemSlice []Slice
	// LogPrior is log π of every item, as in Input; needed when Settings.LogitAdjust has a
	// non-zero τ, whose adjusted logits f − τ·log π are measured too.
	LogPrior []float64
	// PHat, when positive, also measures Khrylchenko et al.'s P̂ with PHat uniform negatives per
	// query (Link must be LinkSoftmax, the probability P̂ estimates).
	PHat int
	// TestQueries is the number of query rows Rows were drawn from, recorded in the result.
	TestQueries int
}

// Calibration is what Calibrate measured, the reliability curves of every estimate: the
// figure's data, summed over the pairs so that runs can be pooled.
type Calibration struct {
	Link Link `json:"link"`
	// Queries are the query rows measured, TestQueries the rows they were drawn from, and Items
	// the corpus: Queries × Items pairs.
	Queries     int `json:"queries"`
	TestQueries int `json:"test_queries"`
	Items       int `json:"items"`
	// PHatNegatives is k' of P̂ (0 = not measured).
	PHatNegatives int `json:"phat_negatives,omitempty"`
	// Edges are the bins' lower edges (ReliabilityEdges).
	Edges []float64 `json:"edges"`
	// Curves are the reliability curves of all pairs, one per logit-adjustment strength τ
	// (Settings.LogitAdjust order) and estimate.
	Curves []ReliabilityCurve `json:"curves"`
}

// ReliabilityCurve is one estimate's reliability curve at one logit-adjustment strength.
type ReliabilityCurve struct {
	Tau      float64  `json:"tau"`
	Estimate Estimate `json:"estimate"`
	// Bins has one entry per bin of Calibration.Edges.
	Bins []ReliabilityBin `json:"bins"`
}

// ReliabilityBin sums a bin's pairs: their number, Σ p̂ and Σ p.
type ReliabilityBin struct {
	Pairs     int64   `json:"pairs"`
	Predicted float64 `json:"predicted"`
	True      float64 `json:"true"`
}

// Calibrate measures how well the model's estimate of P(item | query) matches the truth over the
// pairs (x, j) of every query row x of in.Rows and every item j of the corpus, at every
// logit-adjustment strength τ of s (the logits f − τ·log π): the estimate through in.Link and,
// with in.PHat, Khrylchenko et al.'s P̂. For each it returns the results ece, ece_rel and
// mass_ratio (or their phat_ forms), K = 0, over all pairs and by slice of the pair's item, and
// the reliability curves of all pairs (docs/calibration.md defines every one); the mass ratio of
// all pairs under the softmax link is left out, being 1 by construction. Results carry no
// interval (Lo = Hi = Value): Pairs is the number of pairs measured, Items the slice's items.
// The queries are measured in parallel over s.Workers goroutines, in blocks whose sums are added
// in query order, so the results do not depend on the number of workers; P̂'s negatives are
// drawn from a source seeded by seed and the row.
func Calibrate(ctx context.Context, in CalibrationInput, s Settings, seed int64) (*Calibration, []Result, error) {
	if err := s.Resolve(); err != nil {
		return nil, nil, fmt.Errorf("metrics: eval settings: %w", err)
	}
	m, err := in.check(&s)
	if err != nil {
		return nil, nil, err
	}
	estimates := []Estimate{EstimateModel}
	if in.PHat > 0 {
		estimates = append(estimates, EstimatePHat)
	}
	d := decades(m)
	nb := 1 + binsPerDecade*d
	// One accumulator per (τ, estimate, slice), slices indexed by their value (SliceAll among them).
	curves := len(s.LogitAdjust) * len(estimates)
	blockRows, blocks := calibrationBlocks(len(in.Rows))
	sums := make([]*reliability, blocks)
	bufs := make([]*calibrationBuffers, s.Workers)
	err = parallel.Each(ctx, blocks, s.Workers, func(w, blk int) error {
		if bufs[w] == nil {
			bufs[w] = newCalibrationBuffers(m, in.PHat)
		}
		acc := newReliability(curves, nb)
		for _, row := range in.Rows[blk*blockRows : min(len(in.Rows), (blk+1)*blockRows)] {
			if err := in.measure(row, acc, bufs[w], &s, estimates, d, seed); err != nil {
				return err
			}
		}
		sums[blk] = acc
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	total := newReliability(curves, nb)
	for _, acc := range sums {
		total.merge(acc)
	}
	cal := &Calibration{Link: in.Link, Queries: len(in.Rows), TestQueries: in.TestQueries, Items: m, PHatNegatives: in.PHat, Edges: ReliabilityEdges(m)}
	itemsIn := map[Slice]int{SliceAll: m}
	for _, sl := range in.ItemSlice {
		itemsIn[sl]++
	}
	var order []Slice // the items' slices in increasing order, then all pairs
	for sl := range itemsIn {
		if sl != SliceAll {
			order = append(order, sl)
		}
	}
	slices.Sort(order)
	order = append(order, SliceAll)
	var res []Result
	for k, tau := range s.LogitAdjust {
		for e, est := range estimates {
			c := k*len(estimates) + e
			cal.Curves = append(cal.Curves, ReliabilityCurve{Tau: tau, Estimate: est, Bins: slices.Clone(total.bins[c][SliceAll])})
			names := calibrationMetrics(est)
			for _, sl := range order {
				ece, rel, ratio, pairs := summarizeBins(total.bins[c][sl])
				if pairs == 0 {
					continue
				}
				for i, v := range []float64{ece, rel, ratio} {
					if i == 2 && sl == SliceAll && est == EstimateModel && in.Link == LinkSoftmax {
						continue // a softmax over the corpus sums to 1 for every query, as the truth does
					}
					res = append(res, Result{Tau: tau, Slice: sl, Metric: names[i], Value: v, Lo: v, Hi: v,
						Pairs: int(pairs), Items: itemsIn[sl], TestPairs: int(pairs)})
				}
			}
		}
	}
	return cal, res, nil
}

// calibrationBlocks returns the rows of a block of Calibrate's work over n query rows and the
// number of blocks: at most 64 blocks of at least 16 rows, so that their sums, kept until they are
// added in order, stay small whatever the number of queries.
func calibrationBlocks(n int) (rows, blocks int) {
	const maxBlocks = 64
	rows = max(16, (n+maxBlocks-1)/maxBlocks)
	return rows, (n + rows - 1) / rows
}

// CalibrationWorkers returns how many of workers goroutines Calibrate uses over n query rows (each
// with its own rows of the corpus's values): one per block of its work at most.
func CalibrationWorkers(n, workers int) int {
	_, blocks := calibrationBlocks(n)
	return max(1, min(workers, blocks))
}

// summarizeBins returns ECE, ECE over the mean true probability, Σ p̂ / Σ p and the number of
// pairs of a slice's bins.
func summarizeBins(bins []ReliabilityBin) (ece, rel, ratio float64, pairs int64) {
	var gap, pred, truth float64
	for _, b := range bins {
		pairs += b.Pairs
		gap += math.Abs(b.Predicted - b.True)
		pred += b.Predicted
		truth += b.True
	}
	if pairs == 0 {
		return 0, 0, 0, 0
	}
	return gap / float64(pairs), gap / truth, pred / truth, pairs
}

// check validates in against resolved s and returns the number of items.
func (in *CalibrationInput) check(s *Settings) (int, error) {
	d := in.Dim
	switch {
	case d < 1:
		return 0, fmt.Errorf("metrics: calibration: Dim must be positive, got %d", d)
	case len(in.U)%d != 0 || len(in.V)%d != 0:
		return 0, fmt.Errorf("metrics: calibration: len(U) = %d and len(V) = %d must be multiples of Dim = %d", len(in.U), len(in.V), d)
	case !slices.Contains(links, in.Link):
		return 0, fmt.Errorf("metrics: calibration: link %q is not one of %v", in.Link, links)
	case in.PHat < 0 || (in.PHat > 0 && in.Link != LinkSoftmax):
		return 0, fmt.Errorf("metrics: calibration: P̂ needs k' ≥ 1 negatives and the softmax link (k' = %d, link %s)", in.PHat, in.Link)
	case in.Truth == nil:
		return 0, errors.New("metrics: calibration: no Truth")
	}
	n, m := len(in.U)/d, len(in.V)/d
	if m < 2 {
		return 0, fmt.Errorf("metrics: calibration: %d items; P(item | query) needs at least 2", m)
	}
	if len(in.Rows) == 0 {
		return 0, errors.New("metrics: calibration: no query rows")
	}
	for i, r := range in.Rows {
		if r < 0 || int(r) >= n {
			return 0, fmt.Errorf("metrics: calibration: Rows[%d] = %d out of range: %d query rows", i, r, n)
		}
	}
	if in.ItemSlice != nil && len(in.ItemSlice) != m {
		return 0, fmt.Errorf("metrics: calibration: len(ItemSlice) = %d, want %d items", len(in.ItemSlice), m)
	}
	if s.needsPrior() && len(in.LogPrior) != m {
		return 0, fmt.Errorf("metrics: calibration: logit_adjust has a non-zero tau, so LogPrior needs %d items, got %d", m, len(in.LogPrior))
	}
	if j := firstNotFinite(in.U); j >= 0 {
		return 0, fmt.Errorf("metrics: calibration: U[%d][%d] = %v is not finite", j/d, j%d, in.U[j])
	}
	if j := firstNotFinite(in.V); j >= 0 {
		return 0, fmt.Errorf("metrics: calibration: V[%d][%d] = %v is not finite", j/d, j%d, in.V[j])
	}
	return m, nil
}

// calibrationBuffers are one goroutine's rows of M values.
type calibrationBuffers struct {
	f32    []float32 // the query's logits
	f      []float64 // its logits under the current τ
	truth  []float64
	pHat   []float64
	draws  []int32 // P̂'s negatives
	copies []int32 // how many times each item was drawn
}

func newCalibrationBuffers(m, phat int) *calibrationBuffers {
	b := &calibrationBuffers{f32: make([]float32, m), f: make([]float64, m), truth: make([]float64, m), draws: make([]int32, phat)}
	if phat > 0 {
		b.pHat, b.copies = make([]float64, m), make([]int32, m)
	}
	return b
}

// reliability sums pairs into bins: bins[curve][slice][bin].
type reliability struct{ bins [][][]ReliabilityBin }

func newReliability(curves, nb int) *reliability {
	r := &reliability{bins: make([][][]ReliabilityBin, curves)}
	for c := range r.bins {
		r.bins[c] = make([][]ReliabilityBin, 256)
		r.bins[c][SliceAll] = make([]ReliabilityBin, nb)
	}
	return r
}

// add sums pair (p̂, p) of an item of slice sl into bin b of curve c.
func (r *reliability) add(c int, sl Slice, b int, pHat, p float64) {
	for _, s := range [2]Slice{sl, SliceAll} {
		bins := r.bins[c][s]
		if bins == nil {
			bins = make([]ReliabilityBin, len(r.bins[c][SliceAll]))
			r.bins[c][s] = bins
		}
		bins[b].Pairs++
		bins[b].Predicted += pHat
		bins[b].True += p
		if sl == SliceAll {
			return
		}
	}
}

// merge adds o's sums into r.
func (r *reliability) merge(o *reliability) {
	for c := range r.bins {
		for sl, bins := range o.bins[c] {
			if bins == nil {
				continue
			}
			if r.bins[c][sl] == nil {
				r.bins[c][sl] = make([]ReliabilityBin, len(bins))
			}
			for b, x := range bins {
				y := &r.bins[c][sl][b]
				y.Pairs += x.Pairs
				y.Predicted += x.Predicted
				y.True += x.True
			}
		}
	}
}

// measure adds the pairs of query row x with every item into acc, for every τ and estimate.
func (in *CalibrationInput) measure(x int32, acc *reliability, buf *calibrationBuffers, s *Settings, estimates []Estimate, d int, seed int64) error {
	m, dim := len(buf.f), in.Dim
	float32BLAS().Sgemv(blas.NoTrans, m, dim, 1, in.V, dim, in.U[int(x)*dim:(int(x)+1)*dim], 1, 0, buf.f32, 1)
	if err := in.Truth(x, buf.truth); err != nil {
		return err
	}
	if in.PHat > 0 {
		rng := rand.New(rand.NewPCG(uint64(seed), streamPHat^uint64(x)<<8))
		clear(buf.copies)
		for k := range buf.draws {
			buf.draws[k] = int32(rng.IntN(m))
			buf.copies[buf.draws[k]]++
		}
	}
	for k, tau := range s.LogitAdjust {
		for j, v := range buf.f32 {
			buf.f[j] = float64(v)
			if tau != 0 {
				buf.f[j] -= tau * in.LogPrior[j]
			}
		}
		in.Link.apply(buf.f, buf)
		for e, est := range estimates {
			c := k*len(estimates) + e
			pred := buf.f // the link's estimate, written over the logits
			if est == EstimatePHat {
				pred = buf.pHat
			}
			for j, p := range pred {
				sl := SliceAll
				if in.ItemSlice != nil {
					sl = in.ItemSlice[j]
				}
				acc.add(c, sl, binOf(p, d), p, buf.truth[j])
			}
		}
	}
	return nil
}

// apply replaces the logits f by the link's estimate; with P̂'s draws in buf it first writes P̂ of
// every item into buf.pHat from the softmax's logits.
func (l Link) apply(f []float64, buf *calibrationBuffers) {
	switch l {
	case LinkSigmoid:
		for j, v := range f {
			f[j] = 1 / (1 + math.Exp(-v))
		}
	case LinkExp:
		for j, v := range f {
			f[j] = math.Exp(v)
		}
	case LinkSoftmax:
		top := math.Inf(-1)
		for _, v := range f {
			top = math.Max(top, v)
		}
		if len(buf.draws) > 0 {
			khrylchenkoPHat(f, top, buf.draws, buf.copies, buf.pHat)
		}
		var z float64
		for j, v := range f {
			f[j] = math.Exp(v - top)
			z += f[j]
		}
		for j := range f {
			f[j] /= z
		}
	}
}

// khrylchenkoPHat writes into out, for every item i of the corpus, Khrylchenko et al.'s estimate
// of its full-softmax probability from the k' = len(draws) uniform draws S (with replacement,
// over all M items; copies[i] of them are item i) of logits f (top their maximum): the draws that
// are i itself removed, as their code masks the positive's copies, the others a uniform sample of
// the M − 1 other items, Q'(j) = 1/(M − 1), and
//
//	P̂_i = e^{f_i} / (e^{f_i} + (1/k'_i)·Σ_{j∈S, j≠i} e^{f_j}/Q'(j)),   k'_i = #{j ∈ S: j ≠ i},
//
// with P̂_i = 1 when every draw is i (no negative).
func khrylchenkoPHat(f []float64, top float64, draws, copies []int32, out []float64) {
	m := float64(len(f))
	var sum float64 // Σ_{j∈S} e^{f_j − top}, copies counted
	for _, j := range draws {
		sum += math.Exp(f[j] - top)
	}
	k := len(draws)
	for i, v := range f {
		e := math.Exp(v - top)
		ki := k - int(copies[i])
		if ki == 0 {
			out[i] = 1
			continue
		}
		rest := math.Max(sum-float64(copies[i])*e, 0)
		out[i] = e / (e + (m-1)/float64(ki)*rest)
	}
}
