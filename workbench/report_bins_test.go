package workbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
