package workbench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/metrics"
)

// TestCalibrationEndToEnd: a run on the synthetic source is measured against its true
// probabilities: metrics.csv has its calibration metrics by slice, metrics.json its reliability
// curves over every test query, summary.md the calibration section and the report the
// reliability figures of the link and of P̂.
func TestCalibrationEndToEnd(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", "seed=1$"); err != nil {
		t.Fatal(err)
	}
	csv := string(readFile(t, filepath.Join(dir, "metrics.csv")))
	for _, want := range []string{",head,ece,0,", ",tail,ece_rel,0,", ",torso,mass_ratio,0,", ",all,phat_ece,0,", ",all,phat_mass_ratio,0,"} {
		if !strings.Contains(csv, want) {
			t.Errorf("metrics.csv has no row with %q", want)
		}
	}
	var rec runRecord
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "runs", "variant=logq,seed=1", "metrics.json")), &rec); err != nil {
		t.Fatal(err)
	}
	c := rec.Calibration
	if c == nil || c.Link != metrics.LinkSoftmax || c.Queries != rec.Data.TestQueries || c.TestQueries != c.Queries || c.Items != 300 ||
		c.PHatNegatives != 127 || len(c.Curves) != 2 {
		t.Fatalf("calibration %+v, test queries %d", c, rec.Data.TestQueries)
	}
	var pairs int64
	for _, b := range c.Curves[0].Bins {
		pairs += b.Pairs
	}
	if pairs != int64(c.Queries*c.Items) {
		t.Errorf("the curve holds %d pairs, want %d queries × %d items", pairs, c.Queries, c.Items)
	}
	summary := string(readFile(t, filepath.Join(dir, "summary.md")))
	for _, want := range []string{"## Calibration against the true P(item | query)", "Links: plain: softmax, P̂ with k' = 127", "### ECE / mean p", "### ΣP̂ / Σp"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	for _, f := range []string{"reliability.png", "reliability_phat.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
