package report

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	isetting "github.com/samplingbias/workbench/internal/setting"
	"github.com/samplingbias/workbench/metrics"
)

// Settings is the [report] section: which cells summary.md, differences.csv and contrasts.csv
// compare. Its zero value compares nothing.
type Settings struct {
	// Baseline picks the baseline cells by some of their axis values, written as in a run id:
	// "variant=full", or "variant=full,temperature=0.07". Every other cell is compared with the
	// baseline cell that has its values on the remaining axes (a cell without one is not
	// compared): the mean over the seeds both ran of the difference cell − baseline, with its
	// 95% Student-t interval. Default "": no baseline.
	Baseline string `toml:"baseline"`
	// AllPairs compares every pair of cells in the same way, each cell against every cell
	// listed before it in the grid. Default false.
	AllPairs bool `toml:"all_pairs"`
	// Contrasts are the named contrasts ([[report.contrast]]) written to contrasts.csv,
	// summary.md and contrasts_at_K.png. Default none.
	Contrasts []Contrast `toml:"contrast"`
	// Adjust is how the contrasts' p-values are adjusted for multiple comparisons, over each
	// family: the contrast rows of the same contrast family (Contrast.Family), slice, test set,
	// metric and K. "none", "holm" (Holm 1979: the family-wise error rate) or "bh" (Benjamini &
	// Hochberg 1995: the false discovery rate). Default DefaultAdjust.
	Adjust Adjust `toml:"adjust"`
	// WriteMLflow writes, beside metrics.csv, an MLflow tracking tree (mlruns/, MLflow's file-store
	// layout): the grid as an experiment, every run with its settings as params, its results
	// and training loss as metrics and its config.toml and curve.csv as artifacts, under a
	// parent run holding summary.md, metrics.csv and the figures; `mlflow ui` in the folder shows
	// it. Default false: the tree is thousands of small files (a metric per slice, metric, K and
	// τ_LA of every run) whose artifact locations are absolute paths, as MLflow writes them, so
	// that a folder copied or committed elsewhere carries paths of this machine; ask for it where
	// it is looked at.
	WriteMLflow bool `toml:"mlflow"`
}

// Adjust is a multiple-comparison adjustment of the contrasts, Settings.Adjust.
type Adjust string

// Adjustments (see Settings.Adjust).
const (
	AdjustNone Adjust = "none"
	AdjustHolm Adjust = "holm"
	AdjustBH   Adjust = "bh"
)

// DefaultAdjust is the adjustment of Settings' zero value: none.
const DefaultAdjust = AdjustNone

var adjustments = []Adjust{AdjustNone, AdjustHolm, AdjustBH}

// UnmarshalText sets a from its name; an unknown name is an error that lists the allowed ones.
func (a *Adjust) UnmarshalText(b []byte) error { return isetting.Unmarshal(a, b, adjustments) }

// Resolve checks the syntax of s and fills its defaults; Baseline and the contrasts' cells are
// checked against the grid by checkReport, once the grid is planned.
func (s *Settings) Resolve() error {
	if _, err := parseCellSpec(s.Baseline); err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	isetting.Default(&s.Adjust, DefaultAdjust)
	if err := isetting.OneOf("adjust", s.Adjust, adjustments); err != nil {
		return err
	}
	if s.Adjust == AdjustBH && len(s.Contrasts) == 1 && s.Contrasts[0].By == "" {
		return fmt.Errorf("adjust: \"bh\" with a single contrast (and no by axis) adjusts nothing: every family holds one p-value; declare more contrasts, or leave adjust out")
	}
	for i := range s.Contrasts {
		if err := s.Contrasts[i].resolve(); err != nil {
			return fmt.Errorf("contrast[%d]: %w", i, err)
		}
		for j := range i {
			if s.Contrasts[j].Name == s.Contrasts[i].Name {
				return fmt.Errorf("contrast[%d]: name: %q is also the name of contrast[%d]", i, s.Contrasts[i].Name, j)
			}
		}
	}
	return nil
}

// parseCellSpec reads "key=value,key=value" into its pairs, in order; "" is no pair. A value may
// be empty, as in a run id whose cell leaves a zipped key unset ("logq_probability=").
func parseCellSpec(spec string) ([][2]string, error) {
	if spec == "" {
		return nil, nil
	}
	var out [][2]string
	seen := map[string]bool{}
	for _, part := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q: want axis=value pairs separated by commas, as in a run id (e.g. \"variant=full\")", spec)
		}
		if seen[k] {
			return nil, fmt.Errorf("%q: axis %s given twice", spec, k)
		}
		seen[k] = true
		out = append(out, [2]string{k, v})
	}
	return out, nil
}

// groupSettings reads a group id ("variant=plain,temperature=0.05") into a map from axis name
// to value.
func groupSettings(g string) map[string]string {
	m := map[string]string{}
	if g == "" {
		return m
	}
	for _, p := range strings.Split(g, ",") {
		k, v, _ := strings.Cut(p, "=")
		m[k] = v
	}
	return m
}

// comparison is one cell compared with one reference cell.
type comparison struct {
	Cell, Base string // group ids
}

// comparisons lists the pairs of groups (in grid order) that rs asks for: each group against
// its baseline, then, with AllPairs, every group against every earlier one; and the groups that
// have no baseline of the same values on the other axes. It is an error if the baseline matches
// no cell, or, when groups are the whole grid (strict), if it names an axis the grid does not
// have. Among the finished runs only, an axis that none of them shows has the empty value in
// all of them (run ids leave out empty values).
func comparisons(rs Settings, groups []string, strict bool) (out []comparison, alone []string, err error) {
	spec, err := parseCellSpec(rs.Baseline)
	if err != nil {
		return nil, nil, fmt.Errorf("report.baseline: %w", err)
	}
	if len(spec) > 0 {
		// Run ids leave out empty values, so an axis is a key of any group, and a key a group
		// lacks has the empty value.
		axes := map[string]string{}
		for _, g := range groups {
			maps.Copy(axes, groupSettings(g))
		}
		for _, kv := range spec {
			if _, ok := axes[kv[0]]; !ok && strict {
				return nil, nil, fmt.Errorf("report.baseline: %q is not an axis of the grid (its axes, as in run ids: %s)",
					kv[0], strings.Join(slices.Sorted(maps.Keys(axes)), ", "))
			}
		}
		isBase := func(g string) bool {
			m := groupSettings(g)
			for _, kv := range spec {
				if m[kv[0]] != kv[1] {
					return false
				}
			}
			return true
		}
		var bases []string
		for _, g := range groups {
			if isBase(g) {
				bases = append(bases, g)
			}
		}
		if len(bases) == 0 {
			return nil, nil, fmt.Errorf("report.baseline: %q %w", rs.Baseline, errNoBaseline)
		}
		for _, g := range groups {
			if isBase(g) {
				continue
			}
			m := groupSettings(g)
			found := false
			for _, b := range bases {
				bm := groupSettings(b)
				same := true
				for k := range axes {
					if !specHas(spec, k) && bm[k] != m[k] {
						same = false
						break
					}
				}
				if same {
					out = append(out, comparison{Cell: g, Base: b})
					found = true
					break
				}
			}
			if !found {
				alone = append(alone, g)
			}
		}
	}
	if rs.AllPairs {
		for i, g := range groups {
			for _, b := range groups[:i] {
				if c := (comparison{Cell: g, Base: b}); !slices.Contains(out, c) { // not already against its baseline
					out = append(out, c)
				}
			}
		}
	}
	return out, alone, nil
}

func specHas(spec [][2]string, key string) bool {
	for _, kv := range spec {
		if kv[0] == key {
			return true
		}
	}
	return false
}

// diffKey names one paired difference: a comparison and one result coordinate.
type diffKey struct {
	comparison
	coord
}

// difference is the mean over common seeds of cell − baseline with its 95% Student-t interval
// (Lo = Hi = NaN for a single common seed) and the two-sided p-value of the paired t-test (NaN
// for a single common seed).
type difference struct {
	Mean, Lo, Hi float64
	N            int
	P            float64
	// D are the per-seed differences, of the seeds Seeds.
	D     []float64
	Seeds []int64
}

// text writes d for a summary table: the mean difference ± the half-width of its interval (none
// for a single seed), followed by ✱ when marked.
func (d difference) text(marked bool) string {
	text := decimals(d.Mean, 4, true)
	if d.N >= 2 {
		text += " ± " + decimals(d.Hi-d.Mean, 4, false)
	}
	if marked {
		text += " ✱"
	}
	return text
}

// excludesZero reports whether the interval of d lies entirely on one side of zero. An interval
// of no width (every seed differing by the same amount, metrics.Equal) says nothing and
// excludes nothing.
func (d difference) excludesZero() bool {
	return d.N >= 2 && !metrics.Equal(d.D) && (d.Lo > 0 || d.Hi < 0)
}

// differences are the paired differences of a report: the comparisons, and for each the
// differences at every coordinate (keys, in order).
type differences struct {
	cmps   []comparison
	alone  []string // groups without a baseline
	values map[diffKey]difference
	keys   []diffKey
}

// errNoBaseline is the error of a baseline that names no cell of the groups.
var errNoBaseline = errors.New("matches no cell of the grid")

// compare computes the paired differences that rs asks for between the groups of recs, the
// finished runs. The baseline was checked against the whole grid before training (checkReport);
// when none of its runs has finished here (-only, a shard's report, a folder still filling up),
// no cell can be compared yet and every group is reported as not compared.
func compare(rs Settings, recs []*Run, groups []string) (*differences, error) {
	cmps, alone, err := comparisons(rs, groups, false)
	if errors.Is(err, errNoBaseline) {
		cmps, alone, err = nil, groups, nil
	}
	if err != nil {
		return nil, err
	}
	values, keys := pairedDifferences(recs, cmps)
	return &differences{cmps, alone, values, keys}, nil
}

// pairedDifferences computes, for every comparison and every (τ, slice, metric, K) that both
// cells report, the differences paired by seed over the seeds both cells ran. A coordinate with
// no common seed is left out.
func pairedDifferences(recs []*Run, cmps []comparison) (map[diffKey]difference, []diffKey) {
	sv := newSeedValues(recs)
	out := map[diffKey]difference{}
	var keys []diffKey
	for _, c := range cmps {
		for _, k := range sv.order {
			if d, ok := sv.paired(c.Cell, k, c.Base, k); ok {
				dk := diffKey{c, k}
				out[dk] = d
				keys = append(keys, dk)
			}
		}
	}
	return out, keys
}

// seedValues are the results of finished runs by group, seed and coordinate, with the groups'
// seeds in record order and the coordinates in first-seen order.
type seedValues struct {
	values map[string]map[int64]map[coord]float64
	seeds  map[string][]int64
	order  []coord
}

func newSeedValues(recs []*Run) *seedValues {
	sv := &seedValues{values: map[string]map[int64]map[coord]float64{}, seeds: map[string][]int64{}}
	seen := map[coord]bool{}
	for _, rec := range recs {
		if sv.values[rec.Group] == nil {
			sv.values[rec.Group] = map[int64]map[coord]float64{}
		}
		vals := map[coord]float64{}
		for _, r := range rec.Results {
			k := coordOf(r)
			vals[k] = r.Value
			if !seen[k] {
				seen[k] = true
				sv.order = append(sv.order, k)
			}
		}
		sv.values[rec.Group][rec.Seed] = vals
		sv.seeds[rec.Group] = append(sv.seeds[rec.Group], rec.Seed)
	}
	return sv
}

// paired returns the mean over the seeds both groups ran of a's value at ka − b's value at kb,
// with its 95% Student-t interval (NaN for one seed), the t-test's two-sided p-value (NaN for
// one seed) and the per-seed differences; false when no seed has both values.
func (sv *seedValues) paired(a string, ka coord, b string, kb coord) (difference, bool) {
	var d []float64
	var seeds []int64
	for _, seed := range sv.seeds[a] {
		x, okA := sv.values[a][seed][ka]
		y, okB := sv.values[b][seed][kb]
		if okA && okB {
			d = append(d, x-y)
			seeds = append(seeds, seed)
		}
	}
	if len(d) == 0 {
		return difference{}, false
	}
	mean, lo, hi := metrics.MeanCI(d)
	if len(d) < 2 {
		lo, hi = math.NaN(), math.NaN()
	}
	return difference{Mean: mean, Lo: lo, Hi: hi, N: len(d), P: metrics.TTestP(d), D: d, Seeds: seeds}, true
}

// writeDifferencesCSV writes differences.csv: one row per comparison × τ × slice (× test set, a
// column present only when the debiased test set was evaluated) × metric × K,
// with the group ids of the cell and its baseline, the number of common seeds, the mean paired
// difference cell − baseline, its 95% Student-t interval (empty for one seed) and whether that
// interval excludes zero.
func writeDifferencesCSV(w io.Writer, d *differences) error {
	test := slices.ContainsFunc(d.keys, func(k diffKey) bool { return k.Test != metrics.TestNatural })
	cw := csv.NewWriter(w)
	header := []string{"cell", "baseline", "la_tau", "slice"}
	if test {
		header = append(header, "test")
	}
	if err := cw.Write(append(header, "metric", "k", "seeds", "mean", "lo", "hi", "excludes_zero")); err != nil {
		return err
	}
	num := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', 8, 64)
	}
	for _, k := range d.keys {
		v := d.values[k]
		row := []string{k.Cell, k.Base, strconv.FormatFloat(k.Tau, 'g', -1, 64), k.Slice.String()}
		if test {
			row = append(row, k.Test.String())
		}
		row = append(row, string(k.Metric), strconv.Itoa(k.K), strconv.Itoa(v.N), num(v.Mean), num(v.Lo), num(v.Hi), strconv.FormatBool(v.excludesZero()))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeDifferencesSummary appends the paired differences to summary.md: per τ, metric and K, a
// table of cell − baseline by slice, mean ± half-width of the 95% interval, marked where the
// interval excludes zero.
func writeDifferencesSummary(w io.Writer, s *summary, d *differences, labels func(string) string) {
	if d == nil || len(d.cmps) == 0 && len(d.alone) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Paired differences\n\nCell − baseline, paired by seed: mean over the seeds both ran ± half-width of the "+
		"95%% Student-t interval of the differences (no interval for one common seed); "+
		"✱ marks an interval that excludes 0. The same numbers are in differences.csv.\n")
	if len(d.alone) > 0 {
		names := make([]string, len(d.alone))
		for i, g := range d.alone {
			names[i] = labels(g)
		}
		fmt.Fprintf(w, "\nNot compared, for want of a baseline cell with the same other settings: %s.\n", strings.Join(names, "; "))
	}
	if len(d.cmps) == 0 {
		return
	}
	header, rule := sliceColumns(s.tableSlices())
	s.eachTable(false, func(tk tableKey) {
		fmt.Fprintf(w, "\n### %s, differences\n\n| cell − baseline | seeds |%s\n|---|---|%s\n", tk.name(), header, rule)
		for _, c := range d.cmps {
			n := 0
			var cells []string
			for _, sl := range s.tableSlices() {
				v, ok := d.values[diffKey{c, coord{tk.Tau, sl, tk.Metric, tk.K, tk.Test}}]
				if !ok {
					cells = append(cells, "–")
					continue
				}
				n = max(n, v.N)
				cells = append(cells, v.text(v.excludesZero()))
			}
			if n == 0 {
				continue
			}
			fmt.Fprintf(w, "| %s − %s | %d | %s |\n", mdCell(labels(c.Cell)), mdCell(labels(c.Base)), n, strings.Join(cells, " | "))
		}
	})
}
