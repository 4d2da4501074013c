package metrics

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// calibrationCase is a planted model: logits of query rows × items given directly (V is the
// identity, so U[x]·V[j] = logits[x][j]) and the true distribution of every row.
type calibrationCase struct {
	logits, truth [][]float64
	slice         []Slice
}

// input is the CalibrationInput of the case under link.
func (c calibrationCase) input(link Link) CalibrationInput {
	n, m := len(c.logits), len(c.logits[0])
	in := CalibrationInput{Dim: m, U: make([]float32, n*m), V: make([]float32, m*m), Link: link, ItemSlice: c.slice, TestQueries: n}
	for x, row := range c.logits {
		for j, f := range row {
			in.U[x*m+j] = float32(f)
		}
		in.Rows = append(in.Rows, int32(x))
	}
	for j := range m {
		in.V[j*m+j] = 1
	}
	in.Truth = func(row int32, dst []float64) error {
		copy(dst, c.truth[row])
		return nil
	}
	return in
}

// calibrate runs Calibrate on in and returns its results by (metric, slice) at τ = 0.
func calibrate(t *testing.T, in CalibrationInput, s Settings) (*Calibration, map[Metric]map[Slice]float64) {
	t.Helper()
	cal, res, err := Calibrate(context.Background(), in, s, 1)
	if err != nil {
		t.Fatal(err)
	}
	out := map[Metric]map[Slice]float64{}
	for _, r := range res {
		if r.Tau != 0 {
			continue
		}
		if out[r.Metric] == nil {
			out[r.Metric] = map[Slice]float64{}
		}
		out[r.Metric][r.Slice] = r.Value
	}
	return cal, out
}

// TestCalibrationByHand: two queries, three items (head, torso, tail), logits log p̂ of the
// estimates (0.5, 0.3, 0.2) and (0.68, 0.2, 0.12) against the truths (0.6, 0.3, 0.1) and
// (0.5, 0.25, 0.25). Over M = 3 items the bins are a quarter decade wide from 10⁻⁴, so the
// pairs fall in [10^−0.25, ∞): 0.68|0.5; [10^−0.5, 10^−0.25): 0.5|0.6; [10^−0.75, 10^−0.5):
// 0.3|0.3, 0.2|0.1, 0.2|0.25; [10⁻¹, 10^−0.75): 0.12|0.25. All pairs: Σ_b |Σp̂ − Σp| = 0.18 +
// 0.1 + |0.7 − 0.65| + 0.13 = 0.46, ECE = 0.46/6, ECE over the mean truth 0.46/2 = 0.23 (the
// mass ratio of all pairs, 2/2 by construction of a softmax, is not reported). Head: 0.1 + 0.18 = 0.28 over 2 pairs, truth 1.1, predicted 1.18; torso: one bin,
// |0.5 − 0.55| = 0.05, truth 0.55; tail: 0.1 + 0.13 = 0.23, truth 0.35, predicted 0.32.
func TestCalibrationByHand(t *testing.T) {
	c := calibrationCase{
		logits: [][]float64{{math.Log(0.5), math.Log(0.3), math.Log(0.2)}, {math.Log(0.68), math.Log(0.2), math.Log(0.12)}},
		truth:  [][]float64{{0.6, 0.3, 0.1}, {0.5, 0.25, 0.25}},
		slice:  []Slice{SliceHead, SliceTorso, SliceTail},
	}
	cal, got := calibrate(t, c.input(LinkSoftmax), Settings{})
	want := map[Metric]map[Slice]float64{
		MetricECE:       {SliceAll: 0.46 / 6, SliceHead: 0.28 / 2, SliceTorso: 0.05 / 2, SliceTail: 0.23 / 2},
		MetricECERel:    {SliceAll: 0.23, SliceHead: 0.28 / 1.1, SliceTorso: 0.05 / 0.55, SliceTail: 0.23 / 0.35},
		MetricMassRatio: {SliceHead: 1.18 / 1.1, SliceTorso: 0.5 / 0.55, SliceTail: 0.32 / 0.35},
	}
	// The float32 logits move p̂ by a relative 1e-7 at most.
	for m, bySlice := range want {
		for sl, v := range bySlice {
			if g, ok := got[m][sl]; !ok || math.Abs(g-v) > 1e-6 {
				t.Errorf("%s %s = %v (present %v), want %v", m, sl, g, ok, v)
			}
		}
	}
	if len(got) != 3 || len(got[MetricMassRatio]) != 3 {
		t.Errorf("metrics %v, want ece, ece_rel and mass_ratio only (no P̂ asked)", got)
	}
	if len(cal.Curves) != 1 || cal.Queries != 2 || cal.Items != 3 || len(cal.Edges) != 17 {
		t.Fatalf("calibration %+v", cal)
	}
	bins := cal.Curves[0].Bins
	for b, w := range map[int][3]float64{16: {1, 0.68, 0.5}, 15: {1, 0.5, 0.6}, 14: {3, 0.7, 0.65}, 13: {1, 0.12, 0.25}} {
		if bins[b].Pairs != int64(w[0]) || math.Abs(bins[b].Predicted-w[1]) > 1e-6 || math.Abs(bins[b].True-w[2]) > 1e-12 {
			t.Errorf("bin %d [%g, …) = %+v, want %v pairs, Σp̂ %v, Σp %v", b, cal.Edges[b], bins[b], w[0], w[1], w[2])
		}
	}
}

// zipfTruth returns n rows of m probabilities: a Zipf law over the items, each row's items
// permuted in blocks and perturbed so that the rows differ, every probability between 10⁻⁷ and
// 1, each row summing to 1.
func zipfTruth(n, m int, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([][]float64, n)
	for x := range out {
		row := make([]float64, m)
		sum := 0.0
		for j := range row {
			row[j] = math.Pow(float64((j+x*7)%m+1), -1.1) * math.Exp(rng.NormFloat64())
			sum += row[j]
		}
		for j := range row {
			row[j] /= sum
		}
		out[x] = row
	}
	return out
}

// mapLogits returns f(p) of every truth.
func mapLogits(truth [][]float64, f func(p float64) float64) [][]float64 {
	out := make([][]float64, len(truth))
	for x, row := range truth {
		out[x] = make([]float64, len(row))
		for j, p := range row {
			out[x][j] = f(p)
		}
	}
	return out
}

// rankSlices puts the first tenth of m items in the head, the next 30% in the torso, the rest in
// the tail.
func rankSlices(m int) []Slice {
	out := make([]Slice, m)
	for j := range out {
		switch {
		case j < m/10:
			out[j] = SliceHead
		case j < 4*m/10:
			out[j] = SliceTorso
		default:
			out[j] = SliceTail
		}
	}
	return out
}

// TestCalibrationPlantedCalibrated: a model whose logits are the truth's through each link's
// inverse (log p, plus a constant per query for the softmax, which cancels; logit p; log p) is
// calibrated. Its only error is the float32 rounding of the logits, |Δf| ≤ 2⁻²⁴·|f|, which
// moves p̂ by a relative e^{|Δf|} − 1 ≤ 2⁻²⁴·max|f| (and again for the softmax's normaliser,
// σ's 1 − p̂ factor being below 1): every ECE over the mean truth and every mass ratio − 1 is
// below 2·2⁻²⁴·max|f|, 2.4e-6 at the largest logit, 19. The same model with its logits scaled by
// 3 is overconfident: its ECE is four orders of magnitude larger.
func TestCalibrationPlantedCalibrated(t *testing.T) {
	const n, m = 40, 500
	truth := zipfTruth(n, m, 3)
	c := calibrationCase{truth: truth, slice: rankSlices(m)}
	shift := func(x int) float64 { return 5 - float64(x)/4 }
	for _, link := range []struct {
		link Link
		f    func(p float64) float64
	}{
		{LinkSoftmax, math.Log},
		{LinkSigmoid, func(p float64) float64 { return math.Log(p) - math.Log1p(-p) }},
		{LinkExp, math.Log},
	} {
		c.logits = mapLogits(truth, link.f)
		if link.link == LinkSoftmax {
			for x, row := range c.logits {
				for j := range row {
					row[j] += shift(x)
				}
			}
		}
		top := 0.0
		for _, row := range c.logits {
			for _, f := range row {
				top = math.Max(top, math.Abs(f))
			}
		}
		bound := 2 * math.Ldexp(top, -24)
		_, got := calibrate(t, c.input(link.link), Settings{})
		for _, sl := range Slices() {
			if e := got[MetricECERel][sl]; !(e <= bound) {
				t.Errorf("%s, %s: ECE over the mean truth %.3g, above the rounding bound %.3g", link.link, sl, e, bound)
			}
			if r, ok := got[MetricMassRatio][sl]; (ok || sl != SliceAll || link.link != LinkSoftmax) && !(math.Abs(r-1) <= bound) {
				t.Errorf("%s, %s: mass ratio 1 %+.3g, beyond the rounding bound %.3g", link.link, sl, r-1, bound)
			}
		}
		if link.link != LinkSoftmax {
			continue
		}
		calibrated := got[MetricECE][SliceAll]
		for _, row := range c.logits {
			for j := range row {
				row[j] *= 3
			}
		}
		_, over := calibrate(t, c.input(LinkSoftmax), Settings{})
		if e := over[MetricECE][SliceAll]; !(e > 1e4*calibrated) || !(over[MetricECERel][SliceAll] > 0.3) {
			t.Errorf("logits × 3: ECE %.3g (calibrated %.3g), over the mean truth %.3g: not overconfident enough to tell", e, calibrated, over[MetricECERel][SliceAll])
		}
		cal, _ := calibrate(t, c.input(LinkSoftmax), Settings{})
		bins := cal.Curves[0].Bins
		high := bins[len(bins)-1]
		for b := len(bins) - 1; high.Pairs == 0; b-- {
			high = bins[b-1]
		}
		if !(high.Predicted > 1.2*high.True) {
			t.Errorf("logits × 3: the highest bin holds Σp̂ = %.3f for Σp = %.3f, want the largest probabilities inflated", high.Predicted, high.True)
		}
	}
}

// TestCalibrationBCEOptimum: the minimum of a binary cross-entropy with k uniform negatives among
// M − 1 items, σ(f) = p/(p + α(1 − p)) with α = k/(M − 1) (Petrov & Macdonald, gSASRec, §4),
// read through the sigmoid link, overestimates an item of p ≪ α by 1/α: on the tail, whose items
// here have p < α/100, the mass ratio lies between 1/α·(1 − max p/α) and 1/α.
func TestCalibrationBCEOptimum(t *testing.T) {
	const n, m = 3, 1000
	truth := make([][]float64, n) // p_j ∝ (j+1)^−1.1, items in rank order
	for x := range truth {
		truth[x] = make([]float64, m)
		for j := range m {
			truth[x][j] = math.Pow(float64(j+1), -1.1)
		}
		sum := floats.Sum(truth[x])
		floats.Scale(1/sum, truth[x])
	}
	slice := make([]Slice, m)
	alpha := 64.0 / (m - 1)
	maxTail := 0.0
	for j, p := range truth[0] { // every row is the same
		slice[j] = SliceTail
		if p >= alpha/100 {
			slice[j] = SliceHead
		} else {
			maxTail = math.Max(maxTail, p)
		}
	}
	c := calibrationCase{truth: truth, slice: slice,
		logits: mapLogits(truth, func(p float64) float64 { return math.Log(p) - math.Log(alpha*(1-p)) })}
	_, got := calibrate(t, c.input(LinkSigmoid), Settings{})
	r := got[MetricMassRatio][SliceTail]
	if lo, hi := (1-maxTail/alpha)/alpha, 1/alpha; !(r >= lo*(1-1e-5) && r <= hi*(1+1e-5)) {
		t.Errorf("tail mass ratio %.3f, want within [%.3f, %.3f] (1/α = %.3f)", r, lo, hi, 1/alpha)
	}
	if e := got[MetricECERel][SliceAll]; !(e > 1) {
		t.Errorf("ECE over the mean truth %.3f: the overconfident optimum should misplace more than the whole mass", e)
	}
}

// TestReliabilitySamplingNoise: an estimate calibrated in expectation but not pair by pair, the
// truth p = p̂·u with u = 0.5 or 1.5 at random (E[p | p̂] = p̂), has a non-zero ECE that binning
// and sampling explain: bin b's gap G_b = Σ_{i∈b} p̂_i(u_i − 1) has mean 0 and standard
// deviation σ_b = 0.5·(Σ_{i∈b} p̂_i²)^½, so E|G_b| ≈ σ_b·√(2/π) and E[ECE] = Σ_b E|G_b|/n. The
// ECE measured is within a factor 2 of it (the sum over some twenty bins of independent |G_b|
// concentrates well within that).
func TestReliabilitySamplingNoise(t *testing.T) {
	const pairs = 200000
	rng := rand.New(rand.NewPCG(9, 9))
	d := decades(1000)
	acc := newReliability(1, 1+binsPerDecade*d)
	sq := map[int]float64{}
	for range pairs {
		pHat := math.Pow(10, -6*rng.Float64())
		u := 0.5
		if rng.IntN(2) == 1 {
			u = 1.5
		}
		b := binOf(pHat, d)
		acc.add(0, SliceTail, b, pHat, pHat*u)
		sq[b] += pHat * pHat
	}
	ece, _, _, n := summarizeBins(acc.bins[0][SliceAll])
	want := 0.0
	for _, s := range sq {
		want += 0.5 * math.Sqrt(s) * math.Sqrt(2/math.Pi)
	}
	want /= float64(n)
	if !(ece > want/2 && ece < 2*want) {
		t.Errorf("ECE %.4g, want within a factor 2 of the expected noise %.4g", ece, want)
	}
}

// refPHat is P̂ as Khrylchenko et al.'s code computes it (train_mns_log_new.py): the softmax of
// [f_p, f_j − log Q'(j) − log k' for the draws j], copies of the positive masked to −∞, taken at
// the positive, with Q'(j) = 1/(M − 1).
func refPHat(f []float64, draws []int32, p int) float64 {
	m := float64(len(f))
	k := 0
	for _, j := range draws {
		if int(j) != p {
			k++
		}
	}
	if k == 0 {
		return 1
	}
	all := []float64{f[p]}
	for _, j := range draws {
		if int(j) != p {
			all = append(all, f[j]+math.Log(m-1)-math.Log(float64(k)))
		}
	}
	top := slices.Max(all)
	z := 0.0
	for _, v := range all {
		z += math.Exp(v - top)
	}
	return math.Exp(all[0]-top) / z
}

// TestPHat checks P̂ against the authors' formula on drawn negatives (copies of the item
// included, and a draw of one item only), and its denominator (1/k')Σ e^{f_j}/Q'(j) against
// Σ_{j≠i} e^{f_j}, which it estimates without bias: the mean over 20,000 draws of k' = 8 is
// within 4 standard errors of it for every item.
func TestPHat(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	const m = 30
	f := make([]float64, m)
	for j := range f {
		f[j] = 3 * rng.NormFloat64()
	}
	top := slices.Max(f)
	out := make([]float64, m)
	copies := func(draws []int32) []int32 {
		c := make([]int32, m)
		for _, j := range draws {
			c[j]++
		}
		return c
	}
	for _, draws := range [][]int32{{0, 7, 3, 7, 0, 7, 29}, {5}, {5, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}} {
		khrylchenkoPHat(f, top, draws, copies(draws), out)
		for i := range f {
			if want := refPHat(f, draws, i); math.Abs(out[i]-want) > 1e-12*math.Max(want, 1e-300) && math.Abs(out[i]-want) > 1e-15 {
				t.Errorf("draws %v, item %d: P̂ = %.17g, the authors' formula %.17g", draws, i, out[i], want)
			}
		}
	}
	const k, trials = 8, 20000
	sum, sumSq := make([]float64, m), make([]float64, m)
	draws := make([]int32, k)
	for range trials {
		for d := range draws {
			draws[d] = int32(rng.IntN(m))
		}
		khrylchenkoPHat(f, top, draws, copies(draws), out)
		for i := range f {
			// The denominator's estimate, relative to e^{top}: e^{f_i}(1/P̂ − 1); a draw of i
			// alone (P̂ = 1, no negative) estimates nothing, and is ruled out at k = 8 but for
			// (1/m)^8.
			est := math.Exp(f[i]-top) * (1/out[i] - 1)
			sum[i] += est
			sumSq[i] += est * est
		}
	}
	for i := range f {
		exact := 0.0
		for j, v := range f {
			if j != i {
				exact += math.Exp(v - top)
			}
		}
		mean := sum[i] / trials
		se := math.Sqrt((sumSq[i]/trials - mean*mean) / trials)
		if math.Abs(mean-exact) > 4*se {
			t.Errorf("item %d: mean estimate %.6g of Σ_{j≠i} e^f = %.6g, beyond 4 standard errors %.3g", i, mean, exact, se)
		}
	}
}

// TestCalibrationPHat: through Calibrate, P̂ with k' = 1 negative is overconfident where the
// exact softmax of the same logits is calibrated (P̂'s E[1/(1+X)] ≥ 1/(1+E X), Jensen), and its
// overconfidence falls as k' grows, to the softmax's at k' = 100,000.
func TestCalibrationPHat(t *testing.T) {
	const n, m = 10, 200
	truth := zipfTruth(n, m, 7)
	c := calibrationCase{truth: truth, slice: rankSlices(m), logits: mapLogits(truth, math.Log)}
	prev := math.Inf(1)
	for _, k := range []int{1, 16, 100000} {
		in := c.input(LinkSoftmax)
		in.PHat = k
		cal, got := calibrate(t, in, Settings{})
		if cal.PHatNegatives != k || len(cal.Curves) != 2 || cal.Curves[1].Estimate != EstimatePHat {
			t.Fatalf("k' = %d: calibration %+v", k, cal)
		}
		ratio := got[MetricPHatMassRatio][SliceAll]
		if !(ratio < prev) || !(ratio > 1) {
			t.Errorf("k' = %d: P̂'s mass ratio %.4f, want above 1 and below %.4f (fewer negatives)", k, ratio, prev)
		}
		prev = ratio
		if e := got[MetricECERel][SliceAll]; e > 1e-5 {
			t.Errorf("k' = %d: the softmax's ECE over the mean truth %.3g, want ~0", k, e)
		}
		if k == 100000 && math.Abs(ratio-1) > 0.01 {
			t.Errorf("k' = %d: P̂'s mass ratio %.4f, want the softmax's 1 within 1%%", k, ratio)
		}
	}
}

// TestCalibrationLogitAdjust: every strength τ of logit_adjust gives its own curve and results,
// those of the logits f − τ·log π; at τ = 1 with π the truth of a single query, the softmax of
// log p − log p is uniform. The softmax's mass ratio of all pairs, 1 by construction, is left
// out; its curve's predicted mass is the query's 1.
func TestCalibrationLogitAdjust(t *testing.T) {
	truth := zipfTruth(1, 50, 11)
	c := calibrationCase{truth: truth, logits: mapLogits(truth, math.Log)}
	in := c.input(LinkSoftmax)
	in.LogPrior = c.logits[0]
	cal, res, err := Calibrate(context.Background(), in, Settings{LogitAdjust: []float64{0, 1}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(cal.Curves) != 2 || cal.Curves[0].Tau != 0 || cal.Curves[1].Tau != 1 {
		t.Fatalf("curves %+v", cal.Curves)
	}
	for _, r := range res {
		if r.Metric == MetricMassRatio && r.Slice == SliceAll {
			t.Errorf("τ = %v: the softmax's mass ratio of all pairs %v is reported", r.Tau, r.Value)
		}
	}
	for _, c := range cal.Curves {
		mass := 0.0
		for _, b := range c.Bins {
			mass += b.Predicted
		}
		if math.Abs(mass-1) > 1e-6 {
			t.Errorf("τ = %v: predicted mass %v, want 1 (a softmax sums to 1)", c.Tau, mass)
		}
	}
	uniform := cal.Curves[1].Bins[binOf(1.0/50, decades(50))]
	if uniform.Pairs != 50 || math.Abs(uniform.Predicted-1) > 1e-5 {
		t.Errorf("τ = 1: bin of 1/50 holds %+v, want all 50 pairs at p̂ = 1/50", uniform)
	}
}

// TestCalibrationWorkers: the results do not depend on the number of goroutines.
func TestCalibrationWorkers(t *testing.T) {
	truth := zipfTruth(70, 120, 13)
	c := calibrationCase{truth: truth, slice: rankSlices(120), logits: mapLogits(truth, func(p float64) float64 { return 2 * math.Log(p) })}
	in := c.input(LinkSoftmax)
	in.PHat = 5
	a1, r1, err1 := Calibrate(context.Background(), in, Settings{Workers: 1}, 3)
	a3, r3, err3 := Calibrate(context.Background(), in, Settings{Workers: 3}, 3)
	if err1 != nil || err3 != nil {
		t.Fatal(err1, err3)
	}
	if !reflect.DeepEqual(a1, a3) || !reflect.DeepEqual(r1, r3) {
		t.Error("1 and 3 workers give different results")
	}
}

// TestCalibrationRows: all rows within the budget; beyond it, a seeded sample of
// MaxCalibrationPairs/items distinct rows, ascending, the same for the same seed.
func TestCalibrationRows(t *testing.T) {
	if r := CalibrationRows(5, 1000, 1); !slices.Equal(r, []int32{0, 1, 2, 3, 4}) {
		t.Errorf("within the budget: %v", r)
	}
	items := MaxCalibrationPairs / 10
	a, b, c := CalibrationRows(1000, items, 1), CalibrationRows(1000, items, 1), CalibrationRows(1000, items, 2)
	if len(a) != 10 || !slices.IsSorted(a) || len(slices.Compact(slices.Clone(a))) != 10 || !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Errorf("sampled rows %v, %v (same seed), %v (another)", a, b, c)
	}
	if r := CalibrationRows(3, 2*MaxCalibrationPairs, 1); len(r) != 1 {
		t.Errorf("a corpus larger than the budget: %d rows, want 1", len(r))
	}
}

// TestCalibrationErrors: bad input is one error naming what is wrong.
func TestCalibrationErrors(t *testing.T) {
	truth := zipfTruth(2, 4, 1)
	c := calibrationCase{truth: truth, logits: mapLogits(truth, math.Log)}
	for _, e := range []struct {
		name string
		edit func(in *CalibrationInput, s *Settings)
		want string
	}{
		{"link", func(in *CalibrationInput, s *Settings) { in.Link = "probit" }, `link "probit"`},
		{"phat with sigmoid", func(in *CalibrationInput, s *Settings) { in.Link, in.PHat = LinkSigmoid, 4 }, "P̂ needs"},
		{"row", func(in *CalibrationInput, s *Settings) { in.Rows = []int32{2} }, "Rows[0] = 2 out of range"},
		{"no rows", func(in *CalibrationInput, s *Settings) { in.Rows = nil }, "no query rows"},
		{"slices", func(in *CalibrationInput, s *Settings) { in.ItemSlice = []Slice{SliceHead} }, "len(ItemSlice) = 1"},
		{"prior", func(in *CalibrationInput, s *Settings) { s.LogitAdjust = []float64{0, 1} }, "LogPrior needs 4 items"},
		{"nan", func(in *CalibrationInput, s *Settings) { in.U[1] = float32(math.NaN()) }, "U[0][1] = NaN"},
		{"truth", func(in *CalibrationInput, s *Settings) { in.Truth = nil }, "no Truth"},
	} {
		in, s := c.input(LinkSoftmax), Settings{}
		e.edit(&in, &s)
		_, _, err := Calibrate(context.Background(), in, s, 1)
		if err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("%s: %v, want an error with %q", e.name, err, e.want)
		}
	}
}

// BenchmarkCalibrate measures Calibrate on 2,000 queries against 1,000 items of dimension 64
// (the size of configs/calibration.toml), with the softmax link and P̂ from 999 negatives, and
// reports the time per (query, item) pair.
func BenchmarkCalibrate(b *testing.B) {
	const n, m, d = 2000, 1000, 64
	in := benchInput(n, m, d)
	truth := zipfTruth(1, m, 1)[0]
	c := CalibrationInput{U: in.U, V: in.V, Dim: d, Link: LinkSoftmax, ItemSlice: in.ItemSlice, PHat: m - 1, TestQueries: n,
		Rows: CalibrationRows(n, m, 1), Truth: func(_ int32, dst []float64) error { copy(dst, truth); return nil }}
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := Calibrate(context.Background(), c, Settings{}, 1); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(n*m), "ns/pair")
}

// TestReliabilityEdges: a probability just above a bin's lower edge is in that bin and one just
// below it in the bin before; 0, NaN and probabilities below the lowest edge are in bin 0, and
// those above 1 (an exponential link's) in the last.
func TestReliabilityEdges(t *testing.T) {
	for _, m := range []int{3, 1000, 10_000_000} {
		edges, d := ReliabilityEdges(m), decades(m)
		if len(edges) != 1+4*d || edges[0] != 0 {
			t.Fatalf("M = %d: %d edges from %v", m, len(edges), edges[0])
		}
		for b := 1; b < len(edges); b++ {
			if got := binOf(edges[b]*(1+1e-9), d); got != b {
				t.Errorf("M = %d: %v just above edge %d in bin %d", m, edges[b], b, got)
			}
			if got := binOf(edges[b]*(1-1e-9), d); got != b-1 {
				t.Errorf("M = %d: %v just below edge %d in bin %d", m, edges[b], b, got)
			}
		}
		for _, p := range []float64{0, math.NaN(), edges[1] / 2} {
			if got := binOf(p, d); got != 0 {
				t.Errorf("M = %d: %v in bin %d, want 0", m, p, got)
			}
		}
		if got := binOf(3, d); got != len(edges)-1 {
			t.Errorf("M = %d: 3 in bin %d, want the last, %d", m, got, len(edges)-1)
		}
	}
}

// TestCalibrationWorkersBound: the goroutines Calibrate uses are at most its blocks of work (one
// for up to 16 query rows, never more than 64), and at least one.
func TestCalibrationWorkersBound(t *testing.T) {
	for _, c := range []struct{ n, workers, want int }{
		{10, 8, 1}, {16, 8, 1}, {17, 8, 2}, {100_000, 8, 8}, {100_000, 1 << 40, 64}, {0, 8, 1},
	} {
		if got := CalibrationWorkers(c.n, c.workers); got != c.want {
			t.Errorf("%d rows, %d workers: %d, want %d", c.n, c.workers, got, c.want)
		}
	}
}
