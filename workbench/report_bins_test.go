package workbench

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/report"
)

// TestQuantileSlicesEndToEnd: slices.method = "quantiles" reports every bin in metrics.csv and
// summary.md, whose bins cover every item once.
func TestQuantileSlicesEndToEnd(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-set", `slices.method="quantiles"`, "-set", "slices.bins=4"); err != nil {
		t.Fatal(err)
	}
	csv := string(readFile(t, filepath.Join(dir, "metrics.csv")))
	summary := string(readFile(t, filepath.Join(dir, "summary.md")))
	for _, bin := range []string{"bin1", "bin2", "bin3", "bin4"} {
		if !strings.Contains(csv, ","+bin+",recall,10,") || !strings.Contains(summary, "| "+bin+" |") {
			t.Errorf("%s missing from metrics.csv or summary.md:\n%s", bin, summary)
		}
	}
	if strings.Contains(csv, ",head,") || !strings.Contains(summary, "## Popularity bins") || !strings.Contains(summary, "| macro | balance |") {
		t.Errorf("head rows, or no bins section:\n%s", summary)
	}
	for _, k := range []string{"1", "10"} {
		if _, err := os.Stat(filepath.Join(dir, "recall_by_popularity_at_"+k+".png")); err != nil {
			t.Error(err)
		}
	}
}

// TestResliceKeepsOnlyCurrentFigures: a folder reported with rank slices, then again with
// quantile bins, holds exactly the figures of the second report: the head-against-tail
// trade-off figures the first wrote are removed, the popularity-bin figures are there, and the
// report's tables show the bins; a file the report did not write, and one of its figures that
// was changed since, are kept.
func TestResliceKeepsOnlyCurrentFigures(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"tradeoff_at_1.png", "tradeoff_at_10.png"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Fatalf("the first report has no %s: %v", name, err)
		}
	}
	user := filepath.Join(dir, "notes.png")
	edited := filepath.Join(dir, "tradeoff_at_1.png")
	if err := os.WriteFile(user, []byte("a user's file"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edited, []byte("edited by hand"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-set", `slices.method="quantiles"`, "-set", "slices.bins=4"); err != nil {
		t.Fatal(err)
	}
	listed := string(readFile(t, filepath.Join(dir, report.ReportFiles)))
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var figures []string
	for _, e := range entries {
		if filepath.Ext(e.Name()) == ".png" {
			figures = append(figures, e.Name())
		}
	}
	for _, name := range figures {
		switch name {
		case "notes.png", "tradeoff_at_1.png": // the user's, and the edited one
		default:
			if !strings.Contains(listed, " "+name+"\n") {
				t.Errorf("%s is in the folder but not of the report (%s):\n%s", name, report.ReportFiles, listed)
			}
		}
	}
	for _, gone := range []string{"tradeoff_at_10.png"} {
		if slices.Contains(figures, gone) {
			t.Errorf("%s of the rank slices is still there: %v", gone, figures)
		}
	}
	for _, kept := range []string{"notes.png", "tradeoff_at_1.png", "recall_by_popularity_at_10.png", "recall_at_10.png"} {
		if !slices.Contains(figures, kept) {
			t.Errorf("%s is missing: %v", kept, figures)
		}
	}
	if b := readFile(t, edited); string(b) != "edited by hand" {
		t.Errorf("the edited figure was rewritten: %q", b)
	}
	summary := string(readFile(t, filepath.Join(dir, "summary.md")))
	for _, want := range []string{"## Recall@10\n\n| run | all | bin1 | bin2 | bin3 | bin4 |", "| baseline | all | bin1 | bin2 | bin3 | bin4 |"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, summary)
		}
	}
}
