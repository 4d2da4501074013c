package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/metrics"
)

// TestBaselinesReport: the baselines reach metrics.csv (kind "baseline", the runs' rows "run") and
// summary.md, and a cell whose interval
// overlaps the random ranking's range is flagged. M = 1000 items, 100 pairs: random Recall@10 is
// 10/1000 = 0.01 and its 95% range over 100 pairs is [0, 0.03] (Binomial(100, 0.01): P(X = 0) =
// 0.366 ≥ 0.025, P(X ≤ 2) = 0.921 < 0.975 ≤ P(X ≤ 3) = 0.982).
func TestBaselinesReport(t *testing.T) {
	all := metrics.SliceAll
	recs := recordsOf(map[string]map[int64]map[metrics.Slice]float64{
		"variant=full":  {1: {all: 0.30}, 2: {all: 0.32}},
		"variant=plain": {1: {all: 0.01}, 2: {all: 0.02}},
	}, []string{"variant=full", "variant=plain"})
	for _, rec := range recs {
		rec.Items = 1000
		rec.MostPopular = []metrics.Result{{Slice: all, Metric: metrics.MetricRecall, K: 10, Value: 0.1 + 0.01*float64(rec.Seed), Pairs: 100, TestPairs: 100}}
	}
	var csvBuf bytes.Buffer
	if err := writeMetricsCSV(&csvBuf, recs, []string{"variant"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nmost_popular,baseline,1,all,recall,10,0.11,\n", "\nmost_popular,baseline,2,all,recall,10,0.12,\n",
		"\nrandom,baseline,1,all,recall,10,0.01,\n", "\nrandom,baseline,2,all,recall,10,0.01,\n", "\"variant=full,seed=1\",run,1,all,recall,10,0.3,"} {
		if !strings.Contains(csvBuf.String(), want) {
			t.Errorf("metrics.csv has no row %q:\n%s", strings.TrimSpace(want), csvBuf.String())
		}
	}
	if n := strings.Count(csvBuf.String(), "most_popular,"); n != 2 {
		t.Errorf("metrics.csv has %d most_popular rows, want one per seed (2)", n)
	}
	var buf bytes.Buffer
	if err := writeSummary(&buf, "test", summarize(recs, nil), nil, nil, Settings{}, nil); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"| random | – | – | – | 0.0100 [0.0000, 0.0300]ᶜ |",
		"**Indistinguishable from chance** (95% interval overlapping the random ranking's range; 2 seeds: Student-t with 1 degree of freedom, " +
			"too wide to tell, so each seed's bootstrap interval over test pairs instead, at chance when one overlaps): plain (Recall@10, all).",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "| most_popular | – | – | – | 0.1150 ± ") {
		t.Errorf("summary.md lacks most_popular's mean over the two seeds:\n%s", out)
	}
	if strings.Contains(out, "full (Recall@10") {
		t.Errorf("full softmax flagged as chance:\n%s", out)
	}
}

// TestAtChanceFewSeeds: with 3 seeds or more a cell is at chance when its Student-t interval
// across seeds overlaps the random ranking's range; with 2 (1 degree of freedom, an interval
// about 9 standard deviations of the seeds wide each side) or 1, when the bootstrap interval over
// test pairs of one of its runs does. The random ranking's range is [0, 0.03] (M = 1000, 100
// pairs, K = 10: TestBaselinesReport); each run's bootstrap interval is [v − 0.01, v + 0.02].
func TestAtChanceFewSeeds(t *testing.T) {
	all := metrics.SliceAll
	for _, tc := range []struct {
		name   string
		seeds  map[int64]map[metrics.Slice]float64
		chance bool
		basis  string
	}{
		// Mean 0.16 and t-interval [-1.0834, 1.4034]: overlapping, but both runs are clear of chance.
		{"2 seeds, wide t, runs above chance", map[int64]map[metrics.Slice]float64{1: {all: 0.06}, 2: {all: 0.26}}, false,
			"2 seeds: Student-t with 1 degree of freedom, too wide to tell, so each seed's bootstrap interval over test pairs instead, at chance when one overlaps"},
		{"2 seeds, one run at chance", map[int64]map[metrics.Slice]float64{1: {all: 0.035}, 2: {all: 0.26}}, true, "2 seeds: Student-t"},
		{"1 seed above chance", map[int64]map[metrics.Slice]float64{1: {all: 0.06}}, false, "1 seed: its bootstrap interval over test pairs"},
		{"1 seed at chance", map[int64]map[metrics.Slice]float64{1: {all: 0.02}}, true, "1 seed: its bootstrap"},
		// Mean 0.16, sd 0.1, t-interval 0.16 ± 0.2484: overlapping though every run is clear of chance.
		{"3 seeds, t-interval overlapping", map[int64]map[metrics.Slice]float64{1: {all: 0.06}, 2: {all: 0.16}, 3: {all: 0.26}}, true,
			"3 seeds: Student-t with 2 degrees of freedom"},
		{"3 seeds, t-interval clear", map[int64]map[metrics.Slice]float64{1: {all: 0.15}, 2: {all: 0.16}, 3: {all: 0.17}}, false, "3 seeds: Student-t"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs := recordsOf(map[string]map[int64]map[metrics.Slice]float64{"variant=plain": tc.seeds}, []string{"variant=plain"})
			for _, rec := range recs {
				rec.Items = 1000
				rec.Results[0].Pairs = 100
			}
			var buf bytes.Buffer
			if err := writeSummary(&buf, "test", summarize(recs, nil), nil, nil, Settings{}, nil); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if got := strings.Contains(out, "range; "+tc.basis) && strings.Contains(out, "): plain (Recall@10, all)."); got != tc.chance {
				t.Errorf("at chance: %v, want %v (basis %q):\n%s", got, tc.chance, tc.basis, out)
			}
			if !tc.chance && !strings.Contains(out, "No cell's 95% interval overlaps the random ranking's range ("+tc.basis) {
				t.Errorf("summary.md does not say what no cell overlaps by (%q):\n%s", tc.basis, out)
			}
		})
	}
}

// TestBaselineRefs: the recall figures' reference levels are the most-popular ranking's mean
// Recall@K and the random ranking's K/M per slice, NaN where a slice has none.
func TestBaselineRefs(t *testing.T) {
	b := baselines{
		popular: map[coord]agg{{0, metrics.SliceHead, metrics.MetricRecall, 10, metrics.TestNatural}: {Mean: 0.3}, {0, metrics.SliceAll, metrics.MetricRecall, 10, metrics.TestNatural}: {Mean: 0.1}},
		random:  map[sliceK]chance{{metrics.SliceHead, 10}: {p: 0.01}, {metrics.SliceTail, 10}: {p: 0.01}, {metrics.SliceAll, 10}: {p: 0.01}},
	}
	refs := b.refs([]metrics.Slice{metrics.SliceHead, metrics.SliceTail, metrics.SliceAll}, 10)
	if len(refs) != 2 {
		t.Fatalf("%d references, want 2", len(refs))
	}
	pop, rnd := refs[0].Values, refs[1].Values
	if pop[0] != 0.3 || !math.IsNaN(pop[1]) || pop[2] != 0.1 || rnd[0] != 0.01 || rnd[1] != 0.01 || rnd[2] != 0.01 {
		t.Errorf("most popular %v, random %v", pop, rnd)
	}
	if got := (baselines{}).refs([]metrics.Slice{metrics.SliceAll}, 10); got != nil {
		t.Errorf("no baselines: %v", got)
	}
}
