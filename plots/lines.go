package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// LineSeries is one line of a Lines figure.
type LineSeries struct {
	// Name is the legend entry; it may be empty only when there is a single series (no legend).
	Name string
	// X holds the abscissae, strictly increasing; Y the ordinates, one per X.
	X, Y []float64
	// Lo and Hi bound the band drawn, translucent, under the line, e.g. a 95% confidence
	// interval across seeds, with Lo[i] ≤ Y[i] ≤ Hi[i]; both nil for no band.
	Lo, Hi []float64
	// Style is the series' colour, dashes and marker; nil for the series' position (see Style).
	Style *Style
}

// LineOptions are the options of Lines; the zero value draws linear axes without markers.
type LineOptions struct {
	// LogX and LogY make the x or y axis logarithmic; every value on it (Y, Lo and Hi for the
	// y axis) must then be positive.
	LogX, LogY bool
	// Markers draws a marker, Marker(i) for series i, at every point: for sparse x such as a
	// temperature sweep. A series of a single point needs markers.
	Markers bool
}

// Lines returns a line plot of series, series i in Color(i) with Dashes(i), each over its band
// if it has one, labelled by l and sized by s (whose zero value works; Save the figure with the
// same Settings). The x axis spans the data; the y axis ends on labelled ticks around the data,
// and includes 0 when s.YRange is "zero" (a log y axis always fits the data).
//
// A series with more points than the figure has pixel columns at s.DPI is drawn through its M4
// aggregate (see the package documentation), which looks the same at that resolution.
func Lines(series []LineSeries, l Labels, o LineOptions, s Settings) (*plot.Plot, error) {
	return lines(series, l, o, s, true)
}

// lines builds the figure of Lines, drawing M4 aggregates of the series if aggregate, else
// every point.
func lines(series []LineSeries, l Labels, o LineOptions, s Settings, aggregate bool) (*plot.Plot, error) {
	t, p, entries, err := linePlot(series, l, o, s, aggregate)
	if err != nil {
		return nil, err
	}
	if err := addLegend(t, p, entries, lineThumbW(t)); err != nil {
		return nil, err
	}
	return p, nil
}

// lineThumbW is the width of a line's thumbnail in a legend.
func lineThumbW(t theme) vg.Length { return t.em * 2.4 }

// linePlot builds the figure of Lines without its legend, and returns the legend's entries.
func linePlot(series []LineSeries, l Labels, o LineOptions, s Settings, aggregate bool) (theme, *plot.Plot, []legendEntry, error) {
	if err := validateLines(series, o); err != nil {
		return theme{}, nil, nil, err
	}
	t, p, err := newXYFigure(l, s)
	if err != nil {
		return t, nil, nil, err
	}
	// Labels that fit a narrow panel: as many as a linear axis of its width has ticks.
	p.X.Tick.Marker = linearTicks{intervals: intervalsFor(t.s.Width)}
	if o.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{labels: intervalsFor(t.s.Width) + 1}
	}
	if o.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}
	p.Add(&plotter.Grid{Horizontal: t.gridLine})

	col := vg.Inch / vg.Length(t.s.DPI) // a pixel column
	if !aggregate {
		col = vg.Inch / 1e9
	}
	var bands, curves, marks []plot.Plotter
	entries := make([]legendEntry, len(series))
	for i, ls := range series {
		st := styleOf(ls.Style, i)
		xys := points(ls.X, ls.Y)
		e := &entries[i]
		e.name = ls.Name
		if ls.Lo != nil {
			lo, hi := points(ls.X, ls.Lo), points(ls.X, ls.Hi)
			band := &m4Band{
				Polygon: &plotter.Polygon{XYs: []plotter.XYs{ring(lo, hi)}, Color: bandColor(Color(st.Color))},
				lo:      lo,
				hi:      hi,
				col:     col,
			}
			bands = append(bands, band)
			e.thumbs = append(e.thumbs, band)
		}
		line := &m4Line{
			Line: &plotter.Line{XYs: xys, LineStyle: draw.LineStyle{Color: Color(st.Color), Width: t.lineW, Dashes: Dashes(st.Shape)}},
			col:  col,
		}
		curves = append(curves, line)
		e.thumbs = append(e.thumbs, line)
		if o.Markers {
			sc := &plotter.Scatter{XYs: xys, GlyphStyle: draw.GlyphStyle{Color: Color(st.Color), Radius: t.markerR, Shape: Marker(st.Shape)}}
			marks = append(marks, sc)
			e.thumbs = append(e.thumbs, sc)
		}
	}
	// Bands first, so that no band covers a line; markers last.
	p.Add(bands...)
	p.Add(curves...)
	p.Add(marks...)
	if l.Key != nil {
		entries = l.Key.entries(t, false, o.Markers)
	}
	switch {
	case o.LogY:
		p.Y.Min, p.Y.Max = niceLog(p.Y.Min, p.Y.Max)
	case t.s.YRange == YRangeZero:
		p.Y.Min, p.Y.Max = niceLinear(math.Min(p.Y.Min, 0), math.Max(p.Y.Max, 0))
	default:
		p.Y.Min, p.Y.Max = niceLinear(p.Y.Min, p.Y.Max)
	}
	if p.X.Min == p.X.Max { // single points: give them room
		if o.LogX {
			p.X.Min, p.X.Max = niceLog(p.X.Min, p.X.Max)
		} else {
			p.X.Min, p.X.Max = niceLinear(p.X.Min, p.X.Max)
		}
	}
	return t, p, entries, nil
}

// validateLines checks the input of Lines.
func validateLines(series []LineSeries, o LineOptions) error {
	if err := checkSeries("line", len(series), func(i int) (string, []float64, []float64) {
		return series[i].Name, series[i].X, series[i].Y
	}); err != nil {
		return err
	}
	for i, ls := range series {
		name := seriesName(ls.Name, i)
		if len(ls.X) == 1 && !o.Markers {
			return fmt.Errorf("plots: series %s has a single point, which shows only with Markers", name)
		}
		for j, x := range ls.X {
			switch {
			case math.IsNaN(x) || math.IsInf(x, 0):
				return fmt.Errorf("plots: series %s: X[%d] is %v", name, j, x)
			case j > 0 && !(x > ls.X[j-1]):
				return fmt.Errorf("plots: series %s: X must increase strictly, but X[%d] = %v follows X[%d] = %v",
					name, j, x, j-1, ls.X[j-1])
			case o.LogX && x <= 0:
				return fmt.Errorf("plots: series %s: X[%d] = %v, but a log x axis needs positive values", name, j, x)
			}
		}
		at := func(j int) string { return fmt.Sprintf("X[%d] = %v", j, ls.X[j]) }
		if err := checkInterval(name, "Y", at, ls.Y, ls.Lo, ls.Hi); err != nil {
			return err
		}
		if !o.LogY {
			continue
		}
		for j := range ls.Y {
			// Lo[j] ≤ Y[j] ≤ Hi[j] has been checked: Lo is the smallest.
			if v := lowest(ls, j); v <= 0 {
				return fmt.Errorf("plots: series %s, %s: value %v, but a log y axis needs positive values", name, at(j), v)
			}
		}
	}
	return nil
}

// checkSeries checks what every kind of series shares: n ≥ 1 series of the kind, named unless
// there is only one and never twice, each with at least one point and as many Y as X;
// series(i) returns the name and coordinates of series i.
func checkSeries(kind string, n int, series func(i int) (name string, x, y []float64)) error {
	if n == 0 {
		return fmt.Errorf("plots: no %s series", kind)
	}
	names := make([]string, n)
	for i := range n {
		names[i], _, _ = series(i)
	}
	if err := checkNames("series", names, n == 1); err != nil {
		return err
	}
	for i := range n {
		name, x, y := series(i)
		if len(x) == 0 {
			return fmt.Errorf("plots: series %s has no points", seriesName(name, i))
		}
		if len(y) != len(x) {
			return fmt.Errorf("plots: series %s: len(Y) = %d, want len(X) = %d", seriesName(name, i), len(y), len(x))
		}
	}
	return nil
}

// lowest returns the smallest value drawn at point j of ls: Lo[j] if it has a band, else Y[j].
func lowest(ls LineSeries, j int) float64 {
	if ls.Lo != nil {
		return ls.Lo[j]
	}
	return ls.Y[j]
}

// points pairs xs and ys.
func points(xs, ys []float64) plotter.XYs {
	xys := make(plotter.XYs, len(xs))
	for i := range xs {
		xys[i] = plotter.XY{X: xs[i], Y: ys[i]}
	}
	return xys
}
