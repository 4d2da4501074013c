package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/plots"
)

// recordsOf builds run records of Recall@10 by slice: values[group][seed][slice].
func recordsOf(values map[string]map[int64]map[metrics.Slice]float64, order []string) []*Run {
	var recs []*Run
	for _, g := range order {
		for seed := int64(1); seed <= 9; seed++ {
			vals, ok := values[g][seed]
			if !ok {
				continue
			}
			rec := &Run{ID: g + ",seed=" + strconv.FormatInt(seed, 10), Group: g, Seed: seed}
			for _, sl := range metrics.Slices() {
				if v, ok := vals[sl]; ok {
					rec.Results = append(rec.Results, metrics.Result{Slice: sl, Metric: metrics.MetricRecall, K: 10, Value: v,
						Lo: v - 0.01, Hi: v + 0.02, Pairs: 100, Items: 10})
				}
			}
			recs = append(recs, rec)
		}
	}
	return recs
}

// TestPairedDifferences checks the paired differences against a table computed by hand.
func TestPairedDifferences(t *testing.T) {
	// Seed 4 of the baseline has no partner in plain and must be ignored; logq ran seed 1 only.
	head, tail := metrics.SliceHead, metrics.SliceTail
	recs := recordsOf(map[string]map[int64]map[metrics.Slice]float64{
		"variant=full": {
			1: {head: 0.11, tail: 0.20}, 2: {head: 0.10, tail: 0.25}, 3: {head: 0.10, tail: 0.27},
			4: {head: 0.90, tail: 0.99},
		},
		"variant=plain": {1: {head: 0.10, tail: 0.30}, 2: {head: 0.12, tail: 0.32}, 3: {head: 0.08, tail: 0.34}},
		"variant=logq":  {1: {head: 0.15, tail: 0.25}},
	}, []string{"variant=full", "variant=plain", "variant=logq"})
	s := summarize(recs, nil)
	d, err := compare(Settings{Baseline: "variant=full"}, recs, s.groups)
	if err != nil {
		t.Fatal(err)
	}
	// The 0.975 quantile of Student's t with 2 degrees of freedom, 4.3027 in every t table
	// (e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.2), to the digits gonum's distuv gives.
	const t2 = 4.302652729749464
	// tail: differences 0.10, 0.07, 0.07: mean 0.08, sd √((0.02² + 0.01² + 0.01²)/2) = √0.0003,
	// half-width t2·√0.0003/√3 = t2·0.01.
	// head: differences −0.01, 0.02, −0.02: mean −0.01/3, sd √((0.02/3)² + (0.07/3)² + (0.05/3)²)/2)
	// = √(0.0078/9/2) = √0.00043333…, half-width t2·√(0.0078/54) = 0.0517114 (so the CSV
	// row: −0.0033333 ∓ 0.0517114 = [−0.0550448, 0.0483781]; tail: [0.0369735, 0.1230265]).
	headHalf := t2 * math.Sqrt(0.0078/54)
	want := []struct {
		cell       string
		slice      metrics.Slice
		n          int
		mean, half float64 // half NaN: no interval
		excludes   bool
	}{
		{"variant=plain", metrics.SliceHead, 3, -0.01 / 3, headHalf, false},
		{"variant=plain", metrics.SliceTail, 3, 0.08, t2 * 0.01, true},
		{"variant=logq", metrics.SliceHead, 1, 0.04, math.NaN(), false},
		{"variant=logq", metrics.SliceTail, 1, 0.05, math.NaN(), false},
	}
	if len(d.keys) != len(want) {
		t.Fatalf("%d differences, want %d: %v", len(d.keys), len(want), d.keys)
	}
	for _, w := range want {
		k := diffKey{comparison{w.cell, "variant=full"}, coord{0, w.slice, metrics.MetricRecall, 10, metrics.TestNatural}}
		got, ok := d.values[k]
		if !ok {
			t.Errorf("%s − full, %s: missing", w.cell, w.slice)
			continue
		}
		if got.N != w.n || math.Abs(got.Mean-w.mean) > 1e-12 || got.excludesZero() != w.excludes {
			t.Errorf("%s − full, %s: %+v, want n %d, mean %v, excludes zero %v", w.cell, w.slice, got, w.n, w.mean, w.excludes)
		}
		if math.IsNaN(w.half) {
			if !math.IsNaN(got.Lo) || !math.IsNaN(got.Hi) {
				t.Errorf("%s − full, %s: interval [%v, %v] from one seed", w.cell, w.slice, got.Lo, got.Hi)
			}
		} else if math.Abs(got.Lo-(w.mean-w.half)) > 1e-12 || math.Abs(got.Hi-(w.mean+w.half)) > 1e-12 {
			t.Errorf("%s − full, %s: interval [%v, %v], want %v ± %v", w.cell, w.slice, got.Lo, got.Hi, w.mean, w.half)
		}
	}

	var buf bytes.Buffer
	if err := writeDifferencesCSV(&buf, d); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	wantRows := [][]string{
		{"cell", "baseline", "la_tau", "slice", "metric", "k", "seeds", "mean", "lo", "hi", "excludes_zero"},
		{"variant=plain", "variant=full", "0", "head", "recall", "10", "3", "-0.0033333333", "-0.055044783", "0.048378117", "false"},
		{"variant=plain", "variant=full", "0", "tail", "recall", "10", "3", "0.08", "0.036973473", "0.12302653", "true"},
		{"variant=logq", "variant=full", "0", "head", "recall", "10", "1", "0.04", "", "", "false"},
		{"variant=logq", "variant=full", "0", "tail", "recall", "10", "1", "0.05", "", "", "false"},
	}
	if !reflect.DeepEqual(rows, wantRows) {
		t.Errorf("differences.csv:\n%v\nwant\n%v", rows, wantRows)
	}

	buf.Reset()
	if err := writeSummary(&buf, "test", s, d, nil, Settings{}, nil); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"| plain − full | 3 | -0.0033 ± 0.0517 | – | +0.0800 ± 0.0430 ✱ | – |",
		"| logq − full | 1 | +0.0400 | – | +0.0500 | – |",
	} {
		if !strings.Contains(buf.String(), line) {
			t.Errorf("summary.md lacks the line %q:\n%s", line, buf.String())
		}
	}
}

// TestComparisons checks which cells are compared with which: a baseline on one axis of two
// matches on the other axis; all_pairs adds every pair; a bad baseline is an error. Among the
// finished runs of a partial folder (not strict), an axis that none of them shows is empty in all
// of them, so a baseline that leaves it empty still matches.
func TestComparisons(t *testing.T) {
	groups := []string{
		"variant=full,temperature=0.05", "variant=full,temperature=0.1",
		"variant=plain,temperature=0.05", "variant=plain,temperature=0.1", "variant=logq,temperature=0.2",
	}
	for _, tc := range []struct {
		name   string
		rs     Settings
		groups []string
		want   []comparison
		alone  []string
	}{
		{"baseline variant=full", Settings{Baseline: "variant=full"}, groups, []comparison{
			{"variant=plain,temperature=0.05", "variant=full,temperature=0.05"},
			{"variant=plain,temperature=0.1", "variant=full,temperature=0.1"},
		}, []string{"variant=logq,temperature=0.2"}},
		{"baseline of both axes", Settings{Baseline: "variant=full,temperature=0.1"}, groups[:4], []comparison{
			{"variant=full,temperature=0.05", "variant=full,temperature=0.1"},
			{"variant=plain,temperature=0.05", "variant=full,temperature=0.1"},
			{"variant=plain,temperature=0.1", "variant=full,temperature=0.1"},
		}, nil},
		// A zipped key that the baseline cell leaves empty is named with an empty value.
		{"baseline with an empty value", Settings{Baseline: "variant=full,probability="}, []string{
			"variant=full,probability=", "variant=logq,probability=inclusion", "variant=logq,probability=dedupe",
		}, []comparison{
			{"variant=logq,probability=inclusion", "variant=full,probability="},
			{"variant=logq,probability=dedupe", "variant=full,probability="},
		}, nil},
		{"all pairs", Settings{AllPairs: true}, groups[:3], []comparison{
			{groups[1], groups[0]}, {groups[2], groups[0]}, {groups[2], groups[1]},
		}, nil},
		// Both: each pair once, the baselines' first.
		{"baseline and all pairs", Settings{Baseline: "temperature=0.05", AllPairs: true}, groups[:3], []comparison{
			{groups[1], groups[0]}, {groups[2], groups[0]}, {groups[2], groups[1]},
		}, nil},
		{"partial: an axis empty in every finished run", Settings{Baseline: "variant=full,probability="}, []string{
			"variant=full", "variant=logq",
		}, []comparison{{"variant=logq", "variant=full"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, alone, err := comparisons(tc.rs, tc.groups, false)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("compared %v, want %v", got, tc.want)
			}
			if !reflect.DeepEqual(alone, tc.alone) {
				t.Errorf("not compared: %v, want %v", alone, tc.alone)
			}
		})
	}
	for _, tc := range []struct{ baseline, want string }{
		{"loss=full", `report.baseline: "loss" is not an axis of the grid (its axes, as in run ids: temperature, variant)`},
		{"variant=softmax", `report.baseline: "variant=softmax" matches no cell of the grid`},
		{"variant", `report.baseline: "variant": want axis=value pairs`},
		{"variant=a,variant=b", `report.baseline: "variant=a,variant=b": axis variant given twice`},
	} {
		_, _, err := comparisons(Settings{Baseline: tc.baseline}, groups, true)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("baseline %q: error %v, want %q", tc.baseline, err, tc.want)
		}
	}
}

// TestSingleSeedInterval: a row of one seed never shows a zero-width interval: it shows the
// run's bootstrap interval, labelled, or none.
func TestSingleSeedInterval(t *testing.T) {
	for _, tc := range []struct {
		v    agg
		want string
	}{
		{agg{Mean: 0.5, Lo: 0.4, Hi: 0.6, N: 3}, "0.5000 ± 0.1000"},
		{agg{Mean: 0.5, Lo: 0.5, Hi: 0.5, N: 1, Boot: [][2]float64{{0.45, 0.56}}}, "0.5000 [0.4500, 0.5600]ᵇ"},
		{agg{Mean: 0.5, Lo: 0.5, Hi: 0.5, N: 1, Boot: [][2]float64{{0.5, 0.5}}}, "0.5000"},
	} {
		if got := tc.v.text(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.v, got, tc.want)
		}
	}
	recs := recordsOf(map[string]map[int64]map[metrics.Slice]float64{"variant=plain": {1: {metrics.SliceAll: 0.3}}}, []string{"variant=plain"})
	var buf bytes.Buffer
	if err := writeSummary(&buf, "test", summarize(recs, nil), nil, nil, Settings{}, nil); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); strings.Contains(out, "± 0.0000") || !strings.Contains(out, "0.3000 [0.2900, 0.3200]ᵇ") {
		t.Errorf("single-seed summary.md:\n%s", out)
	}
}

// TestLabeler checks the names of cells: plots.labels by axis=value before bare values, "" to
// hide a value, and numeric zeros left out while the names stay distinct.
func TestLabeler(t *testing.T) {
	delicious := []string{
		"variant=constant,sampler=in_batch,negatives=0", "variant=constant,sampler=uniform,negatives=64",
		"variant=full,sampler=in_batch,negatives=0",
	}
	for _, tc := range []struct {
		name   string
		labels map[string]string
		groups []string
		want   []string
	}{
		{"defaults", nil, delicious, []string{"constant, in_batch", "constant, uniform, negatives=64", "full, in_batch"}},
		{"named", map[string]string{"in_batch": "in-batch", "negatives=64": "m=64", "full": "full softmax", "sampler=uniform": "uniform"},
			delicious, []string{"constant, in-batch", "constant, uniform, m=64", "full softmax, in-batch"}},
		{"hidden", map[string]string{"in_batch": "", "negatives=64": ""}, delicious,
			[]string{"constant", "constant, uniform", "full"}},
		{"temperature", nil, []string{"variant=plain,temperature=0.05", "variant=plain,temperature=0"},
			[]string{"plain, τ=0.05", "plain"}},
		{"no axes", nil, []string{""}, []string{"all runs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lb := newLabeler(tc.labels, tc.groups)
			for i, g := range tc.groups {
				if got := lb.label(g); got != tc.want[i] {
					t.Errorf("label(%q) = %q, want %q", g, got, tc.want[i])
				}
			}
		})
	}
	for _, tc := range []struct {
		labels map[string]string
		want   string
	}{
		{map[string]string{"inbatch": "x"}, `plots.labels: "inbatch" is no axis value of the grid`},
		{map[string]string{"constant": "same", "full": "same", "in_batch": ""},
			`plots.labels: cells variant=constant,sampler=in_batch,negatives=0 and variant=full,sampler=in_batch,negatives=0 would both be named "same, negatives=0"`},
	} {
		if err := checkLabels(tc.labels, delicious); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("labels %v: error %v, want %q", tc.labels, err, tc.want)
		}
	}
	if err := checkLabels(map[string]string{"negatives=0": "", "uniform": "U"}, delicious); err != nil {
		t.Error(err)
	}
}

// TestAxisLabel checks the one rule for every numeric axis: words from the key's last component,
// capitalised, and the papers' symbol where there is one (the same symbol as in legends).
func TestAxisLabel(t *testing.T) {
	for key, want := range map[string]string{
		"loss.temperature":    "Temperature τ",
		"loss.negatives":      "Negatives",
		"model.embedding_dim": "Embedding dim",
		"seeds":               "Seeds",
	} {
		if got := axisLabel(key); got != want {
			t.Errorf("axisLabel(%q) = %q, want %q", key, got, want)
		}
	}
	if got := newLabeler(nil, nil).label("temperature=0.5,negatives=4"); got != "τ=0.5, negatives=4" {
		t.Errorf("legend %q, want %q", got, "τ=0.5, negatives=4")
	}
}

// TestTradeoffSeries checks the trade-off figure's series against hand-made results: a point
// per strength τ in increasing order, the point as trained (τ = 0) marked, the largest τ tagged,
// intervals across seeds in both directions, none for a single seed.
func TestTradeoffSeries(t *testing.T) {
	rec := func(g string, seed int64, vals map[float64][2]float64) *Run { // τ -> head, tail
		r := &Run{ID: g + ",seed=" + strconv.FormatInt(seed, 10), Group: g, Seed: seed}
		for _, tau := range []float64{-0.5, 0, 1} {
			for i, sl := range []metrics.Slice{metrics.SliceHead, metrics.SliceTail} {
				v := vals[tau][i]
				r.Results = append(r.Results, metrics.Result{Tau: tau, Slice: sl, Metric: metrics.MetricRecall, K: 10, Value: v, Lo: v, Hi: v})
			}
		}
		return r
	}
	recs := []*Run{
		rec("variant=plain", 1, map[float64][2]float64{-0.5: {0.3, 0.1}, 0: {0.2, 0.2}, 1: {0.1, 0.3}}),
		rec("variant=plain", 2, map[float64][2]float64{-0.5: {0.5, 0.1}, 0: {0.4, 0.2}, 1: {0.3, 0.5}}),
		rec("variant=logq", 1, map[float64][2]float64{-0.5: {0.6, 0.1}, 0: {0.5, 0.2}, 1: {0.4, 0.3}}),
	}
	series := tradeoffSeries(summarize(recs, nil), 10)
	if len(series) != 2 {
		t.Fatalf("%d series, want 2", len(series))
	}
	plain, logq := series[0], series[1]
	// Means of the two seeds: head 0.4, 0.3, 0.2; tail 0.1, 0.2, 0.4.
	want := plots.TradeoffSeries{Name: "plain", X: []float64{0.1, 0.2, 0.4}, Y: []float64{0.4, 0.3, 0.2}, Origin: 1}
	if plain.Name != want.Name || plain.Origin != 1 || plain.Tags != nil {
		t.Errorf("plain: %+v, want %+v", plain, want)
	}
	for i := range want.X {
		if math.Abs(plain.X[i]-want.X[i]) > 1e-12 || math.Abs(plain.Y[i]-want.Y[i]) > 1e-12 {
			t.Errorf("plain point %d: (%v, %v), want (%v, %v)", i, plain.X[i], plain.Y[i], want.X[i], want.Y[i])
		}
	}
	// Tail at τ = 1: 0.3 and 0.5 → half-width t(0.975, 1)·0.1414/√2 = 12.706·0.1 (clamped to [0, 1]).
	if lo, hi := plain.XLo[2], plain.XHi[2]; lo != 0 || hi != 1 {
		t.Errorf("plain tail interval at τ = 1: [%v, %v], want [0, 1] (0.4 ± 1.27 clamped)", lo, hi)
	}
	if plain.YLo == nil || plain.YLo[1] >= plain.Y[1] || plain.YHi[1] <= plain.Y[1] {
		t.Errorf("plain head intervals %v, %v", plain.YLo, plain.YHi)
	}
	if logq.XLo != nil || logq.YLo != nil {
		t.Errorf("logq, a single seed, has intervals %v, %v", logq.XLo, logq.YLo)
	}
}

// TestSweepXScale: plots.x_scale = "log" draws recall_at_K_vs_<axis> on a logarithmic x axis,
// "linear" (the default) on a linear one; a grid evaluated on several slices gets one panel per
// slice.
func TestSweepXScale(t *testing.T) {
	var recs []*Run
	for _, variant := range []string{"plain", "logq"} {
		for _, temp := range []string{"0.05", "0.1", "0.2"} {
			g := "variant=" + variant + ",temperature=" + temp
			rec := &Run{ID: g + ",seed=1", Group: g, Seed: 1, Axes: map[string]string{"loss.variant": variant, "loss.temperature": temp}}
			rec.Results = []metrics.Result{{Slice: metrics.SliceAll, Metric: metrics.MetricRecall, K: 10, Value: 0.5, Lo: 0.4, Hi: 0.6}}
			recs = append(recs, rec)
		}
	}
	s := summarize(recs, nil)
	figs := sweepFigures(Input{Runs: recs, Axes: []string{"loss.variant", "loss.temperature"}}, s)
	if len(figs) != 1 || figs[0].name != "recall_at_10_vs_temperature" {
		t.Fatalf("figures %v", figs)
	}
	for _, tc := range []struct {
		scale plots.XScale
		log   bool
		label string
	}{{"", false, "Temperature τ"}, {plots.XScaleLinear, false, "Temperature τ"}, {plots.XScaleLog, true, "Temperature τ (log)"}} {
		p, err := figs[0].build(plots.Settings{XScale: tc.scale})
		if err != nil {
			t.Fatal(err)
		}
		if _, isLog := p.X.Scale.(plot.LogScale); isLog != tc.log {
			t.Errorf("x_scale %q: log axis %v, want %v", tc.scale, isLog, tc.log)
		}
		if p.X.Label.Text != tc.label {
			t.Errorf("x_scale %q: x label %q, want %q", tc.scale, p.X.Label.Text, tc.label)
		}
		if want := "Recall@10, all pairs"; p.Y.Label.Text != want {
			t.Errorf("a single slice's figure: y label %q, want %q", p.Y.Label.Text, want)
		}
	}
	// With head and tail results too, one panel per slice: the figure itself has no axes.
	for _, rec := range recs {
		for _, sl := range []metrics.Slice{metrics.SliceHead, metrics.SliceTail} {
			rec.Results = append(rec.Results, metrics.Result{Slice: sl, Metric: metrics.MetricRecall, K: 10, Value: 0.5, Lo: 0.4, Hi: 0.6})
		}
	}
	s = summarize(recs, nil)
	figs = sweepFigures(Input{Runs: recs, Axes: []string{"loss.variant", "loss.temperature"}}, s)
	p, err := figs[0].build(plots.Settings{Width: 7})
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Label.Text != "" || p.X.Label.Text != "" {
		t.Errorf("three slices drawn as one plot labelled %q, %q, not as panels", p.X.Label.Text, p.Y.Label.Text)
	}
}

// TestSweepBands: the lines of recall_at_K_vs_<axis> have a band, which the legend names, only
// when every point has an interval across seeds: a cell of one seed has none (its interval
// across seeds would be zero-wide), and neither has its line.
func TestSweepBands(t *testing.T) {
	for _, tc := range []struct {
		name  string
		seeds map[string]int // by temperature
		band  bool
	}{
		{"one seed", map[string]int{"0.05": 1, "0.1": 1}, false},
		{"two seeds", map[string]int{"0.05": 2, "0.1": 2}, true},
		{"one point of one seed", map[string]int{"0.05": 2, "0.1": 1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var recs []*Run
			for _, temp := range []string{"0.05", "0.1"} {
				g := "temperature=" + temp
				for seed := range int64(tc.seeds[temp]) {
					v := 0.5 + 0.1*float64(seed)
					recs = append(recs, &Run{ID: g + ",seed=" + strconv.FormatInt(seed+1, 10), Group: g, Seed: seed + 1,
						Axes:    map[string]string{"loss.temperature": temp},
						Results: []metrics.Result{{Slice: metrics.SliceAll, Metric: metrics.MetricRecall, K: 10, Value: v, Lo: v - 0.1, Hi: v + 0.1}}})
				}
			}
			s := summarize(recs, nil)
			sw, ok := newSweep(s, []string{"loss.temperature"}, "loss.temperature", map[string]map[string]string{
				"temperature=0.05": {"loss.temperature": "0.05"}, "temperature=0.1": {"loss.temperature": "0.1"}})
			if !ok {
				t.Fatal("temperature not numeric")
			}
			panels := sw.panels(s, 10, func(n string) string { return n })
			if len(panels) != 1 || len(panels[0].Series) != 1 {
				t.Fatalf("panels %+v, want one of one line", panels)
			}
			if ls := panels[0].Series[0]; (ls.Lo != nil) != tc.band || (ls.Hi != nil) != tc.band {
				t.Errorf("band %v, %v; want one: %v", ls.Lo, ls.Hi, tc.band)
			}
		})
	}
}

// TestLossPanels: the training-loss curves are drawn in one panel per loss family, in the order
// of the families' first groups, each group with the style of its position among all groups.
func TestLossPanels(t *testing.T) {
	var recs []*Run
	for _, g := range []struct{ group, family string }{{"variant=plain", "softmax"}, {"variant=nce", "logistic"}, {"variant=logq", "softmax"}} {
		for seed := int64(1); seed <= 2; seed++ {
			recs = append(recs, &Run{ID: g.group + ",seed=" + strconv.FormatInt(seed, 10), Group: g.group, Seed: seed, LossFamily: g.family,
				Axes:    map[string]string{"loss.variant": strings.TrimPrefix(g.group, "variant=")},
				Curve:   Curve{{Step: 10, Loss: float64(seed)}, {Step: 20, Loss: 2 * float64(seed)}},
				Results: []metrics.Result{{Slice: metrics.SliceAll, Metric: metrics.MetricRecall, K: 10, Value: 0.5}}})
		}
	}
	s := summarize(recs, nil)
	panels, n := lossPanels(recs, s)
	if n != 3 || len(panels) != 2 || panels[0].Title != "softmax" || panels[1].Title != "logistic" {
		t.Fatalf("%d series in panels %+v, want softmax (plain, logq) then logistic (nce)", n, panels)
	}
	if a, b := panels[0].Series, panels[1].Series; len(a) != 2 || a[0].Name != "plain" || a[1].Name != "logq" || len(b) != 1 || b[0].Name != "nce" ||
		*a[0].Style != (plots.Style{Color: 0, Shape: 0}) || *b[0].Style != (plots.Style{Color: 1, Shape: 1}) || *a[1].Style != (plots.Style{Color: 2, Shape: 2}) {
		t.Errorf("panels %+v", panels)
	}
	if y := panels[0].Series[0].Y; y[0] != 1.5 || y[1] != 3 {
		t.Errorf("plain's curve %v, want the mean over seeds 1.5, 3", y)
	}
	fig, ok := lossFigure(recs, s)
	if !ok {
		t.Fatal("no loss figure")
	}
	if _, err := fig.build(plots.Settings{Width: 7}); err != nil {
		t.Error(err)
	}
}

// TestAuditNotes: a group's audit line gives the means over its seeds of the TV, of its noise
// floor and of the head's error, and says "sampling noise" up to auditMismatch floors and a law
// not followed above; a sampler without a law says Q undefined instead.
func TestAuditNotes(t *testing.T) {
	recs := []*Run{
		{Group: "sampler.kind=uniform", Audit: &Audit{TV: 0.10, Floor: 0.10, HeadWorst: 0.02, Head: 10}},
		{Group: "sampler.kind=uniform", Audit: &Audit{TV: 0.12, Floor: 0.10, HeadWorst: 0.04, Head: 10}},
		{Group: "sampler.kind=popularity", Audit: &Audit{TV: 0.30, Floor: 0.10, HeadWorst: 0.5, Head: 10}},
		{Group: "sampler.kind=in_batch"},
		{Group: "sampler.kind=hard", Audit: &Audit{Head: 10, QUndefined: true}},
	}
	notes := auditNotes(recs)
	want := []string{
		"sampler audit of sampler.kind=uniform (sampler_audit.csv, mean of 2 seeds): total variation 0.1100 between the copies " +
			"the loss's q declares and those drawn, against 0.1000 from sampling noise alone (i.i.d. draws from the declared law; " +
			"1.10 times the floor: within sampling noise); worst relative error among the 10 most frequent items 0.0300",
		"sampler audit of sampler.kind=popularity (sampler_audit.csv, one seed): total variation 0.3000 between the copies " +
			"the loss's q declares and those drawn, against 0.1000 from sampling noise alone (i.i.d. draws from the declared law; " +
			"3.0 times the floor: the draws do not follow the declared law); worst relative error among the 10 most frequent items 0.5000",
		"sampler audit of sampler.kind=hard (sampler_audit.csv): Q undefined (the sampler draws by the model's scores, " +
			"so no law of its draws exists to compare them with; the file gives the drawn frequencies only)",
	}
	if len(notes) != len(want) {
		t.Fatalf("got %d notes, want %d:\n%s", len(notes), len(want), strings.Join(notes, "\n"))
	}
	for i := range want {
		if notes[i] != want[i] {
			t.Errorf("note %d:\n got %s\nwant %s", i, notes[i], want[i])
		}
	}
	if got := auditVerdict(0.1, 0); got != "no draws" {
		t.Errorf("auditVerdict with no floor: %q", got)
	}
}

// TestTradeoffPanels: more than maxTradeoffCurves curves are drawn in panels, one per colour
// of the factor encoding (its value the panel's title, the legend naming the markers only),
// every series keeping its style; the arrows point to increasing τ; the intervals are drawn
// only when plots.tradeoff_intervals asks for them.
func TestTradeoffPanels(t *testing.T) {
	var recs []*Run
	for _, v := range []string{"plain", "logq", "full"} {
		for _, temp := range []string{"0.05", "0.1"} {
			g := "variant=" + v + ",temperature=" + temp
			for seed := int64(1); seed <= 2; seed++ {
				r := &Run{ID: g + ",seed=" + strconv.FormatInt(seed, 10), Group: g, Seed: seed, LossFamily: "softmax"}
				for _, tau := range []float64{0, 1} {
					for _, sl := range []metrics.Slice{metrics.SliceHead, metrics.SliceTail} {
						v := 0.1 + 0.1*tau + 0.01*float64(seed)
						r.Results = append(r.Results, metrics.Result{Tau: tau, Slice: sl, Metric: metrics.MetricRecall, K: 10, Value: v, Lo: v, Hi: v})
					}
				}
				recs = append(recs, r)
			}
		}
	}
	s := summarize(recs, nil)
	if err := s.encode(plots.Settings{ColorBy: "variant"}); err != nil {
		t.Fatal(err)
	}
	series := tradeoffSeries(s, 10)
	if len(series) != 6 || !series[0].Arrows || series[0].XLo == nil {
		t.Fatalf("%d series, arrows %v, intervals %v", len(series), series[0].Arrows, series[0].XLo)
	}
	if got := intervalsAsked(series, plots.Settings{}); got[0].XLo != nil || got[0].YHi != nil {
		t.Error("intervals drawn without plots.tradeoff_intervals")
	}
	if got := intervalsAsked(series, plots.Settings{TradeoffIntervals: true}); got[0].XLo == nil {
		t.Error("no intervals with plots.tradeoff_intervals")
	}
	panels, key := tradeoffPanels(s, series)
	var titles []string
	for _, p := range panels {
		titles = append(titles, p.Title)
		if len(p.Series) != 2 || *p.Series[0].Style == *p.Series[1].Style {
			t.Errorf("panel %s: %d series, styles %v", p.Title, len(p.Series), p.Series)
		}
	}
	if strings.Join(titles, ",") != "plain,logq,full" {
		t.Errorf("panels %v, want one per variant", titles)
	}
	if key == nil || len(key.Colors) != 0 || len(key.Shapes) != 2 {
		t.Errorf("legend %+v, want the two temperatures' markers only", key)
	}
	if _, _, _, err := plots.Fit(func(ps plots.Settings) (*plot.Plot, error) { return tradeoff(s, 10, ps) }, plots.Settings{}); err != nil {
		t.Error(err)
	}
}

// TestExposureFigure: recall_vs_arp_at_K says "Along each curve (arrows)" only when it draws
// curves (eval.exposure = "all": ARP at every τ_LA), and lays more than maxTradeoffCurves of them
// out in panels as the trade-off figure does; with ARP as trained only (eval.exposure = "on") it
// is one scatter of a point per cell, untitled, though Recall@K has every τ_LA.
func TestExposureFigure(t *testing.T) {
	for _, tc := range []struct {
		name     string
		arpTaus  []float64
		title    string
		inPanels bool
	}{
		{"exposure on", []float64{0}, "", false},
		{"exposure all", []float64{0, 1}, "Along each curve (arrows) τ_LA = 0 → 1; large marker: as trained", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var recs []*Run
			for _, v := range []string{"plain", "logq", "full"} {
				for _, temp := range []string{"0.05", "0.1"} {
					g := "variant=" + v + ",temperature=" + temp
					r := &Run{ID: g + ",seed=1", Group: g, Seed: 1, LossFamily: "softmax"}
					for _, tau := range []float64{0, 1} {
						r.Results = append(r.Results, metrics.Result{Tau: tau, Slice: metrics.SliceAll, Metric: metrics.MetricRecall, K: 10, Value: 0.2 - 0.1*tau})
					}
					for _, tau := range tc.arpTaus {
						r.Results = append(r.Results, metrics.Result{Tau: tau, Slice: metrics.SliceAll, Metric: metrics.MetricARP, K: 10, Value: 100 - 50*tau})
					}
					recs = append(recs, r)
				}
			}
			s := summarize(recs, nil)
			if err := s.encode(plots.Settings{ColorBy: "variant"}); err != nil {
				t.Fatal(err)
			}
			figs := exposureFigures(s)
			if len(figs) != 1 || figs[0].name != "recall_vs_arp_at_10" {
				t.Fatalf("figures %v", figs)
			}
			p, _, _, err := plots.Fit(figs[0].build, plots.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			if p.Title.Text != tc.title {
				t.Errorf("title %q, want %q", p.Title.Text, tc.title)
			}
			// A figure of panels has no axes of its own.
			if inPanels := p.X.Label.Text == ""; inPanels != tc.inPanels {
				t.Errorf("in panels: %v, want %v", inPanels, tc.inPanels)
			}
		})
	}
}
