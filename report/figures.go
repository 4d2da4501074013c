package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

	isetting "github.com/samplingbias/workbench/internal/setting"
	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/plots"
)

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
	if slices.Contains(s.slices(), metrics.SliceHead) && slices.Contains(s.slices(), metrics.SliceTail) {
		for _, k := range s.ks[metrics.MetricRecall] {
			figs = append(figs, figure{fmt.Sprintf("tradeoff_at_%d", k), func(ps plots.Settings) (*plot.Plot, error) {
				return tradeoff(s, k, ps)
			}})
		}
	}
	return figs
}

// maxTradeoffCurves is the most curves the trade-off figure draws in one panel; more are drawn
// in panels (tradeoffPanels).
const maxTradeoffCurves = 4

// tradeoff draws head against tail Recall@K: one point per group as trained (τ = 0, else the
// smallest τ evaluated), joined by a line, arrows pointing to increasing τ, to its points under
// the other post-hoc logit-adjustment strengths τ of eval, with their 95% intervals across seeds
// in both directions when plots.tradeoff_intervals asks for them; laid out by xyFigure.
func tradeoff(s *summary, k int, ps plots.Settings) (*plot.Plot, error) {
	series := tradeoffSeries(s, k)
	if len(series) == 0 {
		return nil, fmt.Errorf("no group has both head and tail Recall@%d", k)
	}
	l := plots.Labels{X: "Tail " + metricLabel(metrics.MetricRecall, k), Y: "Head " + metricLabel(metrics.MetricRecall, k)}
	return xyFigure(s, series, l, ps)
}

// xyFigure draws series of xySeries labelled by l, with their intervals when
// plots.tradeoff_intervals asks for them, on axes fitted to the data: in one panel, or in panels
// (tradeoffPanels) when more than maxTradeoffCurves series are curves of several strengths τ,
// titled by tauTitle.
func xyFigure(s *summary, series []plots.TradeoffSeries, l plots.Labels, ps plots.Settings) (*plot.Plot, error) {
	series = intervalsAsked(series, ps)
	l.Key, l.Title = s.key(len(series)), tauTitle(s, series)
	if len(series) <= maxTradeoffCurves || l.Title == "" {
		return plots.Tradeoff(series, l, ps)
	}
	panels, key := tradeoffPanels(s, series)
	l.Key = key
	return plots.TradeoffPanels(panels, l, ps)
}

// tradeoffPanels splits the trade-off figure's series into panels: one per colour when the
// figures encode the cells by factor (colour by plots.color_by, the panel's title its value;
// the legend then names the markers only), else one per loss family when the grid has several,
// else one per cell. Each series keeps its style.
func tradeoffPanels(s *summary, series []plots.TradeoffSeries) ([]plots.TradeoffPanel, *plots.Key) {
	group := map[string]string{}
	for _, g := range s.groups {
		group[s.label(g)] = g
	}
	var panels []plots.TradeoffPanel
	add := func(title string, ts plots.TradeoffSeries) {
		i := slices.IndexFunc(panels, func(p plots.TradeoffPanel) bool { return p.Title == title })
		if i < 0 {
			i = len(panels)
			panels = append(panels, plots.TradeoffPanel{Title: title})
		}
		panels[i].Series = append(panels[i].Series, ts)
	}
	families := map[string]bool{}
	for _, g := range s.groups {
		families[s.family[g]] = true
	}
	var key *plots.Key
	for i, ts := range series {
		g := group[ts.Name]
		switch {
		case s.enc.key != nil:
			st := s.enc.style(g)
			add(s.enc.key.Colors[st.Color].Name, ts)
			if len(s.enc.key.Shapes) > 1 {
				key = &plots.Key{Shapes: s.enc.key.Shapes}
			} else {
				key = &plots.Key{}
			}
		case len(families) > 1:
			add(s.family[g], ts)
		default:
			if ts.Style == nil {
				ts.Style = &plots.Style{Color: i, Shape: i}
			}
			add(ts.Name, ts)
			key = &plots.Key{} // the panels' titles name the cells
		}
	}
	return panels, key
}

// tradeoffSeries returns the series of the trade-off figure of Recall@K: tail against head.
func tradeoffSeries(s *summary, k int) []plots.TradeoffSeries {
	return xySeries(s, coord{0, metrics.SliceTail, metrics.MetricRecall, k, metrics.TestNatural},
		coord{0, metrics.SliceHead, metrics.MetricRecall, k, metrics.TestNatural})
}

// recallBars draws Recall@K by slice, one bar per group, with the 95% interval across seeds.
func recallBars(s *summary, k int, ps plots.Settings) (*plot.Plot, error) {
	var points []plots.BarPoint
	for _, g := range s.groups {
		for _, sl := range s.slices() {
			v, ok := s.values[aggKey{g, coord{s.refTau(), sl, metrics.MetricRecall, k, metrics.TestNatural}}]
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
	for _, sl := range s.slices() {
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
	data.Refs = s.base.refs(s.slices(), k)
	data.Interval = "95% CI across seeds"
	return plots.GroupedBars(data, plots.Labels{Y: s.refMetric(k), X: "Positive item's popularity slice", Key: s.key(len(data.Series))}, ps)
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
// axes, with the 95% band across seeds when every point has one, in one panel per popularity
// slice (head, torso, tail and all test pairs, those evaluated), on the x scale of
// plots.x_scale, which the x axis's label names when it is logarithmic.
func sweepFigures(in Input, s *summary) []figure {
	groupAxes := map[string]map[string]string{}
	for _, rec := range in.Runs {
		groupAxes[rec.Group] = rec.Axes
	}
	var figs []figure
	for _, key := range in.Axes {
		sw, ok := newSweep(s, in.Axes, key, groupAxes)
		if !ok {
			continue
		}
		label := newLabeler(in.Plots.Labels, sw.order).label
		for _, k := range s.ks[metrics.MetricRecall] {
			panels := sw.panels(s, k, label)
			if len(panels) == 0 {
				break
			}
			l := plots.Labels{X: axisLabel(key), Y: s.refMetric(k)}
			if len(panels) == 1 {
				l.Y += ", " + panels[0].Title
			}
			figs = append(figs, figure{fmt.Sprintf("%s_at_%d_vs_%s", metrics.MetricRecall, k, isetting.Leaf(key)), func(ps plots.Settings) (*plot.Plot, error) {
				l, log := l, ps.XScale == plots.XScaleLog
				if log {
					l.X += logSuffix
				}
				return linePanels(panels, l, plots.LineOptions{Markers: true, LogX: log}, ps)
			}})
		}
	}
	return figs
}

// sweep is the lines of the figures of one numeric axis: one per combination of the other axes
// (named "axis=value,..." in order), each a list of points (the axis's value, the group) in
// increasing value.
type sweep struct {
	order []string
	lines map[string][]sweepPoint
}

// sweepPoint is one group of a sweep's line, at x on the swept axis.
type sweepPoint struct {
	x     float64
	group string
}

// newSweep returns the sweep of axis key among keys (groupAxes gives each group's values);
// false if some group's value of key is not a number.
func newSweep(s *summary, keys []string, key string, groupAxes map[string]map[string]string) (sweep, bool) {
	sw := sweep{lines: map[string][]sweepPoint{}}
	for _, g := range s.groups {
		axes := groupAxes[g]
		x, err := strconv.ParseFloat(axes[key], 64)
		if err != nil {
			return sweep{}, false
		}
		var rest []string
		for _, other := range keys {
			if other != key {
				rest = append(rest, isetting.Leaf(other)+"="+axes[other])
			}
		}
		name := strings.Join(rest, ",")
		if _, ok := sw.lines[name]; !ok {
			sw.order = append(sw.order, name)
		}
		sw.lines[name] = append(sw.lines[name], sweepPoint{x, g})
	}
	for _, pts := range sw.lines {
		sort.Slice(pts, func(i, j int) bool { return pts[i].x < pts[j].x })
	}
	return sw, true
}

// panels returns the panels of Recall@K, one per slice evaluated, each with the lines of at
// least two points, named by label.
func (sw sweep) panels(s *summary, k int, label func(string) string) []plots.LinePanel {
	var panels []plots.LinePanel
	for _, sl := range s.slices() {
		p := plots.LinePanel{Title: sliceTitle(sl)}
		for i, name := range sw.order {
			// Every line keeps its style in every panel, whichever lines a panel lacks.
			ls := plots.LineSeries{Name: label(name), Style: &plots.Style{Color: i, Shape: i}}
			band := true
			for _, pt := range sw.lines[name] {
				v, ok := s.values[aggKey{pt.group, coord{s.refTau(), sl, metrics.MetricRecall, k, metrics.TestNatural}}]
				if !ok {
					continue
				}
				band = addPoint(&ls, pt.x, v) && band
			}
			bandIf(&ls, band)
			if len(ls.X) >= 2 {
				p.Series = append(p.Series, ls)
			}
		}
		if len(p.Series) > 0 {
			panels = append(panels, p)
		}
	}
	return panels
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
		l := plots.Labels{X: "Bin's training count, √(least × greatest)" + logSuffix, Y: s.refMetric(k), Key: s.key(len(series))}
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
			v, ok := s.values[aggKey{g, coord{s.refTau(), metrics.SliceBin(b), metrics.MetricRecall, k, metrics.TestNatural}}]
			if !ok || bin.Items == 0 {
				continue
			}
			x := math.Sqrt(math.Max(float64(bin.MinCount), 0.5) * math.Max(float64(bin.MaxCount), 0.5))
			if n := len(ls.X); n > 0 && x <= ls.X[n-1] {
				continue // bins of equal counts cannot be told apart on the axis
			}
			band = addPoint(&ls, x, v) && band
		}
		if len(ls.X) == 0 {
			continue
		}
		bandIf(&ls, band)
		series = append(series, ls)
	}
	if len(series) == 1 {
		series[0].Name = ""
	}
	return series
}

// logSuffix ends the label of a logarithmic axis, so that the reader is told the scale.
const logSuffix = " (log)"

// addPoint appends v, a metric in [0, 1], at x to ls, with its 95% interval across seeds
// clipped to [0, 1] as the band, and reports whether v has such an interval (two seeds or more).
func addPoint(ls *plots.LineSeries, x float64, v agg) bool {
	ls.X, ls.Y = append(ls.X, x), append(ls.Y, v.Mean)
	ls.Lo, ls.Hi = append(ls.Lo, max(v.Lo, 0)), append(ls.Hi, min(v.Hi, 1))
	return v.N >= 2
}

// bandIf removes the band of ls unless band: a band is drawn, and named in the legend, only when
// every point has an interval across seeds.
func bandIf(ls *plots.LineSeries, band bool) {
	if !band {
		ls.Lo, ls.Hi = nil, nil
	}
}
