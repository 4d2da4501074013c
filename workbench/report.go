package workbench

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/models"
	"github.com/samplingbias/workbench/plots"
)

// sliceOrder is the order slices appear in tables and figures.
var sliceOrder = [...]string{"head", "torso", "tail", "all"}

// aggKey names one aggregated number: a group (cell without seed) and one result coordinate.
type aggKey struct {
	Group  string
	Tau    float64
	Slice  string
	Metric string
	K      int
}

// agg is a metric across the seeds of a group: mean and 95% Student-t interval.
type agg struct {
	Mean, Lo, Hi float64
	N            int
}

// summary aggregates finished runs across seeds.
type summary struct {
	groups []string // in grid order
	taus   []float64
	ks     map[string][]int // metric -> Ks in order
	values map[aggKey]agg
	sizes  map[string][2]int // slice -> items, test pairs (of the first run)
	seeds  map[string]int    // group -> number of finished seeds
}

func summarize(recs []*runRecord) *summary {
	s := &summary{ks: map[string][]int{}, values: map[aggKey]agg{}, sizes: map[string][2]int{}, seeds: map[string]int{}}
	samples := map[aggKey][]float64{}
	var keys []aggKey
	seenTau := map[float64]bool{}
	seenK := map[string]map[int]bool{}
	for _, rec := range recs {
		if s.seeds[rec.Group] == 0 {
			s.groups = append(s.groups, rec.Group)
		}
		s.seeds[rec.Group]++
		for _, r := range rec.Results {
			slice, metric := r.Slice.String(), string(r.Metric)
			k := aggKey{rec.Group, r.Tau, slice, metric, r.K}
			if _, ok := samples[k]; !ok {
				keys = append(keys, k)
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
	for _, k := range keys {
		mean, lo, hi := metrics.MeanCI(samples[k])
		s.values[k] = agg{mean, lo, hi, len(samples[k])}
	}
	sort.Float64s(s.taus)
	for m := range s.ks {
		sort.Ints(s.ks[m])
	}
	return s
}

// metricNames lists the metrics present, recall first.
func (s *summary) metricNames() []string {
	var out []string
	for _, m := range []string{"recall", "ndcg", "mrr"} {
		if len(s.ks[m]) > 0 {
			out = append(out, m)
		}
	}
	return out
}

// writeMetricsCSV writes the long-format table: one row per run × slice × metric × K (× τ of
// post-hoc logit adjustment, a column present only when some τ is not 0), plus one column per
// ablation axis named by its key.
func writeMetricsCSV(w io.Writer, recs []*runRecord, axes []string) error {
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
		header = append(header, "tau")
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
	cw.Flush()
	return cw.Error()
}

// writeSummary writes summary.md: per group and slice, mean ± 95% CI half-width across seeds for
// every metric and K, the best mean of each column in bold, and the slice sizes.
func writeSummary(w io.Writer, title string, s *summary) error {
	fmt.Fprintf(w, "# %s\n\n", title)
	fmt.Fprintf(w, "Mean ± half-width of the 95%% Student-t confidence interval across seeds; the best mean of each column is in **bold**.\n\n")
	fmt.Fprintf(w, "Slice sizes (items in the corpus, test pairs):")
	for _, sl := range sliceOrder {
		if sz, ok := s.sizes[sl]; ok {
			fmt.Fprintf(w, " %s %d / %d;", sl, sz[0], sz[1])
		}
	}
	fmt.Fprintf(w, "\n\nSeeds per row:")
	for _, g := range s.groups {
		fmt.Fprintf(w, " %s %d;", groupLabel(g), s.seeds[g])
	}
	fmt.Fprintln(w)
	for _, tau := range s.taus {
		for _, m := range s.metricNames() {
			for _, k := range s.ks[m] {
				name := metricLabel(m, k)
				if tau != 0 {
					name += fmt.Sprintf(", post-hoc logit adjustment τ = %g", tau)
				}
				fmt.Fprintf(w, "\n## %s\n\n| run | %s |\n|---|%s\n", name, strings.Join(sliceOrder[:], " | "), strings.Repeat("---|", len(sliceOrder)))
				best := map[string]float64{}
				for _, sl := range sliceOrder {
					best[sl] = math.Inf(-1)
					for _, g := range s.groups {
						if v, ok := s.values[aggKey{g, tau, sl, m, k}]; ok && v.Mean > best[sl] {
							best[sl] = v.Mean
						}
					}
				}
				for _, g := range s.groups {
					fmt.Fprintf(w, "| %s |", groupLabel(g))
					for _, sl := range sliceOrder {
						v, ok := s.values[aggKey{g, tau, sl, m, k}]
						if !ok {
							fmt.Fprint(w, " – |")
							continue
						}
						cellText := fmt.Sprintf("%.4f ± %.4f", v.Mean, v.Hi-v.Mean)
						if v.Mean == best[sl] {
							cellText = "**" + cellText + "**"
						}
						fmt.Fprintf(w, " %s |", cellText)
					}
					fmt.Fprintln(w)
				}
			}
		}
	}
	return nil
}

// metricLabel names a metric at K as in papers: Recall@10, NDCG@10, MRR.
func metricLabel(metric string, k int) string {
	switch metric {
	case "recall":
		return fmt.Sprintf("Recall@%d", k)
	case "ndcg":
		return fmt.Sprintf("NDCG@%d", k)
	case "mrr":
		return "MRR"
	}
	return fmt.Sprintf("%s@%d", metric, k)
}

// axisLabel names an axis key on a figure: its last component, the temperature as in the papers.
func axisLabel(key string) string {
	if last(key) == "temperature" {
		return "Temperature τ"
	}
	return last(key)
}

// groupLabel is the name of a group in tables and legends: "all runs" for a grid without axes,
// otherwise its values, text values alone and numbers as key=value ("plain, τ=0.05" for
// "variant=plain,temperature=0.05"), leaving out the keys left empty in this cell.
func groupLabel(g string) string {
	if g == "" {
		return "all runs"
	}
	var parts []string
	for _, p := range strings.Split(g, ",") {
		k, v, _ := strings.Cut(p, "=")
		switch _, err := strconv.ParseFloat(v, 64); {
		case v == "":
		case err != nil:
			parts = append(parts, v)
		case k == "temperature":
			parts = append(parts, "τ="+v)
		default:
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

// writeRetrievalOutputs writes metrics.csv, summary.md and the figures of the finished runs.
func writeRetrievalOutputs(cfg *Config, recs []*runRecord) error {
	axes := axisKeyList(cfg.Ablation)
	if err := writeAtomic(filepath.Join(cfg.Out, "metrics.csv"), func(w io.Writer) error { return writeMetricsCSV(w, recs, axes) }); err != nil {
		return err
	}
	s := summarize(recs)
	title := fmt.Sprintf("%s: %s", filepath.Base(cfg.Out), recs[0].Data.Name)
	if err := writeAtomic(filepath.Join(cfg.Out, "summary.md"), func(w io.Writer) error { return writeSummary(w, title, s) }); err != nil {
		return err
	}
	return retrievalFigures(cfg, recs, s)
}

// axisKeyList lists the keys of the ablation axes in order.
func axisKeyList(axes []Axis) []string {
	var keys []string
	for _, a := range axes {
		if a.Key != "" {
			keys = append(keys, a.Key)
		}
		keys = append(keys, a.Keys...)
	}
	return keys
}

// retrievalFigures draws, at τ = 0: for every K, Recall@K by slice with one bar per group; the
// training loss curves; and, for every numeric axis swept over at least two values, Recall@K of
// all test pairs against that axis, one line per combination of the other axes.
func retrievalFigures(cfg *Config, recs []*runRecord, s *summary) error {
	groups := make([]string, len(s.groups))
	for i, g := range s.groups {
		groups[i] = groupLabel(g)
	}
	for _, k := range s.ks["recall"] {
		var points []plots.BarPoint
		for i, g := range s.groups {
			for _, sl := range sliceOrder {
				v, ok := s.values[aggKey{g, 0, sl, "recall", k}]
				if !ok {
					continue
				}
				// Every metric lies in [0, 1]; so does the interval drawn.
				p := plots.BarPoint{Series: groups[i], Group: sl, Value: v.Mean, Lo: max(v.Lo, 0), Hi: min(v.Hi, 1)}
				if v.N < 2 {
					p.Lo, p.Hi = math.NaN(), math.NaN()
				}
				points = append(points, p)
			}
		}
		present := presentSlices(s)
		data, err := plots.NewBarData(present, points)
		if err != nil {
			return fmt.Errorf("recall@%d figure: %w", k, err)
		}
		p, err := plots.GroupedBars(data, plots.Labels{Y: metricLabel("recall", k), X: "Positive item's popularity slice"}, cfg.Plots)
		if err != nil {
			return fmt.Errorf("recall@%d figure: %w", k, err)
		}
		if _, err := plots.Save(p, filepath.Join(cfg.Out, fmt.Sprintf("recall_at_%d", k)), cfg.Plots); err != nil {
			return err
		}
	}
	if err := lossFigure(cfg, recs, s); err != nil {
		return err
	}
	return sweepFigures(cfg, recs, s)
}

// presentSlices lists the slices that have results, in figure order.
func presentSlices(s *summary) []string {
	var out []string
	for _, sl := range sliceOrder {
		if _, ok := s.sizes[sl]; ok {
			out = append(out, sl)
		}
	}
	return out
}

// lossFigure draws the mean training loss across seeds of every group against the step.
func lossFigure(cfg *Config, recs []*runRecord, s *summary) error {
	var series []plots.LineSeries
	for _, g := range s.groups {
		var curves []models.Curve
		for _, rec := range recs {
			if rec.Group == g && len(rec.Curve) > 0 {
				curves = append(curves, rec.Curve)
			}
		}
		if len(curves) == 0 {
			continue
		}
		n := len(curves[0])
		for _, c := range curves {
			n = min(n, len(c))
		}
		ls := plots.LineSeries{Name: groupLabel(g), X: make([]float64, n), Y: make([]float64, n)}
		vals := make([]float64, len(curves))
		for i := 0; i < n; i++ {
			for j, c := range curves {
				vals[j] = c[i].Loss
			}
			ls.X[i] = float64(curves[0][i].Step)
			ls.Y[i], _, _ = metrics.MeanCI(vals)
		}
		series = append(series, ls)
	}
	if len(series) == 0 {
		return nil
	}
	if len(series) == 1 {
		series[0].Name = ""
	}
	p, err := plots.Lines(series, plots.Labels{X: "Training step", Y: "Training loss"}, plots.LineOptions{Markers: len(series[0].X) < 3}, cfg.Plots)
	if err != nil {
		return fmt.Errorf("loss figure: %w", err)
	}
	_, err = plots.Save(p, filepath.Join(cfg.Out, "loss_curves"), cfg.Plots)
	return err
}

// sweepFigures draws Recall@K (all test pairs) against every numeric axis that takes at least
// two values within a combination of the other axes, e.g. the temperature: one line per
// combination of the other axes, with the 95% band across seeds.
func sweepFigures(cfg *Config, recs []*runRecord, s *summary) error {
	groupAxes := map[string]map[string]string{}
	for _, rec := range recs {
		groupAxes[rec.Group] = rec.Axes
	}
	keys := axisKeyList(cfg.Ablation)
	type point struct {
		x     float64
		group string
	}
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
					rest = append(rest, last(other)+"="+axes[other])
				}
			}
			name := groupLabel(strings.Join(rest, ","))
			if _, ok := lines[name]; !ok {
				order = append(order, name)
			}
			lines[name] = append(lines[name], point{x, g})
		}
		if !numeric {
			continue
		}
		for _, k := range s.ks["recall"] {
			var series []plots.LineSeries
			for _, name := range order {
				pts := lines[name]
				if len(pts) < 2 {
					continue
				}
				sort.Slice(pts, func(i, j int) bool { return pts[i].x < pts[j].x })
				ls := plots.LineSeries{Name: name}
				for _, pt := range pts {
					v := s.values[aggKey{pt.group, 0, "all", "recall", k}]
					ls.X, ls.Y = append(ls.X, pt.x), append(ls.Y, v.Mean)
					ls.Lo, ls.Hi = append(ls.Lo, max(v.Lo, 0)), append(ls.Hi, min(v.Hi, 1))
				}
				series = append(series, ls)
			}
			if len(series) == 0 {
				break
			}
			if len(series) == 1 {
				series[0].Name = ""
			}
			p, err := plots.Lines(series, plots.Labels{X: axisLabel(key), Y: metricLabel("recall", k) + ", all pairs"}, plots.LineOptions{Markers: true}, cfg.Plots)
			if err != nil {
				return fmt.Errorf("recall against %s figure: %w", key, err)
			}
			if _, err := plots.Save(p, filepath.Join(cfg.Out, fmt.Sprintf("recall_at_%d_vs_%s", k, last(key))), cfg.Plots); err != nil {
				return err
			}
		}
	}
	return nil
}
