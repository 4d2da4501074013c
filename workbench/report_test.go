package workbench

import (
	"bytes"
	"encoding/csv"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/metrics"
)

// recordsOf builds run records of Recall@10 by slice: values[group][seed][slice].
func recordsOf(values map[string]map[int64]map[string]float64, order []string) []*runRecord {
	var recs []*runRecord
	for _, g := range order {
		for seed := int64(1); seed <= 9; seed++ {
			vals, ok := values[g][seed]
			if !ok {
				continue
			}
			rec := &runRecord{ID: g + ",seed=" + strconv.FormatInt(seed, 10), Group: g, Seed: seed}
			for _, sl := range sliceOrder {
				if v, ok := vals[sl]; ok {
					rec.Results = append(rec.Results, metrics.Result{Slice: sl, Metric: "recall", K: 10, Value: v,
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
	recs := recordsOf(map[string]map[int64]map[string]float64{
		"variant=full": {
			1: {"head": 0.11, "tail": 0.20}, 2: {"head": 0.10, "tail": 0.25}, 3: {"head": 0.10, "tail": 0.27},
			4: {"head": 0.90, "tail": 0.99},
		},
		"variant=plain": {1: {"head": 0.10, "tail": 0.30}, 2: {"head": 0.12, "tail": 0.32}, 3: {"head": 0.08, "tail": 0.34}},
		"variant=logq":  {1: {"head": 0.15, "tail": 0.25}},
	}, []string{"variant=full", "variant=plain", "variant=logq"})
	s := summarize(recs)
	d, err := compare(ReportSettings{Baseline: "variant=full"}, recs, s.groups)
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
		cell, slice string
		n           int
		mean, half  float64 // half NaN: no interval
		excludes    bool
	}{
		{"variant=plain", "head", 3, -0.01 / 3, headHalf, false},
		{"variant=plain", "tail", 3, 0.08, t2 * 0.01, true},
		{"variant=logq", "head", 1, 0.04, math.NaN(), false},
		{"variant=logq", "tail", 1, 0.05, math.NaN(), false},
	}
	if len(d.keys) != len(want) {
		t.Fatalf("%d differences, want %d: %v", len(d.keys), len(want), d.keys)
	}
	for _, w := range want {
		k := diffKey{comparison{w.cell, "variant=full"}, 0, w.slice, "recall", 10}
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
		{"cell", "baseline", "tau", "slice", "metric", "k", "seeds", "mean", "lo", "hi", "excludes_zero"},
		{"variant=plain", "variant=full", "0", "head", "recall", "10", "3", "-0.0033333333", "-0.055044783", "0.048378117", "false"},
		{"variant=plain", "variant=full", "0", "tail", "recall", "10", "3", "0.08", "0.036973473", "0.12302653", "true"},
		{"variant=logq", "variant=full", "0", "head", "recall", "10", "1", "0.04", "", "", "false"},
		{"variant=logq", "variant=full", "0", "tail", "recall", "10", "1", "0.05", "", "", "false"},
	}
	if !reflect.DeepEqual(rows, wantRows) {
		t.Errorf("differences.csv:\n%v\nwant\n%v", rows, wantRows)
	}

	buf.Reset()
	if err := writeSummary(&buf, "test", s, d); err != nil {
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
// matches on the other axis; all_pairs adds every pair; a bad baseline is an error.
func TestComparisons(t *testing.T) {
	groups := []string{
		"variant=full,temperature=0.05", "variant=full,temperature=0.1",
		"variant=plain,temperature=0.05", "variant=plain,temperature=0.1", "variant=logq,temperature=0.2",
	}
	got, err := comparisons(ReportSettings{Baseline: "variant=full"}, groups)
	if err != nil {
		t.Fatal(err)
	}
	want := []comparison{
		{"variant=plain,temperature=0.05", "variant=full,temperature=0.05"},
		{"variant=plain,temperature=0.1", "variant=full,temperature=0.1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("baseline variant=full: %v, want %v", got, want)
	}
	got, err = comparisons(ReportSettings{Baseline: "variant=full,temperature=0.1"}, groups[:4])
	if err != nil {
		t.Fatal(err)
	}
	want = []comparison{
		{"variant=full,temperature=0.05", "variant=full,temperature=0.1"},
		{"variant=plain,temperature=0.05", "variant=full,temperature=0.1"},
		{"variant=plain,temperature=0.1", "variant=full,temperature=0.1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("baseline of both axes: %v, want %v", got, want)
	}
	got, err = comparisons(ReportSettings{AllPairs: true}, groups[:3])
	if err != nil {
		t.Fatal(err)
	}
	want = []comparison{
		{groups[1], groups[0]}, {groups[2], groups[0]}, {groups[2], groups[1]},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("all pairs: %v, want %v", got, want)
	}
	for _, tc := range []struct{ baseline, want string }{
		{"loss=full", `report.baseline: "loss" is not an axis of the grid (its axes, as in run ids: temperature, variant)`},
		{"variant=softmax", `report.baseline: "variant=softmax" matches no cell of the grid`},
		{"variant", `report.baseline: "variant": want axis=value pairs`},
		{"variant=a,variant=b", `report.baseline: "variant=a,variant=b": axis variant given twice`},
	} {
		_, err := comparisons(ReportSettings{Baseline: tc.baseline}, groups)
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
		{agg{Mean: 0.5, Lo: 0.5, Hi: 0.5, N: 1, BootLo: 0.45, BootHi: 0.56}, "0.5000 [0.4500, 0.5600]ᵇ"},
		{agg{Mean: 0.5, Lo: 0.5, Hi: 0.5, N: 1, BootLo: 0.5, BootHi: 0.5}, "0.5000"},
	} {
		if got := tc.v.text(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.v, got, tc.want)
		}
	}
	recs := recordsOf(map[string]map[int64]map[string]float64{"variant=plain": {1: {"all": 0.3}}}, []string{"variant=plain"})
	var buf bytes.Buffer
	if err := writeSummary(&buf, "test", summarize(recs), nil); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); strings.Contains(out, "± 0.0000") || !strings.Contains(out, "0.3000 [0.2900, 0.3200]ᵇ") {
		t.Errorf("single-seed summary.md:\n%s", out)
	}
}
