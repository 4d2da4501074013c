package report

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/metrics"
)

// TestBinsSummary: per-bin recalls 0.4, 0.2 and 0 (bin3 has no test pair and is left out) give
// macro (0.4 + 0.2)/2 = 0.3 and Gini Σ|x_i − x_j|/(2n²x̄) = 0.4/(2·4·0.3) = 1/6, balance 5/6.
func TestBinsSummary(t *testing.T) {
	b1, b2 := metrics.SliceBin(0), metrics.SliceBin(1)
	recs := recordsOf(map[string]map[int64]map[metrics.Slice]float64{
		"variant=full": {1: {metrics.SliceAll: 0.3}},
	}, []string{"variant=full"})
	for sl, v := range map[metrics.Slice]float64{b1: 0.4, b2: 0.2} {
		recs[0].Results = append(recs[0].Results, metrics.Result{Slice: sl, Metric: metrics.MetricRecall, K: 10, Value: v, Pairs: 50, Items: 2})
	}
	recs[0].Bins = []metrics.BinShare{
		{Items: 2, MinCount: 5, MaxCount: 9, Train: 0.7, Test: 0.5},
		{Items: 3, MinCount: 1, MaxCount: 4, Train: 0.3, Test: 0.5},
		{Items: 1},
	}
	var buf bytes.Buffer
	if err := writeSummary(&buf, "test", summarize(recs, nil), nil, nil, Settings{}, nil); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"| bin1 | 2 | 5–9 | 70.0% | 50.0% |", "| bin3 | 1 | 0–0 | 0.0% | 0.0% |",
		"| run | bin1 | bin2 | macro | balance |", "| full | 0.4000 | 0.2000 | 0.3000 | 0.833 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, out)
		}
	}
}

// TestPopularityFigureSeries: the recall-by-popularity figure places each bin at the geometric
// mean of its least and greatest training counts, the rarest first, with the bin's mean recall
// across seeds; without bins there is no such figure.
func TestPopularityFigureSeries(t *testing.T) {
	s := &summary{
		groups: []string{"variant=plain"},
		taus:   []float64{0},
		ks:     map[metrics.Metric][]int{metrics.MetricRecall: {10}},
		values: map[aggKey]agg{
			{"variant=plain", coord{0, metrics.SliceBin(0), metrics.MetricRecall, 10, metrics.TestNatural}}: {Mean: 0.5, Lo: 0.4, Hi: 0.6, N: 2},
			{"variant=plain", coord{0, metrics.SliceBin(1), metrics.MetricRecall, 10, metrics.TestNatural}}: {Mean: 0.2, Lo: 0.1, Hi: 0.3, N: 2},
		},
		bins:  []metrics.BinShare{{Items: 3, MinCount: 100, MaxCount: 400}, {Items: 10, MinCount: 1, MaxCount: 4}},
		label: func(g string) string { return g },
	}
	if figs := popularityFigures(s); len(figs) != 1 || figs[0].name != "recall_by_popularity_at_10" {
		t.Fatalf("figures %v", figs)
	}
	series := popularitySeries(s, 10)
	if len(series) != 1 || !slices.Equal(series[0].X, []float64{2, 200}) || !slices.Equal(series[0].Y, []float64{0.2, 0.5}) ||
		!slices.Equal(series[0].Lo, []float64{0.1, 0.4}) {
		t.Errorf("series %+v, want x 2 and 200 (√(1·4), √(100·400)), y 0.2 and 0.5", series)
	}
	s.bins = nil
	if figs := popularityFigures(s); figs != nil {
		t.Errorf("figures without bins: %v", figs)
	}
}

// TestSummaryTablesWithPipes: a "|" in a plots.labels name is escaped in summary.md, so that
// every row of every table has its header's number of cells (unescaped, the digest's row of
// the best cell and the per-run rows got two cells too many).
func TestSummaryTablesWithPipes(t *testing.T) {
	recs := recordsOf(map[string]map[int64]map[metrics.Slice]float64{
		"variant=full":  {1: {metrics.SliceAll: 0.3}, 2: {metrics.SliceAll: 0.32}},
		"variant=plain": {1: {metrics.SliceAll: 0.4}, 2: {metrics.SliceAll: 0.42}},
	}, []string{"variant=full", "variant=plain"})
	var buf bytes.Buffer
	labels := map[string]string{"plain": "logQ | Yi et al. 2019 | eq. 3"}
	if err := writeSummary(&buf, "test", summarize(recs, labels), nil, nil, Settings{}, nil); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, `logQ \| Yi et al. 2019 \| eq. 3`) {
		t.Fatalf("summary.md lacks the escaped label:\n%s", out)
	}
	cells := func(line string) int { return strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") }
	want, rows := 0, 0
	for _, line := range strings.Split(out, "\n") {
		switch {
		case !strings.HasPrefix(line, "|"):
			want = 0
		case want == 0:
			want = cells(line) // a table's header
		default:
			rows++
			if got := cells(line); got != want {
				t.Errorf("row %q has %d separators, its header %d", line, got, want)
			}
		}
	}
	if rows < 4 {
		t.Errorf("only %d table rows checked:\n%s", rows, out)
	}
}

// TestSummaryNamesMissingRuns: a report of part of the grid (Input.Missing) says so in
// summary.md, naming the runs it leaves out; a report of the whole grid does not.
func TestSummaryNamesMissingRuns(t *testing.T) {
	recs := recordsOf(map[string]map[int64]map[metrics.Slice]float64{
		"variant=full": {1: {metrics.SliceAll: 0.3}},
	}, []string{"variant=full"})
	for _, missing := range [][]string{nil, {"variant=full,seed=2", "variant=plain,seed=1"}} {
		dir := t.TempDir()
		if err := Write(dir, Input{Runs: recs, Missing: missing}, io.Discard); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "summary.md"))
		if err != nil {
			t.Fatal(err)
		}
		want := "Note: part of the grid: 2 of its 3 runs have not finished and are left out (variant=full,seed=2, variant=plain,seed=1)."
		if got := strings.Contains(string(b), "part of the grid"); got != (missing != nil) || (missing != nil && !strings.Contains(string(b), want)) {
			t.Errorf("missing %v: summary.md\n%s", missing, b)
		}
	}
}
