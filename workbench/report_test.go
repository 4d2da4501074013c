package workbench

import (
	"bytes"
	"encoding/csv"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/models"
	"github.com/samplingbias/workbench/report"
)

// TestFigureLayoutNeverFails: a finished experiment whose legend cannot fit the figure asked
// for still writes every figure, drawn another way, with a warning before training and after.
func TestFigureLayoutNeverFails(t *testing.T) {
	dir := t.TempDir()
	long := `plots.labels={plain="in-batch softmax without any correction of the sampling bias", ` +
		`logq="in-batch softmax with the logQ correction of Yi et al. (2019)"}`
	out, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", "seed=1$", "-set", "plots.font_size=11", "-set", long)
	if err != nil {
		t.Fatal(err)
	}
	// Once when checked after planning, before training; once when drawn; the figures with the
	// same note in one line.
	if n := strings.Count(out, "warning: recall_at_1 and recall_at_10 figures: legend entry "); n != 2 {
		t.Errorf("%d warnings for recall_at_1 and recall_at_10, want 2:\n%s", n, out)
	}
	if i, j := strings.Index(out, "warning: loss_curves, "), strings.Index(out, "finished in"); i < 0 || j < 0 || i > j {
		t.Errorf("no warning before training:\n%s", out)
	}
	for _, f := range []string{"recall_at_1.png", "recall_at_10.png", "loss_curves.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	summary := readFile(t, filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(summary), "| in-batch softmax with the logQ correction of Yi et al. (2019) |") {
		t.Errorf("summary.md does not use plots.labels:\n%s", summary)
	}
}

// TestReportCheckedBeforeTraining: a baseline or a label that names no cell is an error before
// any run trains.
func TestReportCheckedBeforeTraining(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"report.baseline=variant=full", `report.baseline: "variant=full" matches no cell of the grid`},
		{"report.baseline=loss=plain", `report.baseline: "loss" is not an axis of the grid`},
		{`plots.labels={logQ="logQ"}`, `plots.labels: "logQ" is no axis value of the grid`},
		{"plots.legend=inside", `plots.legend: unknown "inside" (allowed: top, right)`},
		// An axis over the slicing gives each run its own slices: every figure is checked with
		// each run's slices, before any run trains.
		{`slices.method=["rank", "quantiles"]`, `the report of this grid cannot be drawn (checked before training): its runs have different slices`},
	} {
		dir := t.TempDir()
		_, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-set", tc.set)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("-set %s: error %v, want %q", tc.set, err, tc.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "runs")); err == nil {
			t.Errorf("-set %s: runs were started", tc.set)
		}
	}
}

// TestDifferencesEndToEnd: a baseline in the config gives differences.csv and the paired
// differences in summary.md; without one, no differences.csv is left behind.
func TestDifferencesEndToEnd(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-set", "report.baseline=variant=plain"); err != nil {
		t.Fatal(err)
	}
	b := readFile(t, filepath.Join(dir, "differences.csv"))
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// logq − plain × (4 slices × (recall@1, recall@10, ndcg@1, ndcg@10, mrr, strat_recall@1,
	// strat_recall@10, the 6 calibration metrics of the synthetic data) + 5 exposure metrics × 2
	// K) but for the softmax's mass ratio of all pairs (1 by construction), two seeds each.
	if want := 1 + 4*(7+6) - 1 + 5*2; len(rows) != want {
		t.Errorf("differences.csv has %d rows, want %d", len(rows), want)
	}
	for _, r := range rows[1:] {
		if r[0] != "variant=logq" || r[1] != "variant=plain" || r[6] != "2" {
			t.Errorf("row %v", r)
		}
	}
	summary := readFile(t, filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(summary), "| logq − plain | 2 |") {
		t.Errorf("summary.md lacks the differences:\n%s", summary)
	}
	// [report] is not part of a run's config: changing it rewrites the report, reruns nothing.
	out, err := runCommand(t, "-config", smokeConfig, "-out", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "4 runs: 4 already finished, 0 to run") {
		t.Errorf("output:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "differences.csv")); err == nil {
		t.Error("differences.csv of the earlier report left behind")
	}
}

// TestTradeoffFigures: the report draws the head-against-tail trade-off of Recall@K for every
// K, each variant's logit-adjustment strengths joined as a curve; without τ = 0 among the
// strengths, the other figures show the smallest one rather than fail. summary.md puts the
// tables of the ranking as trained before those of the adjusted rankings, whatever the order of
// the strengths.
func TestTradeoffFigures(t *testing.T) {
	for _, taus := range []string{"[0,0.5,1]", "[0.5,1]", "[-0.5,0,0.5]"} {
		dir := t.TempDir()
		if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", "seed=1$", "-set", "eval.logit_adjust="+taus); err != nil {
			t.Fatalf("logit_adjust = %s: %v", taus, err)
		}
		for _, name := range []string{"tradeoff_at_1", "tradeoff_at_10", "recall_at_10"} {
			f, err := os.Open(filepath.Join(dir, name+".png"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = png.Decode(f)
			f.Close()
			if err != nil {
				t.Errorf("logit_adjust = %s: %s.png: %v", taus, name, err)
			}
		}
		if taus != "[-0.5,0,0.5]" {
			continue
		}
		var headings []string
		for _, line := range strings.Split(string(readFile(t, filepath.Join(dir, "summary.md"))), "\n") {
			if strings.HasPrefix(line, "## ") && !strings.HasPrefix(line, "## Paired") && !strings.HasPrefix(line, "## Sanity baselines") && !strings.HasPrefix(line, "## Popularity bins") &&
				!strings.HasPrefix(line, "## Calibration") {
				headings = append(headings, line)
			}
		}
		adjusted := slices.IndexFunc(headings, func(h string) bool { return strings.Contains(h, "post-hoc") })
		if adjusted < 1 || slices.ContainsFunc(headings[adjusted:], func(h string) bool { return !strings.Contains(h, "post-hoc") }) ||
			!strings.Contains(headings[adjusted], "τ_LA = -0.5") {
			t.Errorf("summary.md tables in the order %q: want the ranking as trained first, then τ_LA = -0.5 and 0.5", headings)
		}
	}
}

// TestBaselineNotFinished: a run of part of the grid (-only) whose baseline cell has no finished
// run writes its outputs, the cells noted as not compared, instead of failing after training.
func TestBaselineNotFinished(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", "^variant=logq,seed=1$",
		"-set", `report.baseline="variant=plain"`); err != nil {
		t.Fatal(err)
	}
	if s := string(readFile(t, filepath.Join(dir, "summary.md"))); !strings.Contains(s, "Not compared") {
		t.Errorf("summary.md does not note the cells left uncompared:\n%s", s)
	}
	if _, err := runCommand(t, "-config", smokeConfig, "-out", t.TempDir(), "-only", "^variant=logq,seed=1$",
		"-set", `report.baseline="variant=softmax"`); err == nil || !strings.Contains(err.Error(), "matches no cell of the grid") {
		t.Errorf("a baseline that is no cell of the grid: %v", err)
	}
}

// TestReportRunSplit: the report reads a run's split from its record: the sizes, the test
// pairs with a cold item or query from its data report (metrics.json's data.report, which
// leaves out a count of 0), and its query tower's sequence encoder when it reads histories.
func TestReportRunSplit(t *testing.T) {
	rep := datasets.Report{Source: datasets.SourceInteractions, Train: 5330, Valid: 274, Test: 291, ColdTestItems: 12}
	rec := &runRecord{Data: dataSummary{Name: "events", Train: 5330, Valid: 274, Test: 291, Report: rep.String()}}
	for _, tc := range []struct {
		name string
		seq  models.SequenceSettings
		want report.Split
	}{
		{"no history", models.SequenceSettings{Encoder: models.EncoderNone}, report.Split{Train: 5330, Valid: 274, Test: 291, ColdItems: 12}},
		{"sasrec", models.SequenceSettings{Encoder: models.EncoderSASRec}, report.Split{Train: 5330, Valid: 274, Test: 291, ColdItems: 12, History: "sasrec"}},
		{"mean", models.SequenceSettings{Encoder: models.EncoderMean}, report.Split{Train: 5330, Valid: 274, Test: 291, ColdItems: 12, History: "mean"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := rec.reportRun(losses.FamilySoftmax, tc.seq).Split; got == nil || *got != tc.want {
				t.Errorf("split %+v, want %+v", got, tc.want)
			}
		})
	}
	rep.ColdTestQueries = 7
	rec.Data.Report = rep.String()
	if got := rec.reportRun(losses.FamilySoftmax, models.SequenceSettings{}).Split; got.ColdQueries != 7 {
		t.Errorf("cold queries %d, want 7", got.ColdQueries)
	}
}
