package report

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

	isetting "github.com/samplingbias/workbench/internal/setting"
	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/plots"
)

// Contrast is one [[report.contrast]]: cell A against cell B, paired by seed, for every slice,
// metric and K: the mean over the seeds both ran of A − B, its 95% Student-t interval and the
// paired t-test's p-value (adjusted for the family with report.adjust).
type Contrast struct {
	// Name names the contrast in summary.md, contrasts.csv and the figure, e.g. "in-batch −
	// uniform"; required, unique.
	Name string `toml:"name"`
	// A and B select one cell each by axis values, written as in a run id ("variant=logq" or
	// "variant=importance,sampler.kind=in_batch"); required. Either may add la_tau=x to take the
	// cell's ranking after post-hoc logit adjustment at strength x (one of eval.logit_adjust);
	// without it a cell is taken as trained (τ_LA = 0, or the evaluated strength of smallest |τ_LA|,
	// the first of equal ones).
	A string `toml:"a"`
	B string `toml:"b"`
	// By names an axis over whose values the contrast is repeated, each value added to both A
	// and B (e.g. by = "variant": in_batch − uniform at each loss variant); a value at which A or
	// B has no cell is left out (e.g. the full softmax, which has no sampler). Default "": once.
	By string `toml:"by"`
	// Family names the family of claims the contrast belongs to: p-values are adjusted
	// (report.adjust) over the contrasts of one family at each slice, test set, metric and K,
	// so that declaring claims of another family does not weaken these. Default "": one family
	// of every contrast without a family.
	Family string `toml:"family"`
	// Metrics restricts the contrast to these metrics, as metrics.csv names them (e.g.
	// ["recall", "arp"]); each must be evaluated for both cells. Default: every metric both
	// cells have.
	Metrics []metrics.Metric `toml:"metrics"`
}

// laTauKey is the pseudo-axis of a contrast's cell that selects a post-hoc logit-adjustment
// strength.
const laTauKey = "la_tau"

// contrastSide is one side of a contrast: its axis values and its la_tau (NaN when not given).
type contrastSide struct {
	spec  [][2]string
	laTau float64
}

func parseSide(text string) (contrastSide, error) {
	spec, err := parseCellSpec(text)
	if err != nil {
		return contrastSide{}, err
	}
	side := contrastSide{laTau: math.NaN()}
	for _, kv := range spec {
		if kv[0] != laTauKey {
			side.spec = append(side.spec, kv)
			continue
		}
		v, err := strconv.ParseFloat(kv[1], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return contrastSide{}, fmt.Errorf("%q: la_tau %q is not a number", text, kv[1])
		}
		side.laTau = v
	}
	return side, nil
}

// resolve checks a contrast's syntax.
func (c *Contrast) resolve() error {
	if c.Name == "" {
		return fmt.Errorf("name: required")
	}
	for _, x := range []struct{ key, text string }{{"a", c.A}, {"b", c.B}} {
		if x.text == "" {
			return fmt.Errorf("%s: required (a cell, as in a run id, e.g. \"variant=full\")", x.key)
		}
		side, err := parseSide(x.text)
		if err != nil {
			return fmt.Errorf("%s: %w", x.key, err)
		}
		if c.By != "" && specHas(side.spec, c.By) {
			return fmt.Errorf("%s: %q gives the axis %s that by repeats the contrast over", x.key, x.text, c.By)
		}
	}
	if c.A == c.B {
		return fmt.Errorf("a and b: the same cell %q", c.A)
	}
	if c.By == laTauKey {
		return fmt.Errorf("by: la_tau is not an axis (give la_tau in a or b)")
	}
	for i, m := range c.Metrics {
		if !slices.Contains(metrics.AllMetrics(), m) {
			return fmt.Errorf("metrics: %w", &isetting.UnknownError{Value: string(m), Allowed: isetting.Names(metrics.AllMetrics())})
		}
		if slices.Contains(c.Metrics[:i], m) {
			return fmt.Errorf("metrics: %q given twice", m)
		}
	}
	return nil
}

// contrastCells is one contrast at one value of its by axis: the group ids of its two cells and
// their post-hoc logit-adjustment strengths.
type contrastCells struct {
	name, by, byValue string
	a, b              string
	tauA, tauB        float64
	family            string
	only              string // the contrast's metrics, ",recall,arp,"; "" for every metric
}

// wants reports whether the contrast compares metric m.
func (c contrastCells) wants(m metrics.Metric) bool {
	return c.only == "" || strings.Contains(c.only, ","+string(m)+",")
}

// label names the contrast, with its by value: "in-batch − uniform (variant=importance)".
func (c contrastCells) label() string {
	if c.by == "" {
		return c.name
	}
	return fmt.Sprintf("%s (%s=%s)", c.name, c.by, c.byValue)
}

// contrastRow is one row of contrasts.csv: one contrast at one value of its by axis, one slice,
// metric and K.
type contrastRow struct {
	contrastCells
	coord // its Tau is unused (0)
	difference
	family    string
	effect    float64 // the standardised paired difference (effectSize) of the differences tested
	method    pMethod // what the p-value comes from
	pAdjusted float64
}

// pMethod is where a contrast row's p-value comes from.
type pMethod string

const (
	// pSeeds: the paired t-test over the seeds' differences.
	pSeeds pMethod = "t_seeds"
	// pPairs: the paired randomisation test over test pairs (randomisationP), pooled over the
	// common seeds: for a single common seed (the IR convention), and where every seed
	// differs by the same amount.
	pPairs pMethod = "randomisation_pairs"
	// pUnresolved: every seed differs by the same amount, not zero, and the metric's values
	// per test pair are not kept (or the runs ranked different pairs): a test over seeds of
	// zero variance says nothing, and no p-value is given.
	pUnresolved pMethod = "unresolved"
	// pNone: one common seed and no values per test pair: no p-value.
	pNone pMethod = ""
)

// contrastCellsOf resolves the contrasts against the groups of a grid (in grid order) and the
// evaluated logit-adjustment strengths taus (ref the strength of a side without la_tau). It is
// an error if a contrast names an axis the grid does not have, a value no cell has, or selects
// no cell or several, or an la_tau that was not evaluated. When groups are only the finished
// cells of a grid checked before (strict false: -only, a shard, a folder still filling up), a
// contrast whose cells have not all finished is left out instead.
//
// has reports the metrics each group evaluated: a contrast that names in its metrics one that a
// cell of it lacks is an error naming report.contrast[i].metrics and what evaluates it.
func contrastCellsOf(cs []Contrast, groups []string, taus []float64, ref float64, strict bool, has func(group string, m metrics.Metric) bool) ([]contrastCells, error) {
	axisOrder, axes := gridAxes(groups)
	var out []contrastCells
	for i, c := range cs {
		cells, err := contrastCellsOne(c, i, groups, axisOrder, axes, taus, ref)
		var miss *missingCellError
		if err != nil && (strict || !errors.As(err, &miss)) {
			return nil, err
		}
		for _, cc := range cells {
			for _, m := range c.Metrics {
				for _, g := range []string{cc.a, cc.b} {
					if !has(g, m) {
						return nil, fmt.Errorf("report.contrast[%d] (%s): metrics: cell %s has no %q: %s", i, c.Name, g, m, metricSource(m))
					}
				}
			}
		}
		for j := range cells {
			cells[j].family = c.Family
			if len(c.Metrics) > 0 {
				cells[j].only = "," + strings.Join(isetting.Names(c.Metrics), ",") + ","
			}
		}
		out = append(out, cells...)
	}
	return out, nil
}

// metricSource says what evaluates metric m.
func metricSource(m metrics.Metric) string {
	switch {
	case slices.Contains(metrics.SampledMetrics(), m):
		return "the sampled evaluation evaluates it (eval.sampled.kind)"
	case slices.Contains(metrics.ExposureMetrics(), m):
		return "eval.exposure = \"on\" evaluates it"
	case m == metrics.MetricPSP || m == metrics.MetricPSRecall:
		return "it is evaluated on multi-label data only (data.source = \"xmc\")"
	case m == metrics.MetricAPLT:
		return "it needs popularity slices"
	case isCalibration(m):
		return "it is evaluated on data that know their true probabilities only (data.source = \"synthetic\"), and the P̂ metrics for softmax losses"
	}
	return "no run of the cell evaluated it"
}

// missingCellError is a contrast that names a cell, axis or value the groups do not have: an
// error in a whole grid, an unfinished cell among a grid's finished ones.
type missingCellError struct{ msg string }

func (e *missingCellError) Error() string { return e.msg }

// missing is the missingCellError of the formatted message.
func missing(format string, args ...any) error {
	return &missingCellError{fmt.Sprintf(format, args...)}
}

// contrastCellsOne resolves contrast c, the i-th, as contrastCellsOf does.
func contrastCellsOne(c Contrast, i int, groups, axisOrder []string, axes map[string][]string, taus []float64, ref float64) ([]contrastCells, error) {
	var out []contrastCells
	where := fmt.Sprintf("report.contrast[%d] (%s)", i, c.Name)
	byValues := []string{""}
	if c.By != "" {
		vs, ok := axes[c.By]
		if !ok {
			return nil, missing("%s: by: %q is not an axis of the grid (its axes, as in run ids: %s)", where, c.By, strings.Join(axisOrder, ", "))
		}
		byValues = vs
	}
	sides := [2]contrastSide{}
	for j, text := range []string{c.A, c.B} {
		side, err := parseSide(text)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", where, "ab"[j:j+1], err)
		}
		for _, kv := range side.spec {
			vs, ok := axes[kv[0]]
			if !ok {
				return nil, missing("%s: %s: %q is not an axis of the grid (its axes, as in run ids: %s)", where, "ab"[j:j+1], kv[0], strings.Join(axisOrder, ", "))
			}
			if !slices.Contains(vs, kv[1]) {
				return nil, missing("%s: %s: no cell has %s=%s (its values: %s)", where, "ab"[j:j+1], kv[0], kv[1], strings.Join(vs, ", "))
			}
		}
		if math.IsNaN(side.laTau) {
			side.laTau = ref
		} else if !slices.Contains(taus, side.laTau) {
			return nil, fmt.Errorf("%s: %s: la_tau = %g was not evaluated (eval.logit_adjust: %s)", where, "ab"[j:j+1], side.laTau, formatFloats(taus))
		}
		sides[j] = side
	}
	found := 0
byValue:
	for _, bv := range byValues {
		var cells [2]string
		for j, side := range sides {
			spec := side.spec
			if c.By != "" {
				spec = append(slices.Clone(spec), [2]string{c.By, bv})
			}
			var match []string
			for _, g := range groups {
				m := groupSettings(g)
				if !slices.ContainsFunc(spec, func(kv [2]string) bool { return m[kv[0]] != kv[1] }) {
					match = append(match, g)
				}
			}
			if len(match) == 0 && c.By != "" {
				continue byValue // a value of the by axis without one of the cells
			}
			if len(match) != 1 {
				what := "no cell"
				if len(match) > 1 {
					what = fmt.Sprintf("%d cells (%s); give the other axes' values too", len(match), strings.Join(match, "; "))
				}
				at := ""
				if c.By != "" {
					at = fmt.Sprintf(" at %s=%s", c.By, bv)
				}
				if len(match) == 0 {
					return nil, missing("%s: %s: %q selects %s%s", where, "ab"[j:j+1], []string{c.A, c.B}[j], what, at)
				}
				return nil, fmt.Errorf("%s: %s: %q selects %s%s", where, "ab"[j:j+1], []string{c.A, c.B}[j], what, at)
			}
			cells[j] = match[0]
		}
		if cells[0] == cells[1] && sides[0].laTau == sides[1].laTau {
			return nil, fmt.Errorf("%s: a and b select the same cell %s", where, cells[0])
		}
		out = append(out, contrastCells{name: c.Name, by: c.By, byValue: bv, a: cells[0], b: cells[1], tauA: sides[0].laTau, tauB: sides[1].laTau})
		found++
	}
	if found == 0 {
		return nil, missing("%s: no value of %s has both a cell %q and a cell %q", where, c.By, c.A, c.B)
	}
	return out, nil
}

// formatFloats writes vs as "0, 0.5, 1".
func formatFloats(vs []float64) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(out, ", ")
}

// contrasts computes the rows of the contrasts rs declares over the finished runs recs, whose
// groups and evaluated strengths s summarises, with p-values adjusted by rs.Adjust over each
// family: the rows of the same contrast family, slice, test set, metric and K. A contrast whose
// cells have no common seed yet (a folder still filling up) has no rows.
//
// A row's p-value is the paired t-test's over the seeds both cells ran; where that test says
// nothing (a single common seed, or every seed differing by the same amount: a test of zero
// variance) it is the paired randomisation test's over the test pairs of the common seeds, for
// the metrics that are functions of a pair's rank (recall, ndcg, mrr and their sampled forms, on
// the natural test set), and otherwise none: "unresolved" where the seeds differ alike.
func contrasts(rs Settings, recs []*Run, s *summary) ([]contrastRow, error) {
	cells, err := contrastCellsOf(rs.Contrasts, s.groups, s.taus, s.refTau(), false, s.has)
	if err != nil {
		return nil, err
	}
	sv := newSeedValues(recs)
	runs := map[string]map[int64]*Run{}
	for _, rec := range recs {
		if runs[rec.Group] == nil {
			runs[rec.Group] = map[int64]*Run{}
		}
		runs[rec.Group][rec.Seed] = rec
	}
	var rows []contrastRow
	for _, c := range cells {
		for _, k := range sv.order {
			if k.Tau != s.refTau() || !c.wants(k.Metric) {
				continue
			}
			ka, kb := k, k
			ka.Tau, kb.Tau = c.tauA, c.tauB
			d, ok := sv.paired(c.a, ka, c.b, kb)
			if !ok {
				continue
			}
			k.Tau = 0
			row := contrastRow{contrastCells: c, coord: k, difference: d, family: c.family, method: pSeeds, effect: effectSize(d.D)}
			if d.N < 2 || math.IsNaN(d.P) {
				row.method, row.effect, row.P = pUnresolved, math.NaN(), math.NaN()
				if d.N < 2 {
					row.method = pNone
				}
				if pd, ok := pairDiffs(runs[c.a], runs[c.b], d.Seeds, k, c.tauA, c.tauB); ok {
					row.method, row.effect = pPairs, effectSize(pd)
					row.P = randomisationP(pd, uint64(len(rows)))
				}
			}
			row.pAdjusted = row.P
			rows = append(rows, row)
		}
	}
	adjust := metrics.Holm
	if rs.Adjust == AdjustBH {
		adjust = metrics.BenjaminiHochberg
	}
	if rs.Adjust != AdjustNone {
		type familyKey struct {
			family string
			coord
		}
		family := map[familyKey][]int{}
		for i, r := range rows {
			fk := familyKey{r.family, r.coord}
			family[fk] = append(family[fk], i)
		}
		for _, idx := range family {
			p := make([]float64, len(idx))
			for j, i := range idx {
				p[j] = rows[i].P
			}
			for j, q := range adjust(p) {
				rows[idx[j]].pAdjusted = q
			}
		}
	}
	return rows, nil
}

// pairDiffs returns the differences, test pair by test pair, of metric c between group A's runs
// (at τ tauA) and group B's (at τB) of the given seeds, pooled over the seeds: false unless every
// seed's two runs kept the ranks of the same test pairs and c is a metric of a pair's rank on
// the natural test set.
func pairDiffs(a, b map[int64]*Run, seeds []int64, c coord, tauA, tauB float64) ([]float64, bool) {
	var d []float64
	for _, seed := range seeds {
		ra, rb := a[seed], b[seed]
		if ra == nil || rb == nil || ra.Ranks == nil || rb.Ranks == nil || ra.Ranks.Pairs != rb.Ranks.Pairs {
			return nil, false
		}
		va, ok := ra.Ranks.values(c, tauA)
		if !ok {
			return nil, false
		}
		vb, ok := rb.Ranks.values(c, tauB)
		if !ok {
			return nil, false
		}
		for p := range va {
			if c.Slice == metrics.SliceAll || ra.Ranks.Slices[p] == c.Slice {
				d = append(d, va[p]-vb[p])
			}
		}
	}
	return d, len(d) > 0
}

// values returns metric c of every pair of the ranking under τ: the pair's hit (recall), gain
// (ndcg) or reciprocal rank (mrr) at c's K, of its full or sampled rank; false for another
// metric, another test set, or ranks not kept.
func (pr *PairRanks) values(c coord, tau float64) ([]float64, bool) {
	if c.Test != metrics.TestNatural {
		return nil, false
	}
	var ranks []int32
	switch c.Metric {
	case metrics.MetricSampledRecall, metrics.MetricSampledNDCG, metrics.MetricSampledMRR:
		if tau == pr.SampledTau {
			ranks = pr.Sampled
		}
	case metrics.MetricRecall, metrics.MetricNDCG, metrics.MetricMRR:
		if i := slices.Index(pr.Taus, tau); i >= 0 {
			ranks = pr.Full[i]
		}
	}
	if ranks == nil || len(pr.Slices) != len(ranks) {
		return nil, false
	}
	out := make([]float64, len(ranks))
	for p, r := range ranks {
		switch c.Metric {
		case metrics.MetricRecall, metrics.MetricSampledRecall:
			if int(r) <= c.K {
				out[p] = 1
			}
		case metrics.MetricNDCG, metrics.MetricSampledNDCG:
			if int(r) <= c.K {
				out[p] = 1 / math.Log2(float64(r)+1)
			}
		default:
			out[p] = 1 / float64(r)
		}
	}
	return out, true
}

// significant reports whether the row's (adjusted) p-value is below 0.05.
func (r contrastRow) significant() bool { return r.pAdjusted < 0.05 }

// writeContrastsCSV writes contrasts.csv: one row per contrast × by value × slice (× test set,
// a column present only when the debiased test set was evaluated) × metric × K, with the
// contrast's family, the two cells' group ids and logit-adjustment strengths, the number of
// common seeds, the mean paired difference a − b, its 95% Student-t interval (empty for one
// seed), the standardised paired difference, the p-value, what it comes from (p_test: t_seeds,
// randomisation_pairs, unresolved, or empty for none) and the p-value adjusted by report.adjust.
func writeContrastsCSV(w io.Writer, rows []contrastRow, adjust Adjust) error {
	test := slices.ContainsFunc(rows, func(r contrastRow) bool { return r.Test != metrics.TestNatural })
	cw := csv.NewWriter(w)
	header := []string{"contrast", "family", "by", "by_value", "a", "a_la_tau", "b", "b_la_tau", "slice"}
	if test {
		header = append(header, "test")
	}
	header = append(header, "metric", "k", "seeds", "mean", "lo", "hi", "effect", "p", "p_test", "p_adjusted", "adjust")
	if err := cw.Write(header); err != nil {
		return err
	}
	num := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', 8, 64)
	}
	for _, r := range rows {
		row := []string{r.name, r.family, r.by, r.byValue, r.a, strconv.FormatFloat(r.tauA, 'g', -1, 64), r.b,
			strconv.FormatFloat(r.tauB, 'g', -1, 64), r.Slice.String()}
		if test {
			row = append(row, r.Test.String())
		}
		row = append(row, string(r.Metric), strconv.Itoa(r.K), strconv.Itoa(r.N), num(r.Mean), num(r.Lo), num(r.Hi),
			num(r.effect), num(r.P), string(r.method), num(r.pAdjusted), string(adjust))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// text writes the row for a summary table: its difference, ✱ when significant, ᵖ when its
// p-value is the randomisation test's over test pairs, ᵘ when unresolved.
func (r contrastRow) text() string {
	t := r.difference.text(r.significant())
	switch r.method {
	case pPairs:
		t += " ᵖ"
	case pUnresolved:
		t += " ᵘ"
	}
	return t
}

// adjustText says how the contrasts' p-values are adjusted.
func adjustText(a Adjust) string {
	switch a {
	case AdjustHolm:
		return "after Holm's adjustment for multiple comparisons (report.adjust = \"holm\": the family-wise error rate)"
	case AdjustBH:
		return "after Benjamini & Hochberg's adjustment for multiple comparisons (report.adjust = \"bh\": the false discovery rate)"
	}
	return "(no adjustment for multiple comparisons: report.adjust = \"none\")"
}

// writeContrastsSummary appends the contrasts to summary.md: which cells each compares, then per
// test set, metric and K a table of a − b by slice, mean ± half-width of the 95% interval, marked
// where the (adjusted) p-value is below 0.05.
func writeContrastsSummary(w io.Writer, s *summary, rows []contrastRow, rs Settings) {
	if len(rs.Contrasts) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Contrasts\n\nA − B, paired by seed: mean over the seeds both ran ± half-width of the 95%% Student-t "+
		"interval of the differences (no interval for one common seed). ✱ marks a p-value below 0.05 %s, over each family: "+
		"the contrasts of one `family` at the same slice, test set, metric and K; the intervals are not adjusted. "+
		"The p-value is the paired t-test's over seeds, except where that test says nothing: for one common seed, and where every seed differs "+
		"by the same amount (a test of zero variance), it is the paired randomisation test's over the test pairs of the common seeds (ᵖ), "+
		"for the metrics of a pair's rank; a contrast of seeds that all differ alike without it is unresolved (ᵘ: no p-value, never ✱). "+
		"The same numbers, with the p-values, standardised differences and where each p-value comes from, are in contrasts.csv.\n\n", adjustText(rs.Adjust))
	var lines []contrastCells
	for _, r := range rows {
		if !slices.Contains(lines, r.contrastCells) {
			lines = append(lines, r.contrastCells)
		}
	}
	if len(lines) == 0 {
		fmt.Fprintf(w, "No contrast has two cells with a common finished seed yet.\n")
		return
	}
	for _, l := range lines {
		family := ""
		if l.family != "" {
			family = fmt.Sprintf(" (family %s)", l.family)
		}
		fmt.Fprintf(w, "- %s%s: A = %s, B = %s\n", l.label(), family, sideLabel(s, l.a, l.tauA), sideLabel(s, l.b, l.tauB))
	}
	header, rule := sliceColumns(s.tableSlices())
	for _, tk := range s.tableKeys(func(c coord) bool {
		return slices.ContainsFunc(rows, func(r contrastRow) bool { return r.coord.Test == c.Test && r.Metric == c.Metric && r.K == c.K })
	}) {
		fmt.Fprintf(w, "\n### %s, contrasts\n\n| A − B | seeds |%s\n|---|---|%s\n", tk.name(), header, rule)
		for _, l := range lines {
			n := 0
			var texts []string
			for _, sl := range s.tableSlices() {
				c := coord{0, sl, tk.Metric, tk.K, tk.Test}
				i := slices.IndexFunc(rows, func(r contrastRow) bool { return r.contrastCells == l && r.coord == c })
				if i < 0 {
					texts = append(texts, "–")
					continue
				}
				n = max(n, rows[i].N)
				texts = append(texts, rows[i].text())
			}
			if n > 0 {
				fmt.Fprintf(w, "| %s | %d | %s |\n", mdCell(l.label()), n, strings.Join(texts, " | "))
			}
		}
	}
}

// sideLabel names a contrast's cell: its label, with the logit-adjustment strength when the
// ranking is not the reference one.
func sideLabel(s *summary, g string, tau float64) string {
	if tau == s.refTau() {
		return s.label(g)
	}
	return fmt.Sprintf("%s at τ_LA = %g", s.label(g), tau)
}

// contrastFigures lists, for every K of Recall, contrasts_at_K: the forest plot of the contrasts'
// paired differences of Recall@K with their intervals, by slice.
func contrastFigures(s *summary, rows []contrastRow) []figure {
	var lines []contrastCells
	for _, r := range rows {
		if !slices.Contains(lines, r.contrastCells) && r.wants(metrics.MetricRecall) {
			lines = append(lines, r.contrastCells)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	slicesShown := s.slices()
	groups := make([]string, len(slicesShown))
	for i, sl := range slicesShown {
		groups[i] = sl.String()
	}
	var figs []figure
	for _, k := range s.ks[metrics.MetricRecall] {
		forest := make([]plots.ForestRow, len(lines))
		for i, l := range lines {
			fr := plots.ForestRow{Label: l.label()}
			for _, sl := range slicesShown {
				mean, lo, hi := math.NaN(), math.NaN(), math.NaN()
				if j := slices.IndexFunc(rows, func(r contrastRow) bool {
					return r.contrastCells == l && r.coord == coord{0, sl, metrics.MetricRecall, k, metrics.TestNatural}
				}); j >= 0 {
					mean, lo, hi = rows[j].Mean, rows[j].Lo, rows[j].Hi
				}
				fr.Mean, fr.Lo, fr.Hi = append(fr.Mean, mean), append(fr.Lo, lo), append(fr.Hi, hi)
			}
			forest[i] = fr
		}
		label := fmt.Sprintf("%s: A − B (paired by seed, 95%% interval)", metricLabel(metrics.MetricRecall, k))
		figs = append(figs, figure{name: fmt.Sprintf("contrasts_at_%d", k), build: func(ps plots.Settings) (*plot.Plot, error) {
			return plots.Forest(groups, forest, plots.Labels{X: label}, ps)
		}})
	}
	return figs
}
