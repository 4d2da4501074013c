package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TradeoffSeries is one variant of a Tradeoff figure: the points it reaches, in order, joined
// by a line; e.g. its tail and head Recall@K as trained and then under increasing post-hoc
// logit-adjustment strengths τ (Menon et al. 2021).
type TradeoffSeries struct {
	// Name is the legend entry; it may be empty only when there is a single series (no legend).
	Name string
	// X and Y are the coordinates of the points, joined by a line in this order.
	X, Y []float64
	// Origin is the index of the point of the variant itself, drawn with a larger marker; the
	// others are its adjusted forms. Default 0, the first point.
	Origin int
	// XLo, XHi and YLo, YHi bound the intervals drawn in both directions, e.g. 95% confidence
	// intervals across seeds, with XLo[i] ≤ X[i] ≤ XHi[i]; nil for none (each pair on its own).
	XLo, XHi, YLo, YHi []float64
	// Style is the series' colour, dashes and marker; nil for the series' position (see Style).
	Style *Style
	// Tags annotate points, e.g. "τ=1" at the last point, to show where the curve goes; nil or
	// "" for none.
	Tags []string
}

// Tradeoff returns a scatter of one point per variant with its intervals in both directions,
// each variant's further points joined to it by a line, series i in Color(i) with Dashes(i) and
// Marker(i), labelled by l (X and Y required) and sized by s (whose zero value works; Save the
// figure with the same Settings). Both axes end on labelled ticks around the data; with
// s.YRange "zero" both start at 0. It draws, for example, the head-against-tail frontier of
// Recall@K that post-hoc logit adjustment traces for each loss.
func Tradeoff(series []TradeoffSeries, l Labels, s Settings) (*plot.Plot, error) {
	t, p, entries, err := tradeoffPlot(series, l, s)
	if err != nil {
		return nil, err
	}
	if l.Key != nil {
		entries = l.Key.entries(t, false, true)
	}
	if err := addLegend(t, p, entries, lineThumbW(t)); err != nil {
		return nil, err
	}
	return p, nil
}

// tradeoffPlot builds the figure of Tradeoff without its legend, and returns the legend's
// entries, one per series.
func tradeoffPlot(series []TradeoffSeries, l Labels, s Settings) (theme, *plot.Plot, []legendEntry, error) {
	if err := validateTradeoff(series); err != nil {
		return theme{}, nil, nil, err
	}
	t, p, err := newXYFigure(l, s)
	if err != nil {
		return t, nil, nil, err
	}
	p.Add(&plotter.Grid{Horizontal: t.gridLine, Vertical: t.gridLine})
	var lines, bars, marks, tags []plot.Plotter
	entries := make([]legendEntry, len(series))
	for i, ts := range series {
		st := styleOf(ts.Style, i)
		xys := points(ts.X, ts.Y)
		e := &entries[i]
		e.name = ts.Name
		errStyle := draw.LineStyle{Color: Color(st.Color), Width: t.thin}
		if ts.XLo != nil {
			xe := &plotter.XErrorBars{XYs: xys, XErrors: make(plotter.XErrors, len(xys)), LineStyle: errStyle, CapWidth: t.em * 0.4}
			for j := range xys {
				xe.XErrors[j] = struct{ Low, High float64 }{ts.X[j] - ts.XLo[j], ts.XHi[j] - ts.X[j]}
			}
			bars = append(bars, xe)
		}
		if ts.YLo != nil {
			ye := &plotter.YErrorBars{XYs: xys, YErrors: make(plotter.YErrors, len(xys)), LineStyle: errStyle, CapWidth: t.em * 0.4}
			for j := range xys {
				ye.YErrors[j] = struct{ Low, High float64 }{ts.Y[j] - ts.YLo[j], ts.YHi[j] - ts.Y[j]}
			}
			bars = append(bars, ye)
		}
		line := &plotter.Line{XYs: xys, LineStyle: draw.LineStyle{Color: Color(st.Color), Width: t.lineW, Dashes: Dashes(st.Shape)}}
		if len(xys) > 1 {
			lines = append(lines, line)
		}
		e.thumbs = append(e.thumbs, line)
		origin := &plotter.Scatter{XYs: xys[ts.Origin : ts.Origin+1], GlyphStyle: draw.GlyphStyle{Color: Color(st.Color), Radius: t.markerR * 1.4, Shape: Marker(st.Shape)}}
		if len(xys) > 1 {
			others := append(append(plotter.XYs(nil), xys[:ts.Origin]...), xys[ts.Origin+1:]...)
			marks = append(marks, &plotter.Scatter{XYs: others, GlyphStyle: draw.GlyphStyle{Color: Color(st.Color), Radius: t.markerR * 0.8, Shape: Marker(st.Shape)}})
		}
		marks = append(marks, origin)
		e.thumbs = append(e.thumbs, origin)
		for j, tag := range ts.Tags {
			if tag == "" {
				continue
			}
			lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys[j : j+1], Labels: []string{tag}})
			if err != nil {
				return t, nil, nil, fmt.Errorf("plots: series %s: tag %d: %w", seriesName(ts.Name, i), j, err)
			}
			sty := p.X.Tick.Label
			sty.Color = Color(st.Color)
			sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
			lb.TextStyle = []text.Style{sty}
			lb.Offset = vg.Point{X: t.em * 0.35, Y: t.em * 0.2}
			tags = append(tags, lb)
		}
	}
	// Intervals under the lines, markers and tags on top.
	p.Add(bars...)
	p.Add(lines...)
	p.Add(marks...)
	p.Add(tags...)
	xlo, xhi, ylo, yhi := tradeoffExtent(series)
	if t.s.YRange == YRangeZero {
		xlo, ylo = math.Min(xlo, 0), math.Min(ylo, 0)
	}
	p.X.Min, p.X.Max = niceLinear(xlo, xhi)
	p.Y.Min, p.Y.Max = niceLinear(ylo, yhi)
	return t, p, entries, nil
}

// tradeoffExtent returns the range of the points and their intervals along each axis.
func tradeoffExtent(series []TradeoffSeries) (xlo, xhi, ylo, yhi float64) {
	xlo, ylo = math.Inf(1), math.Inf(1)
	xhi, yhi = math.Inf(-1), math.Inf(-1)
	for _, ts := range series {
		for _, v := range [][]float64{ts.X, ts.XLo, ts.XHi} {
			for _, x := range v {
				xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
			}
		}
		for _, v := range [][]float64{ts.Y, ts.YLo, ts.YHi} {
			for _, y := range v {
				ylo, yhi = math.Min(ylo, y), math.Max(yhi, y)
			}
		}
	}
	return xlo, xhi, ylo, yhi
}

// validateTradeoff checks the input of Tradeoff.
func validateTradeoff(series []TradeoffSeries) error {
	if err := checkSeries("trade-off", len(series), func(i int) (string, []float64, []float64) {
		return series[i].Name, series[i].X, series[i].Y
	}); err != nil {
		return err
	}
	for i, ts := range series {
		name := seriesName(ts.Name, i)
		if ts.Origin < 0 || ts.Origin >= len(ts.X) {
			return fmt.Errorf("plots: series %s: Origin = %d, want an index of its %d points", name, ts.Origin, len(ts.X))
		}
		if ts.Tags != nil && len(ts.Tags) != len(ts.X) {
			return fmt.Errorf("plots: series %s: len(Tags) = %d, want len(X) = %d", name, len(ts.Tags), len(ts.X))
		}
		at := func(j int) string { return fmt.Sprintf("point %d", j) }
		if err := checkInterval(name, "X", at, ts.X, ts.XLo, ts.XHi); err != nil {
			return err
		}
		if err := checkInterval(name, "Y", at, ts.Y, ts.YLo, ts.YHi); err != nil {
			return err
		}
	}
	return nil
}
