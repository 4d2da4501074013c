package report

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/metrics"
)

// TestKendallTau: on a planted grid of five cells whose sampled metric swaps the second and
// third, 9 of the 10 pairs are concordant and 1 discordant, τ = (9 − 1)/10 = 0.8, and the pair
// named is the one swapped; a tie counts in neither, τ_b's denominator shrinking by it.
func TestKendallTau(t *testing.T) {
	full := []float64{0.1, 0.2, 0.3, 0.4, 0.5}
	sampled := []float64{0.5, 0.62, 0.6, 0.7, 0.8}
	tau, disc := kendallTau(full, sampled)
	if math.Abs(tau-0.8) > 1e-15 || len(disc) != 1 || disc[0] != [2]int{1, 2} {
		t.Errorf("τ = %v, discordant %v; want 0.8, [[1 2]]", tau, disc)
	}
	// With a tie in y (cells 3 and 4): 8 concordant, 1 discordant, 1 tied in y:
	// (8 − 1)/√(10·9).
	tied := []float64{0.5, 0.62, 0.6, 0.8, 0.8}
	if tau, _ := kendallTau(full, tied); math.Abs(tau-7/math.Sqrt(90)) > 1e-15 {
		t.Errorf("with a tie, τ_b = %v, want %v", tau, 7/math.Sqrt(90))
	}
	if tau, _ := kendallTau([]float64{1, 1}, []float64{2, 3}); !math.IsNaN(tau) {
		t.Errorf("all tied: τ = %v, want NaN", tau)
	}
}

// TestSampledAgreementPlanted: the report compares five cells whose sampled HR@10 reverses two
// of them: Kendall's τ_b 0.8 over all pairs, the pair named in sampled_vs_full.csv and in
// summary.md, the corrected estimate (ordered as the full metric) at τ_b = 1.
func TestSampledAgreementPlanted(t *testing.T) {
	full := []float64{0.1, 0.2, 0.3, 0.4, 0.5}
	sampled := []float64{0.5, 0.62, 0.6, 0.7, 0.8}
	var recs []*Run
	for i, g := range []string{"v=a", "v=b", "v=c", "v=d", "v=e"} {
		rec := &Run{ID: g + ",seed=1", Group: g, Seed: 1, Items: 100}
		for _, r := range []struct {
			m metrics.Metric
			v float64
		}{{metrics.MetricRecall, full[i]}, {metrics.MetricSampledRecall, sampled[i]}, {metrics.MetricCorrectedRecall, full[i] * 1.1}} {
			rec.Results = append(rec.Results, metrics.Result{Slice: metrics.SliceAll, Metric: r.m, K: 10, Value: r.v, Lo: r.v, Hi: r.v, Pairs: 50})
		}
		recs = append(recs, rec)
	}
	s := summarize(recs, nil)
	ag := sampledAgreement(s)
	if len(ag) != 2 {
		t.Fatalf("%d comparisons, want 2 (sampled and corrected Recall@10)", len(ag))
	}
	if ag[0].estimate != metrics.MetricSampledRecall || math.Abs(ag[0].tau-0.8) > 1e-15 || len(ag[0].reversed) != 1 || ag[0].reversed[0] != [2]string{"v=c", "v=b"} {
		t.Errorf("sampled: %+v", ag[0])
	}
	if ag[1].tau != 1 || len(ag[1].reversed) != 0 {
		t.Errorf("corrected: %+v", ag[1])
	}
	var buf bytes.Buffer
	if err := writeAgreementCSV(&buf, ag); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "all,recall,10,sampled_recall,5,0.8,1,v=c>v=b\n") {
		t.Errorf("sampled_vs_full.csv:\n%s", buf.String())
	}
	buf.Reset()
	writeAgreementSummary(&buf, s, ag, nil)
	if !strings.Contains(buf.String(), "| Recall@10 | Sampled HR@10 | 5 | – | – | – | 0.800 (1 reversed) |") {
		t.Errorf("summary:\n%s", buf.String())
	}
}

// TestRandomisationP: where every non-zero difference has the same size (hits), the p-value is
// the exact two-sided sign test's: 5 of 6 positive gives 2·(1 + 6)/2⁶ = 0.21875; zeros do not
// count; differences of several sizes get the Monte-Carlo estimate, within four standard
// errors of the exact enumeration of all 2¹² sign assignments; no difference at all gives 1.
func TestRandomisationP(t *testing.T) {
	if p := randomisationP([]float64{1, 1, 1, 1, 1, -1, 0, 0}, 1); math.Abs(p-0.21875) > 1e-12 {
		t.Errorf("sign test p = %v, want 0.21875", p)
	}
	if p := randomisationP([]float64{0, 0}, 1); p != 1 {
		t.Errorf("no difference: p = %v, want 1", p)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	d := make([]float64, 12)
	for i := range d {
		d[i] = rng.NormFloat64() + 0.4
	}
	var obs float64
	for _, x := range d {
		obs += x
	}
	extreme := 0
	for mask := range 1 << len(d) {
		var s float64
		for i, x := range d {
			if mask>>i&1 == 1 {
				s += x
			} else {
				s -= x
			}
		}
		if math.Abs(s) >= math.Abs(obs)*(1-1e-12) {
			extreme++
		}
	}
	exact := float64(extreme) / float64(int(1)<<len(d))
	p := randomisationP(d, 7)
	if se := math.Sqrt(exact * (1 - exact) / randomisations); math.Abs(p-exact) > 4*se+1.0/randomisations {
		t.Errorf("Monte-Carlo p = %v, exact %v", p, exact)
	}
}

// constantRuns are two cells A and B over three seeds, A's Recall@1 above B's by exactly 4 of
// 3,910 test pairs at every seed (every seed differs by the same amount), with, when withRanks,
// the ranks of those pairs: B misses on the 4 pairs that A ranks first.
func constantRuns(withRanks bool) []*Run {
	const n = 3910
	var recs []*Run
	for _, g := range []string{"variant=a", "variant=b"} {
		for seed := int64(1); seed <= 3; seed++ {
			hits := 100 + 10*int(seed)
			if g == "variant=a" {
				hits += 4
			}
			v := float64(hits) / n
			rec := &Run{ID: g + ",seed=" + string(rune('0'+seed)), Group: g, Seed: seed, Items: 5000,
				Results: []metrics.Result{{Slice: metrics.SliceAll, Metric: metrics.MetricRecall, K: 1, Value: v, Lo: v, Hi: v, Pairs: n}}}
			if withRanks {
				ranks := make([]int32, n)
				for p := range ranks {
					ranks[p] = 2
					if p < hits {
						ranks[p] = 1
					}
				}
				rec.Ranks = &PairRanks{Pairs: "same", Taus: []float64{0}, Full: [][]int32{ranks}, Slices: make([]metrics.Slice, n)}
				for p := range rec.Ranks.Slices {
					rec.Ranks.Slices[p] = metrics.SliceHead
				}
			}
			recs = append(recs, rec)
		}
	}
	return recs
}

// TestIdenticalSeedDifferencesNotSignificant: three seeds whose differences A − B are all the
// same (4/3,910) are not significant: without values per test pair the contrast is unresolved
// (no p-value, no ✱, none in the digest's count); with them its p-value is the paired
// randomisation test's over the test pairs of the three seeds, 12 pairs that A hits and B
// misses, none the other way: the sign test's 2·2⁻¹² (one-sided 2⁻¹²).
func TestIdenticalSeedDifferencesNotSignificant(t *testing.T) {
	rs := Settings{Contrasts: []Contrast{{Name: "a − b", A: "variant=a", B: "variant=b"}}}
	for _, withRanks := range []bool{false, true} {
		recs := constantRuns(withRanks)
		s := summarize(recs, nil)
		rows, err := contrasts(rs, recs, s)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 {
			t.Fatalf("%d rows, want 1", len(rows))
		}
		r := rows[0]
		if math.Abs(r.Mean-4.0/3910) > 1e-15 || r.N != 3 {
			t.Errorf("difference %v over %d seeds, want 4/3910 over 3", r.Mean, r.N)
		}
		if !withRanks {
			if r.method != pUnresolved || !math.IsNaN(r.P) || r.significant() {
				t.Errorf("without ranks: method %q, p %v, significant %v; want unresolved", r.method, r.P, r.significant())
			}
			var buf bytes.Buffer
			writeDigestContrasts(&buf, rows, rs)
			if !strings.Contains(buf.String(), "0 of 1 rows") || !strings.Contains(buf.String(), "1 rows are unresolved") {
				t.Errorf("digest:\n%s", buf.String())
			}
			continue
		}
		if want := 2 * math.Pow(2, -12); r.method != pPairs || math.Abs(r.P-want) > 1e-15 {
			t.Errorf("with ranks: method %q, p %v; want randomisation_pairs, %v", r.method, r.P, want)
		}
	}
}

// TestOneSeedPairedTest: with one common seed the paired t-test has nothing to say; the contrast
// takes the randomisation test over test pairs (the IR convention), with its effect size over
// the pairs.
func TestOneSeedPairedTest(t *testing.T) {
	recs := constantRuns(true)
	var one []*Run
	for _, r := range recs {
		if r.Seed == 1 {
			one = append(one, r)
		}
	}
	rows, err := contrasts(Settings{Contrasts: []Contrast{{Name: "x", A: "variant=a", B: "variant=b"}}}, one, summarize(one, nil))
	if err != nil {
		t.Fatal(err)
	}
	// 4 pairs A hits and B misses: p = 2·2⁻⁴.
	if r := rows[0]; r.method != pPairs || math.Abs(r.P-0.125) > 1e-15 || math.IsNaN(r.effect) {
		t.Errorf("method %q, p %v, effect %v; want randomisation_pairs, 0.125", r.method, r.P, r.effect)
	}
}

// TestFamiliesAdjustedSeparately: the p-values of two families are adjusted each over its own
// rows: a claim alone in its family keeps its raw p-value however many the other family holds,
// and the other family's rows are Holm-adjusted among themselves.
func TestFamiliesAdjustedSeparately(t *testing.T) {
	vals := map[string][]float64{
		"variant=a": {0.30, 0.32, 0.31},
		"variant=b": {0.20, 0.25, 0.21},
		"variant=c": {0.10, 0.16, 0.12},
		"variant=d": {0.29, 0.33, 0.30},
	}
	var recs []*Run
	for _, g := range []string{"variant=a", "variant=b", "variant=c", "variant=d"} {
		for i, v := range vals[g] {
			recs = append(recs, &Run{ID: g, Group: g, Seed: int64(i + 1), Items: 100,
				Results: []metrics.Result{{Slice: metrics.SliceAll, Metric: metrics.MetricRecall, K: 10, Value: v, Lo: v, Hi: v, Pairs: 50}}})
		}
	}
	rs := Settings{Adjust: AdjustHolm, Contrasts: []Contrast{
		{Name: "a − b", A: "variant=a", B: "variant=b", Family: "main"},
		{Name: "a − c", A: "variant=a", B: "variant=c", Family: "main"},
		{Name: "a − d", A: "variant=a", B: "variant=d", Family: "other"},
	}}
	rows, err := contrasts(rs, recs, summarize(recs, nil))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]contrastRow{}
	for _, r := range rows {
		byName[r.name] = r
	}
	if r := byName["a − d"]; r.pAdjusted != r.P {
		t.Errorf("alone in its family: adjusted %v, raw %v", r.pAdjusted, r.P)
	}
	main := metrics.Holm([]float64{byName["a − b"].P, byName["a − c"].P})
	if byName["a − b"].pAdjusted != main[0] || byName["a − c"].pAdjusted != main[1] {
		t.Errorf("family main: %v, %v; Holm over the two gives %v", byName["a − b"].pAdjusted, byName["a − c"].pAdjusted, main)
	}
	// The same three contrasts in one family: each is adjusted with the other two.
	for i := range rs.Contrasts {
		rs.Contrasts[i].Family = ""
	}
	rows, err = contrasts(rs, recs, summarize(recs, nil))
	if err != nil {
		t.Fatal(err)
	}
	p := make([]float64, len(rows))
	for i, r := range rows {
		p[i] = r.P
	}
	for i, q := range metrics.Holm(p) {
		if rows[i].pAdjusted != q {
			t.Errorf("one family: %s adjusted %v, Holm over the three gives %v", rows[i].name, rows[i].pAdjusted, q)
		}
	}
	if i := slices.IndexFunc(rows, func(r contrastRow) bool { return r.name == "a − b" }); rows[i].pAdjusted == main[0] {
		t.Errorf("a − b adjusted alike in a family of two and of three: %v", main[0])
	}
}

// TestContrastSettings: BH with a single contrast adjusts nothing and is refused naming
// report.adjust; an unknown metric is refused naming the contrast's metrics; a metric a cell
// lacks is an error naming report.contrast[i] and what evaluates it.
func TestContrastSettings(t *testing.T) {
	one := []Contrast{{Name: "x", A: "v=a", B: "v=b"}}
	s := Settings{Adjust: AdjustBH, Contrasts: one}
	if err := s.Resolve(); err == nil || !strings.HasPrefix(err.Error(), `adjust: "bh" with a single contrast`) {
		t.Errorf("bh with one contrast: %v", err)
	}
	s = Settings{Adjust: AdjustBH, Contrasts: []Contrast{{Name: "x", A: "v=a", B: "v=b", By: "w"}}}
	if err := s.Resolve(); err != nil {
		t.Errorf("bh with one contrast repeated by an axis: %v", err)
	}
	s = Settings{Contrasts: []Contrast{{Name: "x", A: "v=a", B: "v=b", Metrics: []metrics.Metric{"recal"}}}}
	if err := s.Resolve(); err == nil || !strings.Contains(err.Error(), `contrast[0]: metrics: unknown "recal"`) {
		t.Errorf("unknown metric: %v", err)
	}
	one[0].Metrics = []metrics.Metric{metrics.MetricSampledRecall}
	has := func(g string, m metrics.Metric) bool { return m == metrics.MetricRecall || g == "v=a" }
	_, err := contrastCellsOf(one, []string{"v=a", "v=b"}, []float64{0}, 0, true, has)
	if want := `report.contrast[0] (x): metrics: cell v=b has no "sampled_recall": the sampled evaluation evaluates it (eval.sampled.kind)`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}
