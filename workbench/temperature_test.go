package workbench

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestLearnedTemperatureRun runs a smoke run with loss.learn_temperature: its curve.csv has a
// temperature column that starts near loss.temperature (0.1) and moves with training, and a
// plain run's column holds the fixed τ.
func TestLearnedTemperatureRun(t *testing.T) {
	for _, c := range []struct {
		learn string
		moves bool
	}{{"true", true}, {"false", false}} {
		dir := t.TempDir()
		if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", "variant=logq,seed=1", "-set", "loss.learn_temperature="+c.learn); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(filepath.Join(dir, "runs", "variant=logq,seed=1", "curve.csv"))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) < 3 || len(rows[0]) != 5 || rows[0][4] != "temperature" {
			t.Fatalf("learn_temperature=%s: curve.csv %v", c.learn, rows)
		}
		first, _ := strconv.ParseFloat(rows[1][4], 64)
		last, _ := strconv.ParseFloat(rows[len(rows)-1][4], 64)
		if c.moves && (first == 0.1 || last == first || first < 0.09 || first > 0.11) {
			t.Errorf("learned τ: first %v, last %v; want near 0.1 and moving", first, last)
		}
		if !c.moves && (first != 0.1 || last != 0.1) {
			t.Errorf("fixed τ: first %v, last %v; want 0.1", first, last)
		}
	}
}
