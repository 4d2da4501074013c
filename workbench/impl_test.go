package workbench

import (
	"bytes"
	"encoding/csv"
	"math"
	"path/filepath"
	"strconv"
	"testing"
)

// TestExpressionTrainsLikeFused trains the smoke grid with loss.impl = "fused" and "expression":
// the two paths compute one loss with different rounding, so every logged training loss agrees
// to 1e-5 relative (at most 3.2e-7 on an AMD EPYC over the four runs' curves: float32 rounding,
// not a different loss) and every metric to two test pairs' worth (the smoke config has 800: a
// pair whose rank crosses a cut-off moves a mean by 1/800). On that machine the metrics came out
// byte for byte equal.
func TestExpressionTrainsLikeFused(t *testing.T) {
	dirs := map[string]string{}
	for _, impl := range []string{"fused", "expression"} {
		dirs[impl] = t.TempDir()
		if _, err := runCommand(t, "-config", smokeConfig, "-out", dirs[impl], "-set", "loss.impl="+impl); err != nil {
			t.Fatal(err)
		}
	}
	table := func(impl, path string) [][]string {
		t.Helper()
		rows, err := csv.NewReader(bytes.NewReader(readFile(t, filepath.Join(dirs[impl], path)))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	// near compares the float columns cols of two tables row by row within tol (relative when
	// rel) and the others exactly.
	near := func(what string, a, b [][]string, cols map[int]bool, tol float64, rel bool) {
		t.Helper()
		if len(a) < 2 || len(a) != len(b) {
			t.Fatalf("%s: %d rows fused, %d expression", what, len(a), len(b))
		}
		for i := range a {
			for j := range a[i] {
				if !cols[j] || i == 0 {
					if a[i][j] != b[i][j] {
						t.Fatalf("%s row %d column %d: fused %q, expression %q", what, i, j, a[i][j], b[i][j])
					}
					continue
				}
				x, err1 := strconv.ParseFloat(a[i][j], 64)
				y, err2 := strconv.ParseFloat(b[i][j], 64)
				bound := tol
				if rel {
					bound *= math.Abs(x)
				}
				if err1 != nil || err2 != nil || math.Abs(x-y) > bound {
					t.Errorf("%s row %d (%v): fused %v, expression %v, want within %.3g", what, i, a[i][:j], a[i][j], b[i][j], bound)
				}
			}
		}
	}
	for _, run := range []string{"variant=plain,seed=1", "variant=plain,seed=2", "variant=logq,seed=1", "variant=logq,seed=2"} {
		curve := filepath.Join("runs", run, "curve.csv")
		a, b := table("fused", curve), table("expression", curve)
		for _, rows := range [][][]string{a, b} { // examples/s is a speed, not a result
			for _, r := range rows[1:] {
				r[3] = ""
			}
		}
		near(run+" curve.csv", a, b, map[int]bool{2: true}, 1e-5, true)
	}
	a, b := table("fused", "metrics.csv"), table("expression", "metrics.csv")
	value := -1
	for j, name := range a[0] {
		if name == "value" {
			value = j
		}
	}
	near("metrics.csv", a, b, map[int]bool{value: true}, 2.0/800, false)
}
