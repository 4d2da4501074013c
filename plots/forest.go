package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ForestRow is one row of a Forest plot: a contrast (e.g. "in-batch − uniform") and its
// estimate in each group (e.g. popularity slice).
type ForestRow struct {
	// Label names the row on the y axis; required, unique.
	Label string
	// Mean, Lo and Hi hold, per group of the figure, the estimate and the ends of its interval
	// (Lo ≤ Mean ≤ Hi; Lo and Hi NaN for no interval, Mean NaN for no estimate in that group).
	Mean, Lo, Hi []float64
}

// Forest returns a forest plot: one row per contrast, top to bottom in order, and within a row
// one point per group with its interval drawn horizontally, group g in Color(g) and Marker(g)
// (named in the legend), and a vertical line at zero, the value of no difference. It is the
// figure of paired differences: whether each interval excludes zero, per group. Labels l need X
// (e.g. "Recall@10 difference"); l.Y may be empty (the rows' labels name the axis).
func Forest(groups []string, rows []ForestRow, l Labels, s Settings) (*plot.Plot, error) {
	if err := checkNames("group", groups, false); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("plots: forest: no rows")
	}
	labels := make([]string, len(rows))
	for i, r := range rows {
		labels[i] = r.Label
		for _, v := range [][]float64{r.Mean, r.Lo, r.Hi} {
			if len(v) != len(groups) {
				return nil, fmt.Errorf("plots: forest: row %q has %d values for %d groups", r.Label, len(v), len(groups))
			}
		}
		for g := range groups {
			if lo, hi := r.Lo[g], r.Hi[g]; math.IsNaN(lo) != math.IsNaN(hi) || !math.IsNaN(lo) && !(lo <= r.Mean[g] && r.Mean[g] <= hi) {
				return nil, fmt.Errorf("plots: forest: row %q, group %s: interval [%v, %v] does not hold %v", r.Label, groups[g], lo, hi, r.Mean[g])
			}
		}
	}
	if err := checkNames("row", labels, false); err != nil {
		return nil, err
	}
	if l.Y == "" {
		l.Y = " "
	}
	t, p, err := newXYFigure(l, s)
	if err != nil {
		return nil, err
	}
	p.Add(&plotter.Grid{Vertical: t.gridLine})
	n := len(rows)
	// Row i sits at y = n−1−i; its groups spread over ±0.3 around it.
	y := func(i, g int) float64 {
		off := 0.0
		if len(groups) > 1 {
			off = 0.3 - 0.6*float64(g)/float64(len(groups)-1)
		}
		return float64(n-1-i) + off
	}
	xlo, xhi := 0.0, 0.0
	entries := make([]legendEntry, len(groups))
	var bars, marks []plot.Plotter
	for g, name := range groups {
		var pts plotter.XYs
		var errs plotter.XErrors
		for i, r := range rows {
			if math.IsNaN(r.Mean[g]) {
				continue
			}
			pts = append(pts, plotter.XY{X: r.Mean[g], Y: y(i, g)})
			lo, hi := r.Lo[g], r.Hi[g]
			if math.IsNaN(lo) {
				lo, hi = r.Mean[g], r.Mean[g]
			}
			errs = append(errs, struct{ Low, High float64 }{r.Mean[g] - lo, hi - r.Mean[g]})
			xlo, xhi = math.Min(xlo, lo), math.Max(xhi, hi)
		}
		mark := &plotter.Scatter{XYs: pts, GlyphStyle: draw.GlyphStyle{Color: Color(g), Radius: t.markerR, Shape: Marker(g)}}
		entries[g] = legendEntry{name: name, thumbs: []plot.Thumbnailer{mark}}
		if len(pts) == 0 {
			continue
		}
		bars = append(bars, &plotter.XErrorBars{XYs: pts, XErrors: errs, LineStyle: draw.LineStyle{Color: Color(g), Width: t.lineW}, CapWidth: t.em * 0.4})
		marks = append(marks, mark)
	}
	zero := &plotter.Line{XYs: plotter.XYs{{X: 0, Y: -0.6}, {X: 0, Y: float64(n) - 0.4}},
		LineStyle: draw.LineStyle{Color: color.Gray{Y: 0x40}, Width: t.thin, Dashes: Dashes(1)}}
	p.Add(zero)
	p.Add(bars...)
	p.Add(marks...)
	// The data area is what the rows' labels and a legend beside it leave of the figure's width;
	// the x axis's label and at least minForestData must fit in it.
	ticks := make([]plot.Tick, n)
	var widest vg.Length
	for i, r := range rows {
		ticks[i] = plot.Tick{Value: float64(n - 1 - i), Label: r.Label}
		widest = max(widest, p.Y.Tick.Label.Width(r.Label))
	}
	dataW := vg.Length(t.s.Width)*vg.Inch - 2*t.s.margin() - widest - p.Y.Tick.Length - t.em*0.6
	if len(groups) > 1 {
		lg, err := newLegend(t, p, entries, t.em*1.2)
		if err != nil {
			return nil, err
		}
		p.Add(lg)
		if lg.right {
			dataW -= lg.gap + lg.width()
		}
	}
	if need := max(p.X.Label.TextStyle.Width(l.X), minForestData*vg.Inch); dataW < need {
		return nil, &LayoutError{
			Problem: fmt.Sprintf("the rows' labels leave %.2f in for the data, less than the %.2f in its axis needs", dataW/vg.Inch, need/vg.Inch),
			Width:   inches(vg.Length(t.s.Width)*vg.Inch + need - dataW),
		}
	}
	if xlo == xhi { // every estimate and interval at 0
		xlo, xhi = -1, 1
	}
	p.X.Min, p.X.Max = niceLinear(xlo, xhi)
	p.X.Tick.Marker = linearTicks{intervals: intervalsIn(float64(dataW / vg.Inch))}
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	return p, nil
}

// minForestData is the narrowest data area of a forest plot, in inches.
const minForestData = 1.5
