package plots

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ScatterPanel is one panel of ScatterPanels: its title and its series, drawn as Tradeoff draws
// them, and whether it shows the identity line y = x.
type ScatterPanel struct {
	Title  string
	Series []TradeoffSeries
	// Identity draws the line y = x (dashed, grey) and gives both axes the same range, so that
	// a point on the line has equal coordinates: an estimate against the value it estimates.
	Identity bool
}

// ScatterPanels returns a figure of scatters side by side, one per panel, each drawn as Tradeoff
// draws a figure, laid out and with one legend as LinePanels lays out its panels (a series name
// keeps its style in every panel). It draws, for example, each cell's full-ranking metric against
// its sampled estimates (Krichene & Rendle 2020), one panel per estimator: a cell's place along
// the x axis is its place in the full ranking's ordering, so that two cells whose sampled values
// are ordered otherwise show as a pair going down.
func ScatterPanels(panels []ScatterPanel, l Labels, s Settings) (*plot.Plot, error) {
	p, _, err := panelFigure(len(panels), func(k int) string { return panels[k].Title }, func(k int, pl Labels, ps Settings) (panelPlot, error) {
		pn := panels[k]
		if len(pn.Series) == 0 {
			return panelPlot{}, errNoSeries
		}
		t, p, es, err := tradeoffPlot(pn.Series, pl, ps)
		if err != nil {
			return panelPlot{}, err
		}
		p.X.Tick.Marker = linearTicks{intervals: intervalsFor(ps.Width)} // labels that fit a narrow panel
		if pn.Identity {
			addIdentity(t, p)
		}
		return scatterPanel(p, es, pn.Series), nil
	}, l, true, s)
	return p, err
}

// scatterPanel is the panel of a figure of panels drawn as p, with the legend entries es of its
// series.
func scatterPanel(p *plot.Plot, es []legendEntry, series []TradeoffSeries) panelPlot {
	out := panelPlot{p: p, entries: es}
	for i, ts := range series {
		out.names, out.styles = append(out.names, ts.Name), append(out.styles, styleOf(ts.Style, i))
	}
	return out
}

// addIdentity gives both axes of p the range that holds both, and draws the line y = x across it.
func addIdentity(t theme, p *plot.Plot) {
	lo, hi := math.Min(p.X.Min, p.Y.Min), math.Max(p.X.Max, p.Y.Max)
	p.X.Min, p.Y.Min, p.X.Max, p.Y.Max = lo, lo, hi, hi
	p.Add(&plotter.Line{XYs: plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}},
		LineStyle: draw.LineStyle{Color: color.Gray{Y: 0x90}, Width: t.thin, Dashes: []vg.Length{t.em * 0.4, t.em * 0.3}}})
}
