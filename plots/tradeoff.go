package plots

import (
	"fmt"
	"image/color"
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
	// Arrows draws an arrowhead midway along each segment long enough to hold one, pointing to
	// the next point: the direction the points are in, e.g. of increasing τ.
	Arrows bool
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
	return tradeoffOver(series, nil, l, s)
}

// tradeoffOver is tradeoffPlot with the series of context drawn behind, thin and grey, without
// markers, legend entries or a share of the axes' ranges.
func tradeoffOver(series, context []TradeoffSeries, l Labels, s Settings) (theme, *plot.Plot, []legendEntry, error) {
	if err := validateTradeoff(series); err != nil {
		return theme{}, nil, nil, err
	}
	t, p, err := newXYFigure(l, s)
	if err != nil {
		return t, nil, nil, err
	}
	p.Add(&plotter.Grid{Horizontal: t.gridLine, Vertical: t.gridLine})
	grey := color.Gray{Y: 0xCC}
	for _, ts := range context {
		xys := points(ts.X, ts.Y)
		p.Add(&plotter.Scatter{XYs: xys, GlyphStyle: draw.GlyphStyle{Color: grey, Radius: t.markerR * 0.5, Shape: draw.CircleGlyph{}}})
		if len(xys) > 1 {
			p.Add(&plotter.Line{XYs: xys, LineStyle: draw.LineStyle{Color: grey, Width: t.thin}})
		}
	}
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
		if len(xys) > 1 { // a single point's entry shows its marker alone, as it is drawn
			lines = append(lines, line)
			e.thumbs = append(e.thumbs, line)
		}
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
	for i, ts := range series {
		if ts.Arrows && len(ts.X) > 1 {
			p.Add(&arrowheads{xys: points(ts.X, ts.Y), color: Color(styleOf(ts.Style, i).Color), size: t.markerR * 1.6})
		}
	}
	p.Add(marks...)
	p.Add(tags...)
	xlo, xhi, ylo, yhi := tradeoffExtent(series)
	if t.s.YRange == YRangeZero {
		xlo, ylo = math.Min(xlo, 0), math.Min(ylo, 0)
	}
	p.X.Min, p.X.Max = fitted(xlo, xhi)
	p.Y.Min, p.Y.Max = fitted(ylo, yhi)
	return t, p, entries, nil
}

// fitted is the range of an axis fitted to data over [lo, hi]: the data and a margin of 4% of
// their span on each side, so that no marker sits on the axis (a margin of half the value for a
// single value, [0, 1] for 0). The ticks label the multiples of a round step within it.
func fitted(lo, hi float64) (float64, float64) {
	if lo == hi {
		if lo == 0 {
			return 0, 1
		}
		d := math.Abs(lo) / 2
		return lo - d, hi + d
	}
	pad := 0.04 * (hi - lo)
	return lo - pad, hi + pad
}

// arrowheads is a plot.Plotter that draws a filled arrowhead of the given size midway along
// each segment of xys longer than three sizes on the canvas, pointing to the segment's end.
type arrowheads struct {
	xys   plotter.XYs
	color color.RGBA
	size  vg.Length
}

// Plot implements plot.Plotter.
func (a *arrowheads) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i := 1; i < len(a.xys); i++ {
		from := vg.Point{X: trX(a.xys[i-1].X), Y: trY(a.xys[i-1].Y)}
		to := vg.Point{X: trX(a.xys[i].X), Y: trY(a.xys[i].Y)}
		if head, ok := arrowhead(from, to, a.size); ok {
			c.FillPolygon(a.color, head[:])
		}
	}
}

// arrowhead is the triangle of an arrowhead of the given length midway along the segment from
// → to, its tip (the first point) towards to; false for a segment shorter than three lengths.
func arrowhead(from, to vg.Point, size vg.Length) ([3]vg.Point, bool) {
	dx, dy := float64(to.X-from.X), float64(to.Y-from.Y)
	n := math.Hypot(dx, dy)
	if n < 3*float64(size) {
		return [3]vg.Point{}, false
	}
	ux, uy := dx/n, dy/n // along the segment
	mx, my := float64(from.X+to.X)/2, float64(from.Y+to.Y)/2
	l, w := float64(size), float64(size)*0.55
	bx, by := mx-ux*l/2, my-uy*l/2 // the middle of the base
	return [3]vg.Point{
		{X: vg.Length(mx + ux*l/2), Y: vg.Length(my + uy*l/2)},
		{X: vg.Length(bx - uy*w), Y: vg.Length(by + ux*w)},
		{X: vg.Length(bx + uy*w), Y: vg.Length(by - ux*w)},
	}, true
}

// TradeoffPanel is one panel of TradeoffPanels: its title (e.g. a loss variant) and its series.
type TradeoffPanel struct {
	Title  string
	Series []TradeoffSeries
}

// TradeoffPanels returns a figure of Tradeoff scatters side by side, one per panel, laid out and
// with one legend as LinePanels lays out its panels (a series name keeps its style in every
// panel), on axes common to every panel and fitted to all their data, each panel drawing the
// other panels' series behind its own, thin and grey, so that every group is seen against the
// whole frontier: e.g. the head-against-tail Recall@K that post-hoc logit adjustment traces, one
// panel per loss variant. The panels of the first column label the y axis, those with no panel
// below them the x axis.
func TradeoffPanels(panels []TradeoffPanel, l Labels, s Settings) (*plot.Plot, error) {
	var all []TradeoffSeries
	for _, pn := range panels {
		all = append(all, pn.Series...)
	}
	if err := validateTradeoff(all); err != nil {
		return nil, err
	}
	if err := s.Resolve(); err != nil {
		return nil, fmt.Errorf("plots: settings: %w", err)
	}
	xlo, xhi, ylo, yhi := tradeoffExtent(all)
	if s.YRange == YRangeZero {
		xlo, ylo = math.Min(xlo, 0), math.Min(ylo, 0)
	}
	p, _, err := panelFigure(len(panels), func(k int) string { return panels[k].Title }, func(k int, pl Labels, ps Settings) (panelPlot, error) {
		pn := panels[k]
		if len(pn.Series) == 0 {
			return panelPlot{}, errNoSeries
		}
		var context []TradeoffSeries
		for j, other := range panels {
			if j != k {
				context = append(context, other.Series...)
			}
		}
		_, p, es, err := tradeoffOver(pn.Series, context, pl, ps)
		if err != nil {
			return panelPlot{}, err
		}
		p.X.Tick.Marker = linearTicks{intervals: intervalsFor(ps.Width)} // labels that fit a narrow panel
		p.X.Min, p.X.Max = fitted(xlo, xhi)
		p.Y.Min, p.Y.Max = fitted(ylo, yhi)
		cols := int(math.Round(s.Width / ps.Width)) // panels per row
		if k%cols != 0 {
			p.Y.Label.Text = ""
		}
		if k+cols < len(panels) {
			p.X.Label.Text = ""
		}
		return scatterPanel(p, es, pn.Series), nil
	}, l, true, s)
	return p, err
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
