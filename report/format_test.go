package report

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/metrics"
)

// TestNonzeroNeverZero: a number of summary.md that is not zero never reads as 0.0000: below the
// tables' precision it takes two significant digits, and every other number keeps its fixed
// decimals (so that a summary without such a number is unchanged).
func TestNonzeroNeverZero(t *testing.T) {
	for _, tc := range []struct {
		name   string
		x      float64
		places int
		plus   bool
		want   string
	}{
		{"ordinary", 0.25431, 4, false, "0.2543"},
		{"ordinary signed", -0.0155, 4, true, "-0.0155"},
		{"zero", 0, 4, false, "0.0000"},
		{"zero signed", 0, 4, true, "+0.0000"},
		{"rounds up to the last decimal", 0.00005, 4, false, "0.0001"},
		{"tiny negative difference", -1.2968e-05, 4, true, "-1.3e-05"},
		{"tiny positive difference", 3.1e-07, 4, true, "+3.1e-07"},
		{"tiny half-width", 2.2e-06, 4, false, "2.2e-06"},
		{"three decimals", 0.0004, 3, false, "0.0004"},
		{"one decimal", 0.04, 1, false, "0.04"},
		{"not a number", math.NaN(), 4, false, "NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := decimals(tc.x, tc.places, tc.plus); got != tc.want {
				t.Errorf("decimals(%g, %d, %v) = %q, want %q", tc.x, tc.places, tc.plus, got, tc.want)
			}
		})
	}
}

// TestSummaryTextsOfTinyValues: the texts of summary.md's cells, differences and contrasts give
// a nonzero mean, half-width or bound below 0.00005 its digits (the digest once printed
// "-0.0000 ± 0.0000 ✱" for a difference of -1.3e-05).
func TestSummaryTextsOfTinyValues(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
	}{
		{"difference", difference{Mean: -1.2968e-05, Lo: -1.5e-05, Hi: -1.05e-05, N: 2}.text(true), "-1.3e-05 ± 2.5e-06 ✱"},
		{"zero difference", difference{N: 2}.text(false), "+0.0000 ± 0.0000"},
		{"one seed's difference", difference{Mean: 4e-05, N: 1}.text(false), "+4e-05"},
		{"cell across seeds", agg{Mean: 3e-05, Lo: -1e-05, Hi: 7e-05, N: 3}.text(), "3e-05 ± 4e-05"},
		{"cell of one seed", agg{Mean: 3e-05, Lo: 3e-05, Hi: 3e-05, N: 1, Boot: [][2]float64{{0, 4e-05}}}.text(), "3e-05 [0.0000, 4e-05]ᵇ"},
		{"ordinary cell", agg{Mean: 0.5543, Lo: -0.1845, Hi: 1.2931, N: 2}.text(), "0.5543 ± 0.7388"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("%q, want %q", tc.got, tc.want)
			}
		})
	}
}

// TestDigestContrastsFewSeeds: a contrast of the digest whose p-value is the t-test's over 2
// seeds says that it rests on 1 degree of freedom; one of 3 seeds, or of the randomisation test
// over test pairs, says nothing more. The difference of -1.2968e-05 reads as such.
func TestDigestContrastsFewSeeds(t *testing.T) {
	row := func(n int, method pMethod) contrastRow {
		return contrastRow{contrastCells: contrastCells{name: "corrected - logq"},
			coord:      coord{0, metrics.SliceHead, metrics.MetricMRR, 0, metrics.TestNatural},
			difference: difference{Mean: -1.2968e-05, Lo: -1.5e-05, Hi: -1.05e-05, N: n}, method: method, pAdjusted: 0.012}
	}
	for _, tc := range []struct {
		name string
		row  contrastRow
		want string
	}{
		{"2 seeds, t-test", row(2, pSeeds), "- corrected - logq: MRR, head: -1.3e-05 ± 2.5e-06 ✱ (p = 0.012; 2 seeds: Student-t with 1 degree of freedom)\n"},
		{"3 seeds, t-test", row(3, pSeeds), "- corrected - logq: MRR, head: -1.3e-05 ± 2.5e-06 ✱ (p = 0.012)\n"},
		{"2 seeds, randomisation", row(2, pPairs), "- corrected - logq: MRR, head: -1.3e-05 ± 2.5e-06 ✱ ᵖ (p = 0.012)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			writeDigestContrasts(&buf, []contrastRow{tc.row}, Settings{Adjust: AdjustHolm})
			if !strings.Contains(buf.String(), tc.want) {
				t.Errorf("digest lacks %q:\n%s", tc.want, buf.String())
			}
		})
	}
}

// TestBeyondUnitNote: an interval across seeds of a metric in [0, 1] that reaches past 0 or 1
// is shown as computed, and summary.md says so once, with the first such interval; an interval
// within [0, 1] (or of a metric without bounds, or of one seed) brings no note.
func TestBeyondUnitNote(t *testing.T) {
	all := metrics.SliceAll
	for _, tc := range []struct {
		name  string
		seeds map[int64]map[metrics.Slice]float64
		want  string // "" for no note
	}{
		// Mean 0.01, sd 0.0141: t-interval 0.01 ± 0.1271.
		{"below 0", map[int64]map[metrics.Slice]float64{1: {all: 0}, 2: {all: 0.02}},
			"Note: 1 of the 95% intervals across seeds of metrics that lie in [0, 1] reach below 0 or above 1 (e.g. plain, Recall@10, all: [-0.1171, 0.1371]); they are shown as computed, not clipped"},
		{"above 1", map[int64]map[metrics.Slice]float64{1: {all: 0.98}, 2: {all: 1}}, "(e.g. plain, Recall@10, all: [0.8629, 1.1171])"},
		{"within", map[int64]map[metrics.Slice]float64{1: {all: 0.3}, 2: {all: 0.31}}, ""},
		{"one seed", map[int64]map[metrics.Slice]float64{1: {all: 0}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs := recordsOf(map[string]map[int64]map[metrics.Slice]float64{"variant=plain": tc.seeds}, []string{"variant=plain"})
			var buf bytes.Buffer
			if err := writeSummary(&buf, "test", summarize(recs, nil), nil, nil, Settings{}, nil); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if tc.want == "" && strings.Contains(out, "lie in [0, 1]") || tc.want != "" && !strings.Contains(out, tc.want) {
				t.Errorf("want note %q:\n%s", tc.want, out)
			}
		})
	}
	arp := summarize([]*Run{
		{ID: "a,seed=1", Group: "a", Seed: 1, Results: []metrics.Result{{Slice: all, Metric: metrics.MetricARP, K: 10, Value: 0}}},
		{ID: "a,seed=2", Group: "a", Seed: 2, Results: []metrics.Result{{Slice: all, Metric: metrics.MetricARP, K: 10, Value: 2}}},
	}, nil)
	if len(arp.notes) != 0 {
		t.Errorf("ARP, which has no upper bound, got notes %q", arp.notes)
	}
}

// TestDataLines: summary.md states the split of its runs near the top, with the test pairs of a
// cold item or query, and what the cold queries rank under a query tower that reads histories.
func TestDataLines(t *testing.T) {
	split := Split{Train: 5330, Valid: 274, Test: 291, ColdItems: 12}
	run := func(id string, sp *Split) *Run { return &Run{ID: id, Dataset: "events", Split: sp} }
	with := func(f func(*Split)) *Split { sp := split; f(&sp); return &sp }
	// adjustedRun has results at τ_LA = 0 and 1, as eval.logit_adjust = [0, 1] gives them.
	adjustedRun := func(id string, sp *Split) *Run {
		r := run(id, sp)
		for _, tau := range []float64{0, 1} {
			r.Results = append(r.Results, metrics.Result{Slice: metrics.SliceAll, Metric: metrics.MetricRecall, K: 10, Tau: tau})
		}
		return r
	}
	for _, tc := range []struct {
		name string
		runs []*Run
		want []string
	}{
		{"no split", []*Run{run("a", nil)}, nil},
		{"split", []*Run{run("a", nil), run("b", &split)},
			[]string{"Data: events, 5,330 training pairs, 274 validation, 291 test (12 with a cold item, 0 with a cold query)."}},
		{"no validation", []*Run{run("a", with(func(s *Split) { s.Valid = 0 }))},
			[]string{"Data: events, 5,330 training pairs, 291 test (12 with a cold item, 0 with a cold query)."}},
		{"splits differ", []*Run{run("a", &split), run("b", with(func(s *Split) { s.Test = 290 }))},
			[]string{"Data: events, 5,330 training pairs, 274 validation, 291 test (12 with a cold item, 0 with a cold query), of a: the runs' splits differ."}},
		{"towers differ, splits not", []*Run{run("a", &split), run("b", with(func(s *Split) { s.History = "mean" }))},
			[]string{"Data: events, 5,330 training pairs, 274 validation, 291 test (12 with a cold item, 0 with a cold query)."}},
		{"cold queries without history", []*Run{run("a", with(func(s *Split) { s.ColdQueries = 29 }))},
			[]string{"Data: events, 5,330 training pairs, 274 validation, 291 test (12 with a cold item, 29 with a cold query)."}},
		{"cold queries under SASRec", []*Run{run("a", with(func(s *Split) { s.ColdQueries, s.History = 29, "sasrec" }))},
			[]string{"Data: events, 5,330 training pairs, 274 validation, 291 test (12 with a cold item, 29 with a cold query).",
				"The 29 test pairs with a cold query (10.0%) have an empty history, which SASRec reads as a zero query: every item scores 0 for them " +
					"and their item ranks last as trained (τ_LA = 0), so that no cell's Recall@K over all test pairs as trained can exceed 0.9003 (docs/encoders.md)."}},
		{"cold queries under SASRec with logit adjustment", []*Run{adjustedRun("a", with(func(s *Split) { s.ColdQueries, s.History = 29, "sasrec" }))},
			[]string{"Data: events, 5,330 training pairs, 274 validation, 291 test (12 with a cold item, 29 with a cold query).",
				"The 29 test pairs with a cold query (10.0%) have an empty history, which SASRec reads as a zero query: every item scores 0 for them " +
					"and their item ranks last as trained (τ_LA = 0), so that no cell's Recall@K over all test pairs as trained can exceed 0.9003 (docs/encoders.md). " +
					"Post-hoc logit adjustment (τ_LA ≠ 0) ranks the items for them by −τ_LA·log π alone, and the bound does not hold for it."}},
		{"logit adjustment of another tower", []*Run{run("a", with(func(s *Split) { s.ColdQueries, s.History = 29, "sasrec" })),
			adjustedRun("b", with(func(s *Split) { s.ColdQueries, s.History = 29, "mean" }))},
			[]string{"Data: events, 5,330 training pairs, 274 validation, 291 test (12 with a cold item, 29 with a cold query).",
				"The 29 test pairs with a cold query (10.0%) have an empty history, which SASRec reads as a zero query: every item scores 0 for them " +
					"and their item ranks last as trained (τ_LA = 0), so that no cell's Recall@K over all test pairs as trained can exceed 0.9003 (docs/encoders.md).",
				"The 29 test pairs with a cold query (10.0%) have an empty history, whose mean is zero: the history-mean tower's query for them " +
					"is the user's own features alone, which no training pair of theirs has trained (docs/encoders.md)."}},
		{"cold queries under the history mean", []*Run{run("a", with(func(s *Split) { s.ColdQueries, s.History = 29, "mean" }))},
			[]string{"Data: events, 5,330 training pairs, 274 validation, 291 test (12 with a cold item, 29 with a cold query).",
				"The 29 test pairs with a cold query (10.0%) have an empty history, whose mean is zero: the history-mean tower's query for them " +
					"is the user's own features alone, which no training pair of theirs has trained (docs/encoders.md)."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := dataLines(tc.runs); !slices.Equal(got, tc.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
	recs := recordsOf(map[string]map[int64]map[metrics.Slice]float64{"variant=plain": {1: {metrics.SliceAll: 0.3}}}, []string{"variant=plain"})
	recs[0].Dataset, recs[0].Split = "events", &split
	var buf bytes.Buffer
	if err := writeSummary(&buf, "test: events", summarize(recs, nil), nil, nil, Settings{}, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "# test: events\n\nData: events, 5,330 training pairs, 274 validation, 291 test (12 with a cold item, 0 with a cold query).\n\nMean ± ") {
		t.Errorf("summary.md does not open with the data line:\n%s", buf.String())
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 5330: "5,330", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := grouped(n); got != want {
			t.Errorf("grouped(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestDigestPBelowThreshold: a p-value of the digest below 0.05, marked ✱, never reads as 0.05
// (a p of 0.049563649, of a 2-seed t-test, once printed "✱ (p = 0.05"): it takes the digits that
// keep it below; other p-values keep two significant digits.
func TestDigestPBelowThreshold(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    float64
		want string
	}{
		{"rounds up to the threshold", 0.049563649, "✱ (p = 0.0496)"},
		{"three digits still read as the threshold", 0.049951, "✱ (p = 0.04995)"},
		{"ordinary", 0.012, "✱ (p = 0.012)"},
		{"tiny", 2.2e-31, "✱ (p = 2.2e-31)"},
		{"zero", 0, "✱ (p = 0)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			row := contrastRow{contrastCells: contrastCells{name: "logq - plain"},
				coord:      coord{0, metrics.SliceHead, metrics.MetricMRR, 0, metrics.TestNatural},
				difference: difference{Mean: 0.2416, Lo: 0.0021, Hi: 0.4811, N: 3}, method: pSeeds, pAdjusted: tc.p}
			var buf bytes.Buffer
			writeDigestContrasts(&buf, []contrastRow{row}, Settings{Adjust: AdjustHolm})
			if !strings.Contains(buf.String(), tc.want) {
				t.Errorf("digest lacks %q:\n%s", tc.want, buf.String())
			}
		})
	}
}
