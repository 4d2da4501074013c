package report

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

	"github.com/samplingbias/workbench/internal/atomicfile"
	isetting "github.com/samplingbias/workbench/internal/setting"
	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/plots"
)

// coord names one number of a run's results: the strength τ of post-hoc logit adjustment, the
// slice of test pairs, the metric and its K.
type coord struct {
	Tau    float64
	Slice  metrics.Slice
	Metric metrics.Metric
	K      int
}

// coordOf is the coordinate of r.
func coordOf(r metrics.Result) coord { return coord{r.Tau, r.Slice, r.Metric, r.K} }

// sliceColumns is the header row of a table with a column per slice, after the first columns
// (e.g. "| run |"), and its rule row after the first columns' (e.g. "|---|").
func sliceColumns() (header, rule string) {
	names := make([]string, len(metrics.Slices()))
	for i, sl := range metrics.Slices() {
		names[i] = sl.String()
	}
	return " " + strings.Join(names, " | ") + " |", strings.Repeat("---|", len(names))
}

// aggKey names one aggregated number: a group (cell without seed) and one result coordinate.
type aggKey struct {
	Group string
	coord
}

// agg is a metric across the seeds of a group: mean and 95% Student-t interval. With a single
// seed there is no interval across seeds (Lo = Hi = Mean); BootLo and BootHi then hold the run's
// own bootstrap 95% interval over test pairs (equal to Mean when evaluation made none).
type agg struct {
	Mean, Lo, Hi   float64
	N              int
	BootLo, BootHi float64
}

// summary aggregates finished runs across seeds.
type summary struct {
	groups []string // in grid order
	taus   []float64
	ks     map[metrics.Metric][]int // metric -> Ks in order
	values map[aggKey]agg
	sizes  map[metrics.Slice][2]int // slice -> items, test pairs (of the first run)
	seeds  map[string]int           // group -> number of finished seeds
	label  func(group string) string
	lb     labeler  // the labeler behind label
	notes  []string // the runs' notices of empty slices, each once
	base   baselines
	corpus int                // items in the corpus (of the first run)
	bins   []metrics.BinShare // the popularity bins (of the first run), if slices.method makes bins
	enc    figureEncoding     // how the figures draw the groups (encode)
}

// encode chooses how the figures draw the groups (newEncoding with the [plots] settings).
func (s *summary) encode(ps plots.Settings) error {
	var err error
	s.enc, err = newEncoding(s.groups, s.lb, ps)
	return err
}

// key is the figures' legend by factor for a figure of n series: nil (one entry per series)
// unless the groups are encoded by factor and the figure has more than one series.
func (s *summary) key(n int) *plots.Key {
	if n < 2 {
		return nil
	}
	return s.enc.key
}

// auditNotes are the summary's lines of the runs' sampler audits (sampler.audit = true), one per
// group: the means over its seeds of the total-variation distance between the declared and the
// drawn copies of each item, of its sampling-noise floor and of the head's worst relative error
// (samplers.AuditSummary).
func auditNotes(recs []*Run) []string {
	var groups []string
	sums := map[string][4]float64{}
	head := map[string]int{}
	for _, rec := range recs {
		a := rec.Audit
		if a == nil {
			continue
		}
		if _, ok := sums[rec.Group]; !ok {
			groups = append(groups, rec.Group)
			head[rec.Group] = a.Head
		}
		v := sums[rec.Group]
		sums[rec.Group] = [4]float64{v[0] + a.TV, v[1] + a.Floor, v[2] + a.HeadWorst, v[3] + 1}
	}
	notes := make([]string, len(groups))
	for i, g := range groups {
		v, h := sums[g], head[g]
		if g == "" {
			g = "the runs"
		}
		n := v[3]
		notes[i] = fmt.Sprintf("sampler audit of %s (sampler_audit.csv, mean of %d seeds): total variation %.4f between the copies "+
			"the loss's q declares and those drawn, against %.4f from sampling noise alone (i.i.d. draws from the declared law; "+
			"%s); worst relative error among the %d most frequent items %.4f",
			g, int(n), v[0]/n, v[1]/n, auditVerdict(v[0]/n, v[1]/n), h, v[2]/n)
	}
	return notes
}

// auditMismatch is the ratio of an audit's TV to its noise floor above which the summary says that
// the draws do not follow the declared law. Under the declared law the TV's mean is the floor and
// its relative spread about 0.75/√M′ over M′ drawn items (each item's absolute deviation has a
// relative spread near 0.75): 1.5 floors is more than 3 spreads for M′ ≥ 20 and many more for
// the shipped corpora's thousands of items.
const auditMismatch = 1.5

// auditVerdict says whether a TV of tv against a floor of floor is sampling noise.
func auditVerdict(tv, floor float64) string {
	if !(floor > 0) {
		return "no draws"
	}
	if tv > auditMismatch*floor {
		return fmt.Sprintf("%.1f times the floor: the draws do not follow the declared law", tv/floor)
	}
	return fmt.Sprintf("%.2f times the floor: within sampling noise", tv/floor)
}

// summarize aggregates recs across seeds; labels (plots.labels) name the groups.
func summarize(recs []*Run, labels map[string]string) *summary {
	s := &summary{ks: map[metrics.Metric][]int{}, values: map[aggKey]agg{}, sizes: map[metrics.Slice][2]int{}, seeds: map[string]int{}}
	samples := map[aggKey][]float64{}
	boot := map[aggKey][2]float64{} // the first run's bootstrap interval
	var keys []aggKey
	seenTau := map[float64]bool{}
	seenK := map[metrics.Metric]map[int]bool{}
	for _, rec := range recs {
		if s.seeds[rec.Group] == 0 {
			s.groups = append(s.groups, rec.Group)
		}
		s.seeds[rec.Group]++
		for _, n := range rec.SliceNotes {
			if !slices.Contains(s.notes, n) {
				s.notes = append(s.notes, n)
			}
		}
		for _, r := range rec.Results {
			slice, metric := r.Slice, r.Metric
			k := aggKey{rec.Group, coordOf(r)}
			if _, ok := samples[k]; !ok {
				keys = append(keys, k)
				boot[k] = [2]float64{r.Lo, r.Hi}
			}
			samples[k] = append(samples[k], r.Value)
			if !seenTau[r.Tau] {
				seenTau[r.Tau] = true
				s.taus = append(s.taus, r.Tau)
			}
			if seenK[metric] == nil {
				seenK[metric] = map[int]bool{}
			}
			if !seenK[metric][r.K] {
				seenK[metric][r.K] = true
				s.ks[metric] = append(s.ks[metric], r.K)
			}
			if _, ok := s.sizes[slice]; !ok {
				s.sizes[slice] = [2]int{r.Items, r.Pairs}
			}
		}
	}
	s.notes = append(s.notes, auditNotes(recs)...)
	for _, k := range keys {
		mean, lo, hi := metrics.MeanCI(samples[k])
		s.values[k] = agg{mean, lo, hi, len(samples[k]), boot[k][0], boot[k][1]}
	}
	s.lb = newLabeler(labels, s.groups)
	s.label = s.lb.label
	s.base = collectBaselines(recs)
	if len(recs) > 0 {
		s.corpus, s.bins = recs[0].Items, recs[0].Bins
	}
	sort.Float64s(s.taus)
	for m := range s.ks {
		sort.Ints(s.ks[m])
	}
	return s
}

// eachTable calls table for every table of summary.md, in order: the ranking as trained (refTau)
// first, then every other τ of post-hoc logit adjustment in increasing order; within each, every
// metric and K, with the table's name (e.g. "Recall@10, post-hoc logit adjustment τ_LA = 0.5").
func (s *summary) eachTable(table func(tau float64, metric metrics.Metric, k int, name string)) {
	ref := s.refTau()
	taus := []float64{ref}
	for _, tau := range s.taus {
		if tau != ref {
			taus = append(taus, tau)
		}
	}
	for _, tau := range taus {
		for _, m := range s.metricNames() {
			for _, k := range s.ks[m] {
				name := metricLabel(m, k)
				if tau != 0 {
					name += fmt.Sprintf(", post-hoc logit adjustment τ_LA = %g", tau)
				}
				table(tau, m, k, name)
			}
		}
	}
}

// refTau is the post-hoc logit-adjustment strength of the figures that show one: 0 (the ranking
// as trained) if it was evaluated, else the smallest in magnitude.
func (s *summary) refTau() float64 {
	ref := math.Inf(1)
	for _, tau := range s.taus {
		if math.Abs(tau) < math.Abs(ref) {
			ref = tau
		}
	}
	return ref
}

// refMetric names Recall@K at refTau on a figure's axis: "Recall@10", or "Recall@10 (τ_LA = 0.5)"
// when only logit-adjusted rankings were evaluated.
func (s *summary) refMetric(k int) string {
	if tau := s.refTau(); tau != 0 {
		return fmt.Sprintf("%s (τ_LA = %g)", metricLabel(metrics.MetricRecall, k), tau)
	}
	return metricLabel(metrics.MetricRecall, k)
}

// metricNames lists the metrics present, in the order of metrics.Metrics.
func (s *summary) metricNames() []metrics.Metric {
	var out []metrics.Metric
	for _, m := range metrics.Metrics() {
		if len(s.ks[m]) > 0 {
			out = append(out, m)
		}
	}
	return out
}

// writeMetricsCSV writes the long-format table: one row per run × slice × metric × K (× τ of
// post-hoc logit adjustment, a column present only when some τ is not 0), plus one column per
// ablation axis named by its key.
func writeMetricsCSV(w io.Writer, recs []*Run, axes []string) error {
	withTau := false
	for _, rec := range recs {
		for _, r := range rec.Results {
			if r.Tau != 0 {
				withTau = true
			}
		}
	}
	cw := csv.NewWriter(w)
	header := []string{"run", "seed", "slice", "metric", "k"}
	if withTau {
		header = append(header, "la_tau")
	}
	header = append(header, "value")
	header = append(header, axes...)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, rec := range recs {
		for _, r := range rec.Results {
			row := []string{rec.ID, strconv.FormatInt(rec.Seed, 10), r.Slice.String(), string(r.Metric), strconv.Itoa(r.K)}
			if withTau {
				row = append(row, strconv.FormatFloat(r.Tau, 'g', -1, 64))
			}
			row = append(row, strconv.FormatFloat(r.Value, 'g', 8, 64))
			for _, a := range axes {
				row = append(row, rec.Axes[a])
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	if err := writeBaselineRows(cw, recs, withTau, len(axes)); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// writeSummary writes summary.md: per group and slice, mean ± 95% CI half-width across seeds for
// every metric and K, the best mean of each column in bold, and the slice sizes.
func writeSummary(w io.Writer, title string, s *summary, d *differences) error {
	fmt.Fprintf(w, "# %s\n\n", title)
	fmt.Fprintf(w, "Mean ± half-width of the 95%% Student-t confidence interval across seeds; the best mean of each column is in **bold**. "+
		"A row of a single seed has no interval across seeds: it shows [lo, hi]ᵇ, the run's 95%% bootstrap percentile interval "+
		"over test pairs (the spread of evaluation, not of training), or no interval when evaluation made none.\n\n")
	fmt.Fprintf(w, "Slice sizes (items in the corpus, test pairs):")
	for _, sl := range metrics.Slices() {
		if sz, ok := s.sizes[sl]; ok {
			fmt.Fprintf(w, " %s %d / %d;", sl, sz[0], sz[1])
		}
	}
	for _, n := range s.notes {
		fmt.Fprintf(w, "\n\nNote: %s.", n)
	}
	fmt.Fprintf(w, "\n\nSeeds per row:")
	for _, g := range s.groups {
		fmt.Fprintf(w, " %s %d;", s.label(g), s.seeds[g])
	}
	fmt.Fprintln(w)
	header, rule := sliceColumns()
	s.eachTable(func(tau float64, m metrics.Metric, k int, name string) {
		fmt.Fprintf(w, "\n## %s\n\n| run |%s\n|---|%s\n", name, header, rule)
		best := map[metrics.Slice]float64{}
		for _, sl := range metrics.Slices() {
			best[sl] = math.Inf(-1)
			for _, g := range s.groups {
				if v, ok := s.values[aggKey{g, coord{tau, sl, m, k}}]; ok && v.Mean > best[sl] {
					best[sl] = v.Mean
				}
			}
		}
		for _, g := range s.groups {
			fmt.Fprintf(w, "| %s |", s.label(g))
			for _, sl := range metrics.Slices() {
				v, ok := s.values[aggKey{g, coord{tau, sl, m, k}}]
				if !ok {
					fmt.Fprint(w, " – |")
					continue
				}
				cellText := v.text()
				if v.Mean == best[sl] {
					cellText = "**" + cellText + "**"
				}
				fmt.Fprintf(w, " %s |", cellText)
			}
			fmt.Fprintln(w)
		}
	})
	writeBaselinesSummary(w, s)
	writeBinsSummary(w, s)
	writeDifferencesSummary(w, s, d, s.label)
	return nil
}

// text writes v for a summary table: mean ± half-width across seeds, or, for a single seed, the
// bootstrap interval over test pairs marked ᵇ, or the mean alone.
func (v agg) text() string {
	switch {
	case v.N >= 2:
		return fmt.Sprintf("%.4f ± %.4f", v.Mean, v.Hi-v.Mean)
	case v.BootLo < v.BootHi:
		return fmt.Sprintf("%.4f [%.4f, %.4f]ᵇ", v.Mean, v.BootLo, v.BootHi)
	}
	return fmt.Sprintf("%.4f", v.Mean)
}

// metricLabel names a metric at K as in papers: Recall@10, NDCG@10, MRR.
func metricLabel(metric metrics.Metric, k int) string {
	switch metric {
	case metrics.MetricRecall:
		return fmt.Sprintf("Recall@%d", k)
	case metrics.MetricNDCG:
		return fmt.Sprintf("NDCG@%d", k)
	case metrics.MetricMRR:
		return "MRR"
	}
	return fmt.Sprintf("%s@%d", metric, k)
}

// Write writes the report of in's runs in the directory dir, which must exist: metrics.csv, differences.csv and
// contrasts.csv (each only when the settings ask for it; a stale one is removed), summary.md and
// the figures, every file atomically. A figure drawn otherwise than asked (see plots.Fit) gets a
// warning line on warn.
func Write(dir string, in Input, warn io.Writer) error {
	if err := in.check(); err != nil {
		return err
	}
	recs := in.Runs
	if err := atomicfile.Write(filepath.Join(dir, "metrics.csv"), func(w io.Writer) error { return writeMetricsCSV(w, recs, in.Axes) }); err != nil {
		return err
	}
	s := summarize(recs, in.Plots.Labels)
	if err := s.encode(in.Plots); err != nil {
		return err
	}
	d, err := compare(in.Settings, recs, s.groups)
	if err != nil {
		return err
	}
	if err := writeOrRemove(filepath.Join(dir, "differences.csv"), len(d.cmps) > 0, func(w io.Writer) error {
		return writeDifferencesCSV(w, d)
	}); err != nil {
		return err
	}
	rows, err := contrasts(in.Settings, recs, s)
	if err != nil {
		return err
	}
	if err := writeOrRemove(filepath.Join(dir, "contrasts.csv"), len(in.Settings.Contrasts) > 0, func(w io.Writer) error {
		return writeContrastsCSV(w, rows, in.Settings.Adjust)
	}); err != nil {
		return err
	}
	title := fmt.Sprintf("%s: %s", filepath.Base(dir), recs[0].Dataset)
	if err := atomicfile.Write(filepath.Join(dir, "summary.md"), func(w io.Writer) error {
		if err := writeSummary(w, title, s, d); err != nil {
			return err
		}
		writeContrastsSummary(w, s, rows, in.Settings)
		return nil
	}); err != nil {
		return err
	}
	_, err = drawFigures(dir, in.Plots, append(retrievalFigures(in, s), contrastFigures(s, rows)...), warn, true)
	return err
}

// writeOrRemove writes the file at path with write when want, and otherwise removes it: a file
// of an earlier report would no longer match summary.md.
func writeOrRemove(path string, want bool, write func(io.Writer) error) error {
	if want {
		return atomicfile.Write(path, write)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Check checks, before anything trains, what the report of a grid will need, from placeholder
// runs of every planned cell and seed (Runs with the grid's results at zero): the baseline,
// the contrasts and the plots.labels keys against the grid, and the layout of every figure. A
// figure that will not fit as asked is not an error (the report draws it another way): it is
// announced now by a warning line on warn, as is a baseline that some cells have none of.
func Check(in Input, warn io.Writer) error {
	if len(in.Runs) == 0 {
		return nil
	}
	if err := in.check(); err != nil {
		return err
	}
	var groups []string
	for _, r := range in.Runs {
		if !slices.Contains(groups, r.Group) {
			groups = append(groups, r.Group)
		}
	}
	_, alone, err := comparisons(in.Settings, groups, true)
	if err != nil {
		return err
	}
	if len(alone) > 0 {
		fmt.Fprintf(warn, "warning: report.baseline %q: no baseline cell has the other settings of %s; they are not compared\n",
			in.Settings.Baseline, strings.Join(alone, "; "))
	}
	if err := checkLabels(in.Plots.Labels, groups); err != nil {
		return err
	}
	s := summarize(in.Runs, in.Plots.Labels)
	if err := s.encode(in.Plots); err != nil {
		return err
	}
	if _, err := contrastCellsOf(in.Settings.Contrasts, groups, s.taus, s.refTau(), true); err != nil {
		return err
	}
	if len(groups) > plots.DistinctSeries {
		fmt.Fprintf(warn, "warning: %d cells: in the figures, cells more than %d apart share colour and pattern; "+
			"summary.md and metrics.csv tell them apart\n", len(groups), plots.DistinctSeries)
	}
	_, err = drawFigures("", in.Plots, retrievalFigures(in, s), warn, false)
	return err
}

// figure is one figure of the report: its file name without extension, and how to build it.
type figure struct {
	name  string
	build func(plots.Settings) (*plot.Plot, error)
}

// drawFigures builds every figure at ps through plots.Fit, which draws a figure that does not
// fit as asked another way, says so in a warning line on warn, and, if save, saves it in the
// directory out. It returns the files written.
func drawFigures(out string, ps plots.Settings, figs []figure, warn io.Writer, save bool) ([]string, error) {
	var written []string
	for _, f := range figs {
		p, used, note, err := plots.Fit(f.build, ps)
		if err != nil {
			return written, fmt.Errorf("%s figure: %w", f.name, err)
		}
		if note != "" {
			fmt.Fprintf(warn, "warning: %s figure: %s\n", f.name, note)
		}
		if !save {
			continue
		}
		files, err := plots.Save(p, filepath.Join(out, f.name), used)
		written = append(written, files...)
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// retrievalFigures lists, at τ = 0 (see refTau): for every K, Recall@K by slice with one bar per group; the
// training loss curves; for every numeric axis swept over at least two values, Recall@K of all
// test pairs against that axis, one line per combination of the other axes; and, for every K,
// the head-against-tail trade-off of Recall@K across the logit-adjustment strengths.
func retrievalFigures(in Input, s *summary) []figure {
	var figs []figure
	for _, k := range s.ks[metrics.MetricRecall] {
		figs = append(figs, figure{fmt.Sprintf("%s_at_%d", metrics.MetricRecall, k), func(ps plots.Settings) (*plot.Plot, error) {
			return recallBars(s, k, ps)
		}})
	}
	if lf, ok := lossFigure(in.Runs, s); ok {
		figs = append(figs, lf)
	}
	figs = append(figs, sweepFigures(in, s)...)
	figs = append(figs, popularityFigures(s)...)
	if slices.Contains(presentSlices(s), metrics.SliceHead) && slices.Contains(presentSlices(s), metrics.SliceTail) {
		for _, k := range s.ks[metrics.MetricRecall] {
			figs = append(figs, figure{fmt.Sprintf("tradeoff_at_%d", k), func(ps plots.Settings) (*plot.Plot, error) {
				return tradeoff(s, k, ps)
			}})
		}
	}
	return figs
}

// tradeoff draws head against tail Recall@K: one point per group as trained (τ = 0, else the
// smallest τ evaluated) with its 95% intervals across seeds in both directions, joined by a
// line, in increasing τ, to its points under the other post-hoc logit-adjustment strengths τ of
// eval, the largest tagged.
func tradeoff(s *summary, k int, ps plots.Settings) (*plot.Plot, error) {
	series := tradeoffSeries(s, k)
	if len(series) == 0 {
		return nil, fmt.Errorf("no group has both head and tail Recall@%d", k)
	}
	l := plots.Labels{X: "Tail " + metricLabel(metrics.MetricRecall, k), Y: "Head " + metricLabel(metrics.MetricRecall, k), Key: s.key(len(series))}
	if n := len(s.taus); n > 1 {
		// One explanation for every curve, rather than a tag at each curve's end that collides
		// with the others' at a dozen cells.
		l.Title = fmt.Sprintf("Each curve: post-hoc logit adjustment τ_LA = %g → %g; large marker: as trained", s.taus[0], s.taus[n-1])
		if !slices.Contains(s.taus, 0) {
			l.Title = fmt.Sprintf("Each curve: post-hoc logit adjustment τ_LA = %g → %g; large marker: τ_LA = %g", s.taus[0], s.taus[n-1], s.refTau())
		}
	}
	return plots.Tradeoff(series, l, ps)
}

// tradeoffSeries returns the series of the trade-off figure of Recall@K.
func tradeoffSeries(s *summary, k int) []plots.TradeoffSeries {
	var series []plots.TradeoffSeries
	for _, g := range s.groups {
		ts := plots.TradeoffSeries{Name: s.label(g), Style: s.enc.style(g)}
		intervals := true
		var taus []float64
		for _, tau := range s.taus { // in increasing order
			head, okH := s.values[aggKey{g, coord{tau, metrics.SliceHead, metrics.MetricRecall, k}}]
			tail, okT := s.values[aggKey{g, coord{tau, metrics.SliceTail, metrics.MetricRecall, k}}]
			if !okH || !okT {
				continue
			}
			ts.X, ts.Y = append(ts.X, tail.Mean), append(ts.Y, head.Mean)
			ts.XLo, ts.XHi = append(ts.XLo, max(tail.Lo, 0)), append(ts.XHi, min(tail.Hi, 1))
			ts.YLo, ts.YHi = append(ts.YLo, max(head.Lo, 0)), append(ts.YHi, min(head.Hi, 1))
			if tau == s.refTau() {
				ts.Origin = len(taus)
			}
			taus = append(taus, tau)
			intervals = intervals && head.N >= 2 && tail.N >= 2
		}
		if len(ts.X) == 0 {
			continue
		}
		if !intervals { // a single seed: no interval across seeds
			ts.XLo, ts.XHi, ts.YLo, ts.YHi = nil, nil, nil, nil
		}
		series = append(series, ts)
	}
	if len(series) == 1 {
		series[0].Name = ""
	}
	return series
}

// recallBars draws Recall@K by slice, one bar per group, with the 95% interval across seeds.
func recallBars(s *summary, k int, ps plots.Settings) (*plot.Plot, error) {
	var points []plots.BarPoint
	for _, g := range s.groups {
		for _, sl := range metrics.Slices() {
			v, ok := s.values[aggKey{g, coord{s.refTau(), sl, metrics.MetricRecall, k}}]
			if !ok {
				continue
			}
			// Every metric lies in [0, 1]; so does the interval drawn.
			p := plots.BarPoint{Series: s.label(g), Group: sl.String(), Value: v.Mean, Lo: max(v.Lo, 0), Hi: min(v.Hi, 1)}
			if v.N < 2 {
				p.Lo, p.Hi = math.NaN(), math.NaN()
			}
			points = append(points, p)
		}
	}
	var groups []string
	for _, sl := range presentSlices(s) {
		groups = append(groups, sl.String())
	}
	data, err := plots.NewBarData(groups, points)
	if err != nil {
		return nil, err
	}
	byLabel := map[string]string{}
	for _, g := range s.groups {
		byLabel[s.label(g)] = g
	}
	for i := range data.Series {
		data.Series[i].Style = s.enc.style(byLabel[data.Series[i].Name])
	}
	data.Refs = s.base.refs(presentSlices(s), k)
	return plots.GroupedBars(data, plots.Labels{Y: s.refMetric(k), X: "Positive item's popularity slice", Key: s.key(len(data.Series))}, ps)
}

// presentSlices lists the slices that have results, in figure order.
func presentSlices(s *summary) []metrics.Slice {
	var out []metrics.Slice
	for _, sl := range metrics.Slices() {
		if _, ok := s.sizes[sl]; ok {
			out = append(out, sl)
		}
	}
	return out
}

// lossFigure draws the mean training loss across seeds of every group against the step, in one
// panel per loss family (Run.LossFamily), whose scales differ, in the order of their first
// group; false if no run has a curve.
func lossFigure(recs []*Run, s *summary) (figure, bool) {
	panels, n := lossPanels(recs, s)
	if n == 0 {
		return figure{}, false
	}
	l := plots.Labels{X: "Training step", Y: "Training loss", Key: s.key(n)}
	o := plots.LineOptions{Markers: len(panels[0].Series[0].X) < 3}
	return figure{"loss_curves", func(ps plots.Settings) (*plot.Plot, error) {
		// The loss is not a metric in [0, 1]: its axis always fits the curves.
		ps.YRange = plots.YRangeAuto
		return linePanels(panels, l, o, ps)
	}}, true
}

// lossPanels are the panels of lossFigure, one per loss family, and the number of their series.
// A group keeps its style (its factors', or its position among all groups) in its panel.
func lossPanels(recs []*Run, s *summary) ([]plots.LinePanel, int) {
	var panels []plots.LinePanel
	n := 0
	for _, g := range s.groups {
		var curves []Curve
		family := ""
		for _, rec := range recs {
			if rec.Group == g && len(rec.Curve) > 0 {
				curves = append(curves, rec.Curve)
				family = rec.LossFamily
			}
		}
		if len(curves) == 0 {
			continue
		}
		steps := len(curves[0])
		for _, c := range curves {
			steps = min(steps, len(c))
		}
		st := s.enc.style(g)
		if st == nil { // the group's position among all panels' series, not within its panel
			st = &plots.Style{Color: n, Shape: n}
		}
		ls := plots.LineSeries{Name: s.label(g), X: make([]float64, steps), Y: make([]float64, steps), Style: st}
		vals := make([]float64, len(curves))
		for i := range steps {
			for j, c := range curves {
				vals[j] = c[i].Loss
			}
			ls.X[i] = float64(curves[0][i].Step)
			ls.Y[i], _, _ = metrics.MeanCI(vals)
		}
		i := slices.IndexFunc(panels, func(p plots.LinePanel) bool { return p.Title == family })
		if i < 0 {
			i = len(panels)
			panels = append(panels, plots.LinePanel{Title: family})
		}
		panels[i].Series = append(panels[i].Series, ls)
		n++
	}
	return panels, n
}

// linePanels draws panels as plots.LinePanels, or a single panel as plots.Lines, untitled (a
// single family or slice needs no name) and without a legend for a single unnamed series.
func linePanels(panels []plots.LinePanel, l plots.Labels, o plots.LineOptions, ps plots.Settings) (*plot.Plot, error) {
	if len(panels) > 1 {
		return plots.LinePanels(panels, l, o, ps)
	}
	series := panels[0].Series
	if len(series) == 1 {
		series = []plots.LineSeries{series[0]}
		series[0].Name = ""
	}
	return plots.Lines(series, l, o, ps)
}

// sweepFigures draws Recall@K against every numeric axis that takes at least two values within a
// combination of the other axes, e.g. the temperature: one line per combination of the other
// axes, with the 95% band across seeds, in one panel per popularity slice (head, torso, tail and
// all test pairs, those evaluated), on the x scale of plots.x_scale.
func sweepFigures(in Input, s *summary) []figure {
	groupAxes := map[string]map[string]string{}
	for _, rec := range in.Runs {
		groupAxes[rec.Group] = rec.Axes
	}
	keys := in.Axes
	type point struct {
		x     float64
		group string
	}
	var figs []figure
	for _, key := range keys {
		lines := map[string][]point{}
		var order []string
		numeric := true
		for _, g := range s.groups {
			axes := groupAxes[g]
			x, err := strconv.ParseFloat(axes[key], 64)
			if err != nil {
				numeric = false
				break
			}
			var rest []string
			for _, other := range keys {
				if other != key {
					rest = append(rest, isetting.Leaf(other)+"="+axes[other])
				}
			}
			name := strings.Join(rest, ",")
			if _, ok := lines[name]; !ok {
				order = append(order, name)
			}
			lines[name] = append(lines[name], point{x, g})
		}
		if !numeric {
			continue
		}
		for _, pts := range lines {
			sort.Slice(pts, func(i, j int) bool { return pts[i].x < pts[j].x })
		}
		label := newLabeler(in.Plots.Labels, order).label
		for _, k := range s.ks[metrics.MetricRecall] {
			var panels []plots.LinePanel
			for _, sl := range presentSlices(s) {
				p := plots.LinePanel{Title: sliceTitle(sl)}
				for i, name := range order {
					// Every line keeps its style in every panel, whichever lines a panel lacks.
					ls := plots.LineSeries{Name: label(name), Style: &plots.Style{Color: i, Shape: i}}
					for _, pt := range lines[name] {
						v, ok := s.values[aggKey{pt.group, coord{s.refTau(), sl, metrics.MetricRecall, k}}]
						if !ok {
							continue
						}
						ls.X, ls.Y = append(ls.X, pt.x), append(ls.Y, v.Mean)
						ls.Lo, ls.Hi = append(ls.Lo, max(v.Lo, 0)), append(ls.Hi, min(v.Hi, 1))
					}
					if len(ls.X) >= 2 {
						p.Series = append(p.Series, ls)
					}
				}
				if len(p.Series) > 0 {
					panels = append(panels, p)
				}
			}
			if len(panels) == 0 {
				break
			}
			l := plots.Labels{X: axisLabel(key), Y: s.refMetric(k)}
			if len(panels) == 1 {
				l.Y += ", " + panels[0].Title
			}
			figs = append(figs, figure{fmt.Sprintf("%s_at_%d_vs_%s", metrics.MetricRecall, k, isetting.Leaf(key)), func(ps plots.Settings) (*plot.Plot, error) {
				return linePanels(panels, l, plots.LineOptions{Markers: true, LogX: ps.XScale == plots.XScaleLog}, ps)
			}})
		}
	}
	return figs
}

// sliceTitle names a slice in a panel's title: its name, "all pairs" for all test pairs.
func sliceTitle(sl metrics.Slice) string {
	if sl == metrics.SliceAll {
		return "all pairs"
	}
	return sl.String()
}

// popularityFigures lists, when slices.method makes popularity bins, recall_by_popularity_at_K
// for every K of Recall (see popularitySeries), on a log x axis.
func popularityFigures(s *summary) []figure {
	if len(s.bins) == 0 {
		return nil
	}
	var figs []figure
	for _, k := range s.ks[metrics.MetricRecall] {
		series := popularitySeries(s, k)
		if len(series) == 0 {
			continue
		}
		l := plots.Labels{X: "Training count of the popularity bin's items (log scale)", Y: s.refMetric(k), Key: s.key(len(series))}
		figs = append(figs, figure{fmt.Sprintf("recall_by_popularity_at_%d", k), func(ps plots.Settings) (*plot.Plot, error) {
			return plots.Lines(series, l, plots.LineOptions{LogX: true, Markers: true}, ps)
		}})
	}
	return figs
}

// popularitySeries are the lines of recall_by_popularity_at_K: per group, Recall@K of every
// popularity bin placed at the geometric mean of its items' least and greatest training counts
// (the rarest bin first), with the 95% band across seeds when every point has one.
func popularitySeries(s *summary, k int) []plots.LineSeries {
	var series []plots.LineSeries
	for _, g := range s.groups {
		ls := plots.LineSeries{Name: s.label(g), Style: s.enc.style(g)}
		band := true
		for b := len(s.bins) - 1; b >= 0; b-- { // the rarest bin first: increasing counts
			bin := s.bins[b]
			v, ok := s.values[aggKey{g, coord{s.refTau(), metrics.SliceBin(b), metrics.MetricRecall, k}}]
			if !ok || bin.Items == 0 {
				continue
			}
			x := math.Sqrt(math.Max(float64(bin.MinCount), 0.5) * math.Max(float64(bin.MaxCount), 0.5))
			if n := len(ls.X); n > 0 && x <= ls.X[n-1] {
				continue // bins of equal counts cannot be told apart on the axis
			}
			ls.X, ls.Y = append(ls.X, x), append(ls.Y, v.Mean)
			ls.Lo, ls.Hi = append(ls.Lo, max(v.Lo, 0)), append(ls.Hi, min(v.Hi, 1))
			band = band && v.N >= 2
		}
		if len(ls.X) == 0 {
			continue
		}
		if !band {
			ls.Lo, ls.Hi = nil, nil
		}
		series = append(series, ls)
	}
	if len(series) == 1 {
		series[0].Name = ""
	}
	return series
}
