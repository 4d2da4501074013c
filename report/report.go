package report

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot"

	"github.com/samplingbias/workbench/internal/atomicfile"
	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/plots"
)

// coord names one number of a run's results: the strength τ of post-hoc logit adjustment, the
// slice of test pairs, the metric and its K, and the test set.
type coord struct {
	Tau    float64
	Slice  metrics.Slice
	Metric metrics.Metric
	K      int
	Test   metrics.TestSet
}

// coordOf is the coordinate of r.
func coordOf(r metrics.Result) coord { return coord{r.Tau, r.Slice, r.Metric, r.K, r.Test} }

// sliceColumns is the header row of a table with a column per slice of sls, after the first
// columns (e.g. "| run |"), and its rule row after the first columns' (e.g. "|---|").
func sliceColumns(sls []metrics.Slice) (header, rule string) {
	names := make([]string, len(sls))
	for i, sl := range sls {
		names[i] = sl.String()
	}
	return " " + strings.Join(names, " | ") + " |", strings.Repeat("---|", len(names))
}

// slices lists the slices the report shows, in the order of its tables and figures: those of
// head, torso, tail and all that have results, then the popularity bins that have results (bin1
// the most frequent) when slices.method cuts the items into bins.
func (s *summary) slices() []metrics.Slice {
	var out []metrics.Slice
	for _, sl := range metrics.Slices() {
		if _, ok := s.sizes[sl]; ok {
			out = append(out, sl)
		}
	}
	for i := range len(s.bins) {
		if _, ok := s.sizes[metrics.SliceBin(i)]; ok {
			out = append(out, metrics.SliceBin(i))
		}
	}
	return out
}

// tableSlices lists the columns of summary.md's tables by slice: head, torso, tail and all
// (an empty slice's column shows "–"), or, with popularity bins, all and the bins that have
// results.
func (s *summary) tableSlices() []metrics.Slice {
	if len(s.bins) == 0 {
		return metrics.Slices()
	}
	return s.slices()
}

// aggKey names one aggregated number: a group (cell without seed) and one result coordinate.
type aggKey struct {
	Group string
	coord
}

// agg is a metric across the seeds of a group: mean and 95% Student-t interval. With a single
// seed there is no interval across seeds (Lo = Hi = Mean). Boot holds each run's own bootstrap
// 95% interval over test pairs, in run order (the run's value at both ends when evaluation made
// none).
type agg struct {
	Mean, Lo, Hi float64
	N            int
	Boot         [][2]float64
}

// seedResults gathers the results of one key (a cell's coordinate, a baseline's) from every run,
// keys in the order they first appear; aggregate makes them aggs across seeds.
type seedResults[K comparable] struct {
	keys []K
	runs map[K][]metrics.Result
}

func newSeedResults[K comparable]() *seedResults[K] {
	return &seedResults[K]{runs: map[K][]metrics.Result{}}
}

// add adds a run's result r of key k.
func (sr *seedResults[K]) add(k K, r metrics.Result) {
	if _, ok := sr.runs[k]; !ok {
		sr.keys = append(sr.keys, k)
	}
	sr.runs[k] = append(sr.runs[k], r)
}

// aggregate is every key's mean and 95% Student-t interval across the runs' values, with each
// run's bootstrap interval over test pairs.
func (sr *seedResults[K]) aggregate() map[K]agg {
	out := make(map[K]agg, len(sr.keys))
	for _, k := range sr.keys {
		rs := sr.runs[k]
		values, boot := make([]float64, len(rs)), make([][2]float64, len(rs))
		for i, r := range rs {
			values[i], boot[i] = r.Value, [2]float64{r.Lo, r.Hi}
		}
		mean, lo, hi := metrics.MeanCI(values)
		out[k] = agg{mean, lo, hi, len(rs), boot}
	}
	return out
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
	data   []string // the lines on the data split (dataLines)
	base   baselines
	corpus int                // items in the corpus (of the first run)
	bins   []metrics.BinShare // the popularity bins (of the first run), if slices.method makes bins
	enc    figureEncoding     // how the figures draw the groups (encode)
	// metricsOf holds the metrics each group's runs evaluated.
	metricsOf map[string]map[metrics.Metric]bool
	family    map[string]string       // group -> its loss family (Run.LossFamily)
	selection map[string][]*Selection // group -> its runs' selections on validation
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

// summarize aggregates recs across seeds; labels (plots.labels) name the groups.
func summarize(recs []*Run, labels map[string]string) *summary {
	s := &summary{ks: map[metrics.Metric][]int{}, sizes: map[metrics.Slice][2]int{}, seeds: map[string]int{},
		metricsOf: map[string]map[metrics.Metric]bool{}, family: map[string]string{}}
	results := newSeedResults[aggKey]()
	seenTau := map[float64]bool{}
	seenK := map[metrics.Metric]map[int]bool{}
	for _, rec := range recs {
		if s.seeds[rec.Group] == 0 {
			s.groups = append(s.groups, rec.Group)
		}
		s.seeds[rec.Group]++
		s.family[rec.Group] = rec.LossFamily
		for _, n := range rec.SliceNotes {
			if !slices.Contains(s.notes, n) {
				s.notes = append(s.notes, n)
			}
		}
		if s.metricsOf[rec.Group] == nil {
			s.metricsOf[rec.Group] = map[metrics.Metric]bool{}
		}
		for _, r := range rec.Results {
			s.metricsOf[rec.Group][r.Metric] = true
			slice, metric := r.Slice, r.Metric
			results.add(aggKey{rec.Group, coordOf(r)}, r)
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
			if _, ok := s.sizes[slice]; !ok && !isCalibration(metric) { // a calibration's pairs are not test pairs
				s.sizes[slice] = [2]int{r.Items, r.Pairs}
			}
		}
	}
	s.notes = append(s.notes, auditNotes(recs)...)
	s.data = dataLines(recs)
	s.selection = selectionCells(recs)
	s.values = results.aggregate()
	s.lb = newLabeler(labels, s.groups)
	s.label = s.lb.label
	s.notes = append(s.notes, s.beyondUnit(results.keys)...)
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

// tableKey names a table of summary.md: a metric at K on a test set, under post-hoc logit
// adjustment τ.
type tableKey struct {
	Tau    float64
	Metric metrics.Metric
	K      int
	Test   metrics.TestSet
}

// name is the table's title, e.g. "Recall@10", "Recall@10, debiased test set" or "Recall@10,
// post-hoc logit adjustment τ_LA = 0.5".
func (t tableKey) name() string {
	name := metricLabel(t.Metric, t.K)
	if t.Test != metrics.TestNatural {
		name += ", " + t.Test.String() + " test set"
	}
	if t.Tau != 0 {
		name += fmt.Sprintf(", post-hoc logit adjustment τ_LA = %g", t.Tau)
	}
	return name
}

// tableKeys lists the tables (test set, metric and K, τ unset) for which want holds, in the order
// of summary.md: the full ranking's metrics, popularity-stratified recall, the debiased test
// set's metrics, the sampled evaluation's, then the exposure and propensity-scored metrics.
func (s *summary) tableKeys(want func(coord) bool) []tableKey {
	type family struct {
		test    metrics.TestSet
		metrics []metrics.Metric
	}
	var out []tableKey
	for _, f := range []family{
		{metrics.TestNatural, metrics.Metrics()},
		{metrics.TestNatural, []metrics.Metric{metrics.MetricStratRecall}},
		{metrics.TestDebiased, metrics.Metrics()},
		{metrics.TestNatural, metrics.SampledMetrics()},
		{metrics.TestNatural, append(metrics.ExposureMetrics(), metrics.MetricPSP, metrics.MetricPSRecall)},
	} {
		for _, m := range f.metrics {
			for _, k := range s.ks[m] {
				if want(coord{0, metrics.SliceAll, m, k, f.test}) {
					out = append(out, tableKey{0, m, k, f.test})
				}
			}
		}
	}
	return out
}

// perSlice reports whether metric m is reported by slice (not exposure, nor propensity-scored).
func perSlice(m metrics.Metric) bool {
	return !slices.Contains(metrics.ExposureMetrics(), m) && m != metrics.MetricPSP && m != metrics.MetricPSRecall
}

// eachTable calls table for every table of summary.md's metrics by slice, in order: the ranking
// as trained (refTau) first, every metric of the full ranking and K, and with all, then the
// other per-slice families of tableKeys; then every other τ of post-hoc logit adjustment in
// increasing order, for the full ranking's metrics only (metrics.csv has the others).
func (s *summary) eachTable(all bool, table func(tk tableKey)) {
	ref := s.refTau()
	taus := []float64{ref}
	for _, tau := range s.taus {
		if tau != ref {
			taus = append(taus, tau)
		}
	}
	for i, tau := range taus {
		for _, tk := range s.tableKeys(func(c coord) bool {
			if c.Test == metrics.TestNatural && slices.Contains(metrics.Metrics(), c.Metric) {
				return true
			}
			return all && i == 0 && perSlice(c.Metric) && s.hasTable(c)
		}) {
			tk.Tau = tau
			table(tk)
		}
	}
}

// hasTable reports whether some group has a value of c's metric, K and test set (any slice, τ).
func (s *summary) hasTable(c coord) bool {
	for k := range s.values {
		if k.Metric == c.Metric && k.K == c.K && k.Test == c.Test {
			return true
		}
	}
	return false
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

// has reports whether some run of group evaluated metric m.
func (s *summary) has(group string, m metrics.Metric) bool {
	return s.metricsOf[group][m]
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

// Write writes the report of in's runs in the directory dir, which must exist: metrics.csv, differences.csv and
// contrasts.csv (each only when the settings ask for it; a stale one is removed), summary.md and
// the figures, every file atomically, then ReportFiles; the figures an earlier report wrote and
// this one does not are removed (see ReportFiles), so that the folder holds the figures of these
// settings only. A figure drawn otherwise than asked (see plots.Fit) gets a warning line on warn.
func Write(dir string, in Input, warn io.Writer) error {
	if err := in.check(); err != nil {
		return err
	}
	recs := in.Runs
	if err := atomicfile.Write(filepath.Join(dir, "metrics.csv"), func(w io.Writer) error { return writeMetricsCSV(w, recs, in.Axes) }); err != nil {
		return err
	}
	s := summarize(recs, in.Plots.Labels)
	if n := len(in.Missing); n > 0 {
		s.notes = append([]string{fmt.Sprintf("part of the grid: %d of its %d runs have not finished and are left out (%s)",
			n, n+len(recs), strings.Join(in.Missing, ", "))}, s.notes...)
	}
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
	ag := sampledAgreement(s)
	if err := writeOrRemove(filepath.Join(dir, "sampled_vs_full.csv"), len(ag) > 0, func(w io.Writer) error {
		return writeAgreementCSV(w, ag)
	}); err != nil {
		return err
	}
	title := fmt.Sprintf("%s: %s", filepath.Base(dir), recs[0].Dataset)
	if err := atomicfile.Write(filepath.Join(dir, "summary.md"), func(w io.Writer) error {
		if err := writeSummary(w, title, s, d, rows, in.Settings, ag); err != nil {
			return err
		}
		writeCalibrationSummary(w, s, recs, rows)
		return nil
	}); err != nil {
		return err
	}
	figs := slices.Concat(retrievalFigures(in, s), contrastFigures(s, rows), agreementFigures(s), exposureFigures(s), calibrationFigures(s, recs))
	written, err := drawFigures(dir, in.Plots, figs, warn, true)
	if err != nil {
		return err
	}
	before, err := readOwned(dir)
	if err != nil {
		return err
	}
	mine := make([]owned, len(written))
	files := []string{"config.toml", "metrics.csv", "summary.md", "differences.csv", "contrasts.csv", "sampled_vs_full.csv"}
	for i, path := range written {
		if mine[i], err = ownedFile(dir, filepath.Base(path)); err != nil {
			return err
		}
		files = append(files, mine[i].name)
	}
	if in.Settings.WriteMLflow {
		tree := owned{name: MLflowDir + "/"}
		ours := slices.Contains(before, tree)
		if !ours {
			if _, err := os.Lstat(filepath.Join(dir, MLflowDir)); err == nil {
				return fmt.Errorf("report.mlflow: %s was not written by a report of the workbench; move it away, or set report.mlflow = false",
					filepath.Join(dir, MLflowDir))
			}
			// Listed before it is written, so that a process killed while writing it leaves
			// a tree the next report knows as its own.
			if err := writeOwned(dir, append(slices.Clone(before), tree)); err != nil {
				return err
			}
		}
		if err := writeMLflow(dir, in, files); err != nil {
			return err
		}
		mine = append(mine, tree)
	}
	return keepOwned(dir, before, mine)
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
	if _, err := contrastCellsOf(in.Settings.Contrasts, groups, s.taus, s.refTau(), true, s.has); err != nil {
		return err
	}
	if len(groups) > plots.DistinctSeries {
		fmt.Fprintf(warn, "warning: %d cells: in the figures, cells more than %d apart share colour and pattern; "+
			"summary.md and metrics.csv tell them apart\n", len(groups), plots.DistinctSeries)
	}
	_, err = drawFigures("", in.Plots, slices.Concat(retrievalFigures(in, s), agreementFigures(s), exposureFigures(s), calibrationFigures(s, in.Runs)), warn, false)
	return err
}

// figure is one figure of the report: its file name without extension, and how to build it.
type figure struct {
	name  string
	build func(plots.Settings) (*plot.Plot, error)
}

// drawFigures builds every figure at ps through plots.Fit, which draws a figure that does not
// fit as asked another way, says so in a warning line on warn (one line for the figures with the
// same note), and, if save, saves it in the directory out. It returns the files written.
func drawFigures(out string, ps plots.Settings, figs []figure, warn io.Writer, save bool) ([]string, error) {
	var written, notes []string
	named := map[string][]string{} // the figures of each note
	defer func() {
		for _, note := range notes {
			names := named[note]
			what := names[0] + " figure"
			if len(names) > 1 {
				what = strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " figures"
			}
			fmt.Fprintf(warn, "warning: %s: %s\n", what, note)
		}
	}()
	for _, f := range figs {
		p, used, note, err := plots.Fit(f.build, ps)
		if err != nil {
			return written, fmt.Errorf("%s figure: %w", f.name, err)
		}
		if note != "" {
			if named[note] == nil {
				notes = append(notes, note)
			}
			named[note] = append(named[note], f.name)
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
