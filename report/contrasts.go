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
	// "sampler=in_batch,weighting=importance"); required. Either may add la_tau=x to take the
	// cell's ranking after post-hoc logit adjustment at strength x (one of eval.logit_adjust);
	// without it a cell is taken as trained (τ_LA = 0, or the smallest evaluated strength).
	A string `toml:"a"`
	B string `toml:"b"`
	// By names an axis over whose values the contrast is repeated, each value added to both A
	// and B (e.g. by = "weighting": in_batch − uniform at each weighting); a value at which A or
	// B has no cell is left out (e.g. the full softmax, which has no sampler). Default "": once.
	By string `toml:"by"`
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
	return nil
}

// contrastCells is one contrast at one value of its by axis: the group ids of its two cells and
// their post-hoc logit-adjustment strengths.
type contrastCells struct {
	name, by, byValue string
	a, b              string
	tauA, tauB        float64
}

// label names the contrast, with its by value: "in-batch − uniform (weighting=importance)".
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
	pAdjusted float64
}

// contrastCellsOf resolves the contrasts against the groups of a grid (in grid order) and the
// evaluated logit-adjustment strengths taus (ref the strength of a side without la_tau). It is
// an error if a contrast names an axis the grid does not have, a value no cell has, or selects
// no cell or several, or an la_tau that was not evaluated. When groups are only the finished
// cells of a grid checked before (strict false: -only, a shard, a folder still filling up), a
// contrast whose cells have not all finished is left out instead.
func contrastCellsOf(cs []Contrast, groups []string, taus []float64, ref float64, strict bool) ([]contrastCells, error) {
	axisOrder, axes := gridAxes(groups)
	var out []contrastCells
	for i, c := range cs {
		cells, err := contrastCellsOne(c, i, groups, axisOrder, axes, taus, ref)
		var miss *missingCellError
		if err != nil && (strict || !errors.As(err, &miss)) {
			return nil, err
		}
		out = append(out, cells...)
	}
	return out, nil
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
// family: the rows of the same slice, metric and K. A contrast whose cells have no common seed
// yet (a folder still filling up) has no rows.
func contrasts(rs Settings, recs []*Run, s *summary) ([]contrastRow, error) {
	cells, err := contrastCellsOf(rs.Contrasts, s.groups, s.taus, s.refTau(), false)
	if err != nil {
		return nil, err
	}
	sv := newSeedValues(recs)
	var rows []contrastRow
	for _, c := range cells {
		for _, k := range sv.order {
			if k.Tau != s.refTau() {
				continue
			}
			ka, kb := k, k
			ka.Tau, kb.Tau = c.tauA, c.tauB
			d, ok := sv.paired(c.a, ka, c.b, kb)
			if !ok {
				continue
			}
			k.Tau = 0
			rows = append(rows, contrastRow{contrastCells: c, coord: k, difference: d, pAdjusted: d.P})
		}
	}
	if rs.Adjust == AdjustHolm {
		family := map[coord][]int{}
		for i, r := range rows {
			family[r.coord] = append(family[r.coord], i)
		}
		for _, idx := range family {
			p := make([]float64, len(idx))
			for j, i := range idx {
				p[j] = rows[i].P
			}
			for j, q := range metrics.Holm(p) {
				rows[idx[j]].pAdjusted = q
			}
		}
	}
	return rows, nil
}

// significant reports whether the row's (adjusted) p-value is below 0.05.
func (r contrastRow) significant() bool { return r.pAdjusted < 0.05 }

// writeContrastsCSV writes contrasts.csv: one row per contrast × by value × slice × metric × K,
// with the two cells' group ids and logit-adjustment strengths, the number of common seeds, the
// mean paired difference a − b, its 95% Student-t interval and p-value (empty for one seed) and
// the p-value adjusted by report.adjust.
func writeContrastsCSV(w io.Writer, rows []contrastRow, adjust Adjust) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"contrast", "by", "by_value", "a", "a_la_tau", "b", "b_la_tau", "slice", "metric", "k",
		"seeds", "mean", "lo", "hi", "p", "p_adjusted", "adjust"}); err != nil {
		return err
	}
	num := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', 8, 64)
	}
	for _, r := range rows {
		row := []string{r.name, r.by, r.byValue, r.a, strconv.FormatFloat(r.tauA, 'g', -1, 64), r.b,
			strconv.FormatFloat(r.tauB, 'g', -1, 64), r.Slice.String(), string(r.Metric), strconv.Itoa(r.K),
			strconv.Itoa(r.N), num(r.Mean), num(r.Lo), num(r.Hi), num(r.P), num(r.pAdjusted), string(adjust)}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeContrastsSummary appends the contrasts to summary.md: which cells each compares, then per
// metric and K a table of a − b by slice, mean ± half-width of the 95% interval, marked where
// the (adjusted) p-value is below 0.05.
func writeContrastsSummary(w io.Writer, s *summary, rows []contrastRow, rs Settings) {
	if len(rs.Contrasts) == 0 {
		return
	}
	mark := "✱ marks a p-value of the paired t-test below 0.05 (its interval excludes 0)"
	if rs.Adjust == AdjustHolm {
		mark = "✱ marks a p-value below 0.05 after Holm's adjustment for multiple comparisons over the family of every " +
			"contrast at the same slice, metric and K (report.adjust = \"holm\"; the intervals are not adjusted)"
	}
	fmt.Fprintf(w, "\n## Contrasts\n\nA − B, paired by seed: mean over the seeds both ran ± half-width of the 95%% Student-t "+
		"interval of the differences (no interval for one common seed); %s. The same numbers, with the p-values, are in contrasts.csv.\n\n", mark)
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
		fmt.Fprintf(w, "- %s: A = %s, B = %s\n", l.label(), sideLabel(s, l.a, l.tauA), sideLabel(s, l.b, l.tauB))
	}
	header, rule := sliceColumns()
	for _, m := range s.metricNames() {
		for _, k := range s.ks[m] {
			fmt.Fprintf(w, "\n### %s, contrasts\n\n| A − B | seeds |%s\n|---|---|%s\n", metricLabel(m, k), header, rule)
			for _, l := range lines {
				n := 0
				var texts []string
				for _, sl := range metrics.Slices() {
					i := slices.IndexFunc(rows, func(r contrastRow) bool {
						return r.contrastCells == l && r.coord == coord{0, sl, m, k}
					})
					if i < 0 {
						texts = append(texts, "–")
						continue
					}
					r := rows[i]
					n = max(n, r.N)
					texts = append(texts, r.difference.text(r.significant()))
				}
				fmt.Fprintf(w, "| %s | %d | %s |\n", l.label(), n, strings.Join(texts, " | "))
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
		if !slices.Contains(lines, r.contrastCells) {
			lines = append(lines, r.contrastCells)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	slicesShown := presentSlices(s)
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
					return r.contrastCells == l && r.coord == coord{0, sl, metrics.MetricRecall, k}
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
