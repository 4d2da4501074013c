package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// resolveCase is a row of a Resolve table: the settings in, what they resolve to, or the error.
type resolveCase[S any] struct {
	in, want S
	err      string // the whole error message, "" for none
}

// testResolve runs a Resolve table; equal compares resolved settings.
func testResolve[S any, P interface {
	*S
	Resolve() error
}](t *testing.T, cases []resolveCase[S], equal func(a, b S) bool) {
	t.Helper()
	for _, c := range cases {
		s := c.in
		err := P(&s).Resolve()
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%+v: %v", c.in, err)
		case c.err == "" && !equal(s, c.want):
			t.Errorf("%+v resolved to %+v, want %+v", c.in, s, c.want)
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%+v: error %v, want %q", c.in, err, c.err)
		}
	}
}

func TestSettingsResolve(t *testing.T) {
	nan := math.NaN()
	testResolve(t, []resolveCase[Settings]{
		{Settings{}, Settings{K: []int{10, 50, 100}, LogitAdjust: []float64{0}, Bootstrap: 1000, Workers: runtime.GOMAXPROCS(0)}, ""},
		{Settings{K: []int{5, 1}, Filter: FilterKnown, LogitAdjust: []float64{0, -0.5}, Bootstrap: -1, Workers: 3},
			Settings{K: []int{5, 1}, Filter: FilterKnown, LogitAdjust: []float64{0, -0.5}, Bootstrap: -1, Workers: 3}, ""},
		{Settings{K: []int{0}}, Settings{}, "k: must be positive, got 0"},
		{Settings{K: []int{5, 10, 5}}, Settings{}, "k: duplicate value 5"},
		{Settings{LogitAdjust: []float64{nan}}, Settings{}, "logit_adjust: must be finite, got NaN"},
		{Settings{LogitAdjust: []float64{math.Inf(1)}}, Settings{}, "logit_adjust: must be finite, got +Inf"},
		{Settings{LogitAdjust: []float64{1, 0, 1}}, Settings{}, "logit_adjust: duplicate value 1"},
		{Settings{Bootstrap: -2}, Settings{}, "bootstrap: must be a number of resamples >= 1 (0 means 1000) or -1 for none, got -2"},
		{Settings{Workers: -1}, Settings{}, "workers: must be positive (0 means GOMAXPROCS), got -1"},
		{Settings{MaxPairs: -5}, Settings{}, "max_pairs: must be a number of test pairs >= 1 (0 means all), got -5"},
		{Settings{LogSeconds: math.Inf(1)}, Settings{}, "log_seconds: must be a positive number, got +Inf"},
	}, func(a, b Settings) bool {
		return slices.Equal(a.K, b.K) && slices.Equal(a.LogitAdjust, b.LogitAdjust) &&
			a.Filter == b.Filter && a.Bootstrap == b.Bootstrap && a.Workers == b.Workers
	})
}

// TestEvaluateErrors checks that bad input gives an error naming the problem, not a panic.
func TestEvaluateErrors(t *testing.T) {
	nan32 := float32(math.NaN())
	cases := []struct {
		name string
		edit func(*Input, *Settings)
		err  string // substring
	}{
		{"settings", func(in *Input, s *Settings) { s.K = []int{-1} }, "metrics: eval settings: k: must be positive"},
		{"dim", func(in *Input, s *Settings) { in.Dim = 0 }, "Dim must be positive"},
		{"ragged U", func(in *Input, s *Settings) { in.Dim = 4 }, "must be multiples of Dim"},
		{"no items", func(in *Input, s *Settings) { in.V = nil }, "no items"},
		{"NaN in U", func(in *Input, s *Settings) { in.U[1] = nan32 }, "U[1][0] = NaN is not finite"},
		{"Inf in V", func(in *Input, s *Settings) { in.V[3] = float32(math.Inf(-1)) }, "V[3][0] = -Inf is not finite"},
		{"no pairs", func(in *Input, s *Settings) { in.Pairs = nil }, "no test pairs"},
		{"query range", func(in *Input, s *Settings) { in.Pairs[1].Query = 2 }, "Pairs[1] = (2, 0) out of range"},
		{"item range", func(in *Input, s *Settings) { in.Pairs[0].Item = -1 }, "Pairs[0] = (0, -1) out of range"},
		{"slice length", func(in *Input, s *Settings) { in.ItemSlice = in.ItemSlice[:5] }, "len(ItemSlice) = 5, want 6"},
		{"slice value", func(in *Input, s *Settings) { in.ItemSlice[2] = SliceAll }, "ItemSlice[2] = all is not head, torso, tail or a bin"},
		{"slice range", func(in *Input, s *Settings) { in.ItemSlice[2] = 200 }, "ItemSlice[2] = Slice(200) is not head, torso, tail or a bin"},
		{"no prior", func(in *Input, s *Settings) { s.LogitAdjust = []float64{0, 1} }, "LogPrior needs 6 items, got 0"},
		{"prior NaN", func(in *Input, s *Settings) {
			s.LogitAdjust = []float64{1}
			in.LogPrior = []float64{0, 0, math.Inf(-1), 0, 0, 0}
		}, "LogPrior[2] = -Inf is not finite"},
		{"prior overflow", func(in *Input, s *Settings) {
			s.LogitAdjust = []float64{1e38}
			in.LogPrior = []float64{-10, 0, 0, 0, 0, 0}
		}, "LogPrior[0] = 1e+39 overflows float32"},
		{"filter without Exclude", func(in *Input, s *Settings) { s.Filter = FilterSeen; in.Exclude = nil }, "Exclude needs 2 query rows, got 0"},
		{"exclude range", func(in *Input, s *Settings) { s.Filter = FilterSeen; in.Exclude[1] = []int32{4, 6} }, "Exclude[1][1] = 6 out of range"},
	}
	for _, c := range cases {
		in := handInput()
		s := Settings{}
		c.edit(&in, &s)
		_, err := Evaluate(in, s, 1)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.err)
		}
	}
	// Exclude is data for filtering only: without Filter a malformed one is not read.
	in := handInput()
	in.Exclude = [][]int32{{99}}
	if _, err := Evaluate(in, Settings{Bootstrap: -1}, 1); err != nil {
		t.Errorf("unfiltered evaluation read Exclude: %v", err)
	}
}

// TestEvaluateReference checks every Result against metrics computed straight from their
// formulas on the reference ranks, and the documented order of the results.
func TestEvaluateReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	in := dyadicInput(rng, 60, 200, 300)
	// Leave the torso without test pairs: its results must be left out.
	for p := range in.Pairs {
		if in.ItemSlice[in.Pairs[p].Item] == SliceTorso {
			in.ItemSlice[in.Pairs[p].Item] = SliceTail
		}
	}
	s := Settings{K: []int{20, 1, 5}, Filter: FilterKnown, LogitAdjust: []float64{0.5, 0}, Bootstrap: -1}
	res, err := Evaluate(in, s, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	ranks := refRanks(&in, &s)
	var want []Result
	for k, tau := range s.LogitAdjust {
		for _, sl := range []string{"all", "head", "tail"} {
			items := len(in.ItemSlice)
			if sl != "all" {
				items = 0
				for _, x := range in.ItemSlice {
					if x.String() == sl {
						items++
					}
				}
			}
			for _, mk := range []struct {
				metric string
				k      int
			}{{"recall", 20}, {"recall", 1}, {"recall", 5}, {"ndcg", 20}, {"ndcg", 1}, {"ndcg", 5}, {"mrr", 0}} {
				v, n := refMetric(ranks[k*len(in.Pairs):(k+1)*len(in.Pairs)], &in, sl, mk.metric, mk.k)
				var slice Slice
				if err := slice.UnmarshalText([]byte(sl)); err != nil {
					t.Fatal(err)
				}
				want = append(want, Result{Tau: tau, Slice: slice, Metric: Metric(mk.metric), K: mk.k, Value: v, Lo: v, Hi: v, Pairs: n, Items: items})
			}
		}
	}
	if len(res) != len(want) {
		t.Fatalf("%d results, want %d", len(res), len(want))
	}
	for i, r := range res {
		w := want[i]
		if r.Tau != w.Tau || r.Slice != w.Slice || r.Metric != w.Metric || r.K != w.K || r.Pairs != w.Pairs || r.Items != w.Items ||
			math.Abs(r.Value-w.Value) > 1e-12 || r.Lo != r.Value || r.Hi != r.Value {
			t.Errorf("result %d: %+v, want %+v", i, r, w)
		}
	}
}

// TestBootstrap checks the intervals: they contain the mean, depend only on the seed (not on
// the number of workers), change with it, and have the width the normal approximation predicts
// for a proportion, 2·1.96·√(p(1−p)/n), within 15%.
func TestBootstrap(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	in := dyadicInput(rng, 300, 120, 2000)
	s := Settings{K: []int{5, 20}, Bootstrap: 2000, Workers: 1}
	a, err := Evaluate(in, s, 11)
	if err != nil {
		t.Fatal(err)
	}
	s.Workers = 3
	b, err := Evaluate(in, s, 11)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Evaluate(in, s, 12)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) {
		t.Error("1 and 3 workers give different results with the same seed")
	}
	differ := false
	for i, r := range a {
		if !(r.Lo <= r.Value && r.Value <= r.Hi) || r.Lo == r.Hi {
			t.Errorf("%+v: the interval does not contain the mean or is empty", r)
		}
		if c[i].Value != r.Value {
			t.Errorf("%+v: the mean depends on the seed", r)
		}
		differ = differ || c[i].Lo != r.Lo || c[i].Hi != r.Hi
		if r.Metric == "recall" {
			p, n := r.Value, float64(r.Pairs)
			want := 2 * 1.959964 * math.Sqrt(p*(1-p)/n) // 1.959964: the standard normal 97.5% quantile
			if w := r.Hi - r.Lo; math.Abs(w/want-1) > 0.15 {
				t.Errorf("%+v: width %v, normal approximation %v", r, w, want)
			}
		}
	}
	if !differ {
		t.Error("another seed gives the same intervals")
	}
}

// TestMeanCI checks MeanCI against intervals computed by hand, with t quantiles from closed
// forms (1 degree of freedom: t = tan(π(p − 1/2)); 2 degrees: t = (2p − 1)/√(2p(1 − p))) and,
// for 4 degrees, from R: qt(0.975, 4) = 2.776445105197799.
// recallDiff is the difference of the Recall@K of a and b hits among n pairs, computed as the
// report computes it, at run time (a constant expression would be exact).
func recallDiff(a, b, n float64) float64 { return a/n - b/n }

func TestMeanCI(t *testing.T) {
	cases := []struct {
		values         []float64
		mean, half     float64
		meanOnly, none bool
		exactMean      bool // the mean must be c.mean exactly
	}{
		// mean 2, sd √2, n 2: half = t₁·√2/√2.
		{values: []float64{1, 3}, mean: 2, half: math.Tan(math.Pi * 0.475)},
		// mean 2, sd 1, n 3: half = t₂/√3.
		{values: []float64{1, 2, 3}, mean: 2, half: 0.95 / math.Sqrt(2*0.975*0.025) / math.Sqrt(3)},
		// mean 3, sd √2.5, n 5.
		{values: []float64{1, 2, 3, 4, 5}, mean: 3, half: 2.776445105197799 * math.Sqrt(2.5) / math.Sqrt(5)},
		{values: []float64{0.25}, mean: 0.25, meanOnly: true},
		// Paired differences +d, −d, 0 of Recall@K over 610 pairs, computed as differences of
		// recalls (their float64 mean is −1.4e-19, as a shipped summary showed such a mean): mean
		// 0 exactly, sd d = 1/610, n 3, t(0.975; 2) = 4.302652729911275.
		{values: []float64{recallDiff(2, 1, 610), recallDiff(2, 3, 610), 0}, mean: 0, half: 4.302652729911275 / 610 / math.Sqrt(3), exactMean: true},
		// Differences equal up to their last bits (seeds that all differ by the same pairs): no
		// spread.
		{values: []float64{recallDiff(104+10, 100+10, 3910), recallDiff(104+20, 100+20, 3910), recallDiff(104+30, 100+30, 3910)}, mean: 4.0 / 3910, half: 0},
		{values: nil, none: true},
	}
	for _, c := range cases {
		mean, lo, hi := MeanCI(c.values)
		switch {
		case c.none:
			if !math.IsNaN(mean) || !math.IsNaN(lo) || !math.IsNaN(hi) {
				t.Errorf("%v: %v [%v, %v], want NaN", c.values, mean, lo, hi)
			}
		case c.meanOnly:
			if mean != c.mean || lo != mean || hi != mean {
				t.Errorf("%v: %v [%v, %v], want %v with lo = hi = mean", c.values, mean, lo, hi, c.mean)
			}
		case c.exactMean && mean != c.mean:
			t.Errorf("%v: mean %v, want exactly %v", c.values, mean, c.mean)
		case c.half == 0 && (lo != mean || hi != mean):
			t.Errorf("%v: [%v, %v] about %v, want no spread", c.values, lo, hi, mean)
		default:
			if math.Abs(mean-c.mean) > 1e-14 || math.Abs(lo-(c.mean-c.half)) > 1e-9 || math.Abs(hi-(c.mean+c.half)) > 1e-9 {
				t.Errorf("%v: %v [%v, %v], want %v ± %v", c.values, mean, lo, hi, c.mean, c.half)
			}
		}
	}
}

// TestFirstNotFinite: the first NaN or infinity is found wherever it sits (in the vector lanes or
// the tail), and the finite extremes are not taken for one.
func TestFirstNotFinite(t *testing.T) {
	finite := []float32{math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, float32(math.Copysign(0, -1)), 1}
	bad := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
	for _, n := range []int{1, 7, 8, 9, 31, 40} {
		t.Run(fmt.Sprint("n=", n), func(t *testing.T) {
			x := make([]float32, n)
			for i := range x {
				x[i] = finite[i%len(finite)]
			}
			if got := firstNotFinite(x); got != -1 {
				t.Errorf("finite values: %d, want -1", got)
			}
			for at := range n {
				for _, b := range bad {
					y := slices.Clone(x)
					y[at] = b
					if at+1 < n {
						y[n-1] = b // a later one is not the first
					}
					if got := firstNotFinite(y); got != at {
						t.Errorf("%v at %d: %d", b, at, got)
					}
				}
			}
		})
	}
}
