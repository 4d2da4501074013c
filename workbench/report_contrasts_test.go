package workbench

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/samplingbias/workbench/metrics"
)

// contrastConfig is configs/smoke.toml with the contrasts of TestContrastsEndToEnd: logq −
// plain at each temperature (by), and logq at τ_LA = 1 − logq as trained; Holm-adjusted.
func contrastConfig(t *testing.T, adjust string) string {
	t.Helper()
	b := readFile(t, smokeConfig)
	text := string(b) + `
[report]
adjust = "` + adjust + `"

[[report.contrast]]
name = "logq − plain"
a = "variant=logq"
b = "variant=plain"
by = "temperature"

[[report.contrast]]
name = "logq adjusted"
a = "variant=logq,temperature=0.1,la_tau=1"
b = "variant=logq,temperature=0.1"
`
	path := filepath.Join(t.TempDir(), "contrast.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestContrastsEndToEnd: every row of contrasts.csv is the mean of the per-seed differences
// A − B computed from metrics.csv, with the Student-t interval and p-value of those differences
// (metrics.MeanCI, metrics.TTestP); Holm's adjusted p-values are those of metrics.Holm over each
// family (same slice, metric and K), never below the raw ones; summary.md shows the contrasts
// and says how they were adjusted; a forest plot is drawn for every K.
func TestContrastsEndToEnd(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCommand(t, "-config", contrastConfig(t, "holm"), "-out", dir,
		"-set", "loss.temperature=[0.1,0.2]", "-set", "eval.logit_adjust=[0,1]"); err != nil {
		t.Fatal(err)
	}
	read := func(name string) [][]string {
		rows, err := csv.NewReader(bytes.NewReader(readFile(t, filepath.Join(dir, name)))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	// metrics.csv: run, seed, slice, metric, k, la_tau, value, variant, temperature.
	m := read("metrics.csv")
	col := map[string]int{}
	for i, h := range m[0] {
		col[h] = i
	}
	type key struct{ variant, temperature, seed, tau, slice, metric, k string }
	value := map[key]float64{}
	for _, r := range m[1:] {
		if r[col["loss.variant"]] == "" { // the sanity baselines' rows
			continue
		}
		v, err := strconv.ParseFloat(r[col["value"]], 64)
		if err != nil {
			t.Fatal(err)
		}
		value[key{r[col["loss.variant"]], r[col["loss.temperature"]], r[col["seed"]], r[col["la_tau"]], r[col["slice"]], r[col["metric"]], r[col["k"]]}] = v
	}
	rows := read("contrasts.csv")
	h := map[string]int{}
	for i, name := range rows[0] {
		h[name] = i
	}
	num := func(r []string, name string) float64 {
		v, err := strconv.ParseFloat(r[h[name]], 64)
		if err != nil {
			t.Fatalf("%s %q: %v", name, r[h[name]], err)
		}
		return v
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-7*math.Max(1, math.Abs(b)) }
	family := map[[4]string][]int{}
	// 4 slices × (recall, ndcg, strat_recall at 1 and 10, mrr, and the 6 calibration metrics of
	// the synthetic data but for the softmax's mass ratio of all pairs, 1 by construction) for
	// the 2 temperatures' contrasts and the logit-adjusted one, and the 5 exposure metrics at 1
	// and 10, of the rankings as trained only, for the first two.
	if want := 1 + (4*(7+6)-1)*3 + 5*2*2; len(rows) != want {
		t.Fatalf("contrasts.csv has %d rows, want %d", len(rows), want)
	}
	cell := func(id string) map[string]string { // a cell's id read into its axis values
		m := map[string]string{}
		for _, p := range strings.Split(id, ",") {
			k, v, _ := strings.Cut(p, "=")
			m[k] = v
		}
		return m
	}
	for i, r := range rows[1:] {
		ga, gb := cell(r[h["a"]]), cell(r[h["b"]])
		var d []float64
		scale := 1.0 // the largest value compared: metrics.csv holds 8 significant digits of each
		for _, seed := range []string{"1", "2"} {
			ka := key{ga["variant"], ga["temperature"], seed, r[h["a_la_tau"]], r[h["slice"]], r[h["metric"]], r[h["k"]]}
			kb := key{gb["variant"], gb["temperature"], seed, r[h["b_la_tau"]], r[h["slice"]], r[h["metric"]], r[h["k"]]}
			a, okA := value[ka]
			b, okB := value[kb]
			if !okA || !okB {
				t.Fatalf("row %v: metrics.csv has no %v or %v", r, ka, kb)
			}
			d = append(d, a-b)
			scale = max(scale, math.Abs(a), math.Abs(b))
		}
		// Values read back to 8 significant digits are off by up to half a unit of their 8th
		// digit, 5e-8 of the scale (a value of 1.2345678 by 5e-8), their differences by 1e-7,
		// the standard deviation of two by 1.5e-7 and the interval's half-width, t(0.975; 1)/√2
		// < 9 times that, by 1.3e-6: 2e-6 of the scale bounds every error. The t statistic
		// mean/(sd/√2) is off by a relative 2e-7·scale·(1/|mean| + 1/sd), and so, at most, is the
		// p-value (|t·dp/dt| < p near the values seen).
		near := func(a, b float64) bool { return math.Abs(a-b) <= 2e-6*scale }
		mean, lo, hi := metrics.MeanCI(d)
		_, sd := stat.MeanStdDev(d, nil)
		nearP := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9+4e-7*scale*(1/math.Abs(mean)+1/sd) }
		if !near(num(r, "mean"), mean) || !near(num(r, "lo"), lo) || !near(num(r, "hi"), hi) {
			t.Errorf("row %v: want mean %v [%v, %v] from metrics.csv", r, mean, lo, hi)
		}
		// The p-value is the paired t-test's where that test says something; where the two
		// seeds differ alike it is the randomisation test's over test pairs (metrics of ranks)
		// or none.
		switch p := metrics.TTestP(d); r[h["p_test"]] {
		case "t_seeds":
			if !nearP(num(r, "p"), p) {
				t.Errorf("row %v: p, want %v from metrics.csv", r, p)
			}
		case "randomisation_pairs", "unresolved":
			if !math.IsNaN(p) {
				t.Errorf("row %v: not the t-test's p %v", r, p)
			}
		default:
			t.Errorf("row %v: p_test %q", r, r[h["p_test"]])
		}
		if r[h["p"]] != "" && (num(r, "p_adjusted") < num(r, "p") || r[h["adjust"]] != "holm") {
			t.Errorf("row %v: adjusted p below the raw one, or not holm", r)
		}
		fk := [4]string{r[h["family"]], r[h["slice"]], r[h["metric"]], r[h["k"]]}
		family[fk] = append(family[fk], i+1)
	}
	for fk, idx := range family {
		want := 3
		if slices.Contains(metrics.ExposureMetrics(), metrics.Metric(fk[2])) {
			want = 2
		}
		if len(idx) != want {
			t.Errorf("family %v has %d rows, want %d", fk, len(idx), want)
		}
		p := make([]float64, len(idx))
		for j, i := range idx {
			p[j] = math.NaN()
			if rows[i][h["p"]] != "" {
				p[j] = num(rows[i], "p")
			}
		}
		for j, q := range metrics.Holm(p) {
			if got := rows[idx[j]][h["p_adjusted"]]; math.IsNaN(q) && got != "" || !math.IsNaN(q) && !near(num(rows[idx[j]], "p_adjusted"), q) {
				t.Errorf("family %v: p_adjusted %v, Holm gives %v", fk, got, q)
			}
		}
	}
	summary := string(readFile(t, filepath.Join(dir, "summary.md")))
	for _, want := range []string{"## Contrasts", "Holm's adjustment", "| logq − plain (temperature=0.1) | 2 |",
		"| logq adjusted | 2 |", "at τ_LA = 1"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	for _, k := range []string{"1", "10"} {
		if _, err := os.Stat(filepath.Join(dir, "contrasts_at_"+k+".png")); err != nil {
			t.Error(err)
		}
	}
}

// TestContrastErrors: a contrast that names no axis, no value, several cells, a strength that
// was not evaluated, or is malformed is an error naming report.contrast[i] before anything
// trains.
func TestContrastErrors(t *testing.T) {
	for _, tc := range []struct {
		name, contrast, want string
	}{
		{"axis", `name = "x"` + "\n" + `a = "loss=logq"` + "\n" + `b = "variant=plain"`,
			`report.contrast[0] (x): a: "loss" is not an axis of the grid (its axes, as in run ids: variant)`},
		{"value", `name = "x"` + "\n" + `a = "variant=logq"` + "\n" + `b = "variant=full"`,
			`report.contrast[0] (x): b: no cell has variant=full (its values: plain, logq)`},
		{"la_tau", `name = "x"` + "\n" + `a = "variant=logq,la_tau=2"` + "\n" + `b = "variant=plain"`,
			`report.contrast[0] (x): a: la_tau = 2 was not evaluated (eval.logit_adjust: 0)`},
		{"by", `name = "x"` + "\n" + `a = "variant=logq"` + "\n" + `b = "variant=plain"` + "\n" + `by = "seed"`,
			`report.contrast[0] (x): by: "seed" is not an axis of the grid`},
		{"same", `name = "x"` + "\n" + `a = "variant=logq"` + "\n" + `b = "variant=logq"`,
			`report.contrast[0]: a and b: the same cell "variant=logq"`},
		{"repeated name", `name = "x"` + "\n" + `a = "variant=logq"` + "\n" + `b = "variant=plain"` + "\n[[report.contrast]]\n" +
			`name = "x"` + "\n" + `a = "variant=plain"` + "\n" + `b = "variant=logq"`, `report.contrast[1]: name: "x" is also the name of contrast[0]`},
		{"no name", `a = "variant=logq"` + "\n" + `b = "variant=plain"`, `report.contrast[0]: name: required`},
		{"syntax", `name = "x"` + "\n" + `a = "logq"` + "\n" + `b = "variant=plain"`, `report.contrast[0]: a: "logq": want axis=value pairs`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.toml")
			text := string(readFile(t, smokeConfig)) + "\n[[report.contrast]]\n" + tc.contrast + "\n"
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			_, err := runCommand(t, "-config", path, "-out", dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "runs")); err == nil {
				t.Error("runs were started")
			}
		})
	}
}
