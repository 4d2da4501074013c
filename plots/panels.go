package plots

import (
	"errors"
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// LinePanel is one panel of LinePanels: its title (e.g. a loss family or a popularity slice) and
// its series.
type LinePanel struct {
	Title  string
	Series []LineSeries
}

// Panel sizes: a panel narrower or lower than this cannot show its ticks and labels at the
// default font size.
const (
	minPanelWidth  = 1.6 // inches
	minPanelHeight = 1.6 // inches
)

// LinePanels returns a figure of line plots side by side, one per panel, for series whose
// scales differ (training losses of different families) or that a reader compares across
// subsets (Recall@K by popularity slice). Each panel is drawn as Lines draws a figure, with its
// own y axis fitted to its data (o and s.YRange apply to each), titled with its Title and
// labelled with l.X and l.Y; the panels' data areas are aligned. The figure has one legend,
// placed as s.Legend says: l.Key if not nil, else one entry per distinct series name, in the
// order of first appearance, drawn like that series. A series of a name that appears in
// several panels must have the same Style in each (nil Styles count by position in their
// panel).
//
// As many panels share a row as fit at minPanelWidth (1.6 in) each, at most all of them;
// further panels go to further rows. A figure too low for its rows of panels at minPanelHeight
// each is a *LayoutError asking for that height (Fit then enlarges it), as is a panel's label
// too long for its width.
func LinePanels(panels []LinePanel, l Labels, o LineOptions, s Settings) (*plot.Plot, error) {
	p, _, err := linePanels(panels, l, o, s)
	return p, err
}

// linePanels builds the figure of LinePanels and returns its legend's entries.
func linePanels(panels []LinePanel, l Labels, o LineOptions, s Settings) (*plot.Plot, []legendEntry, error) {
	return panelFigure(len(panels), func(k int) string { return panels[k].Title }, func(k int, pl Labels, ps Settings) (panelPlot, error) {
		pn := panels[k]
		if len(pn.Series) == 0 {
			return panelPlot{}, errNoSeries
		}
		_, p, es, err := linePlot(pn.Series, pl, o, ps, true)
		out := panelPlot{p: p, entries: es}
		for i, ls := range pn.Series {
			out.names, out.styles = append(out.names, ls.Name), append(out.styles, styleOf(ls.Style, i))
		}
		return out, err
	}, l, o.Markers, s)
}

// errNoSeries is the error of a panel without series.
var errNoSeries = errors.New("no series")

// panelPlot is one panel of a figure of panels: its plot and, per series, the series' name,
// style and legend entry.
type panelPlot struct {
	p       *plot.Plot
	names   []string
	styles  []Style
	entries []legendEntry
}

// panelFigure lays out n panels side by side and in rows, as LinePanels documents: build(k,
// pl, ps) builds panel k labelled pl (l with the panel's title(k) and no key) at its share ps
// of the figure; a panel whose texts are too wide for its share moves panels to further rows
// rather than widen the figure, while the figure's own title or legend too wide for it is a
// *LayoutError asking for a wider figure (fewer panels per row would not make them fit). The
// figure's legend has one entry per distinct series name (a name must keep its style in every
// panel), or l.Key's entries (with markers when marks).
func panelFigure(n int, title func(k int) string, build func(k int, pl Labels, ps Settings) (panelPlot, error), l Labels, marks bool, s Settings) (*plot.Plot, []legendEntry, error) {
	if n == 0 {
		return nil, nil, errors.New("plots: no panels")
	}
	if err := s.Resolve(); err != nil {
		return nil, nil, fmt.Errorf("plots: settings: %w", err)
	}
	cols := panelCols(n, s)
	for {
		p, entries, err := panelLayout(n, cols, title, build, l, marks, s)
		var pe panelError
		if !errors.As(err, &pe) {
			return p, entries, err // a text of the whole figure, which fewer panels per row do not help
		}
		if pe.Width == 0 || cols == 1 {
			return nil, nil, pe.LayoutError
		}
		// A panel's text is too wide for its share: fewer panels per row, never a wider
		// figure than asked (which at a dozen panels would be several pages wide).
		fewer := min(cols-1, int(s.Width*float64(cols)/pe.Width))
		if fewer < 1 {
			pe.Width /= float64(cols) // the width one panel alone needs
			return nil, nil, pe.LayoutError
		}
		cols = fewer
	}
}

// panelError is the LayoutError of a panel whose texts do not fit its share of the figure, as
// against one of the figure's own title or legend.
type panelError struct{ *LayoutError }

// panelLayout is panelFigure with cols panels per row.
func panelLayout(n, cols int, title func(k int) string, build func(k int, pl Labels, ps Settings) (panelPlot, error), l Labels, marks bool, s Settings) (*plot.Plot, []legendEntry, error) {
	rows := (n + cols - 1) / cols
	if need := float64(rows) * minPanelHeight; s.Height < need {
		return nil, nil, &LayoutError{
			Problem: fmt.Sprintf("%d panels in %d rows of %d need %.1f in, more than the figure's height (%.2f in)", n, rows, cols, need, s.Height),
			Height:  need,
		}
	}
	ps := s // each panel's Settings: its share of the figure, for the checks of its labels
	ps.Width, ps.Height = s.Width/float64(cols), s.Height/float64(rows)
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
	}
	var entries []legendEntry
	names := map[string]Style{}
	for k := range n {
		pl := l
		pl.Title, pl.Key = title(k), nil
		pp, err := build(k, pl, ps)
		var le *LayoutError
		if errors.As(err, &le) { // the panel's share does not fit: ask for the whole figure
			return nil, nil, panelError{&LayoutError{Problem: fmt.Sprintf("panel %d (%q): %s", k, title(k), le.Problem),
				Width: le.Width * float64(cols), Height: le.Height * float64(rows)}}
		}
		if errors.Is(err, errNoSeries) {
			return nil, nil, fmt.Errorf("plots: panel %d (%q) has no series", k, title(k))
		}
		if err != nil {
			return nil, nil, fmt.Errorf("plots: panel %d (%q): %w", k, title(k), err)
		}
		for i, name := range pp.names {
			st := pp.styles[i]
			if prev, ok := names[name]; ok {
				if prev != st {
					return nil, nil, fmt.Errorf("plots: panel %d (%q): series %q has style %+v, in an earlier panel %+v", k, title(k), name, st, prev)
				}
				continue
			}
			names[name] = st
			entries = append(entries, pp.entries[i])
		}
		grid[k/cols][k%cols] = pp.p
	}
	if _, unnamed := names[""]; unnamed && len(names) > 1 {
		return nil, nil, errors.New("plots: a series without a name among several: name every series of a figure with a legend")
	}
	t := newTheme(s)
	p, err := t.newPlot(Labels{Title: l.Title})
	if err != nil {
		return nil, nil, err
	}
	p.HideAxes()
	if l.Key != nil {
		entries = l.Key.entries(t, false, marks)
	}
	if err := addLegend(t, p, entries, lineThumbW(t)); err != nil {
		return nil, nil, err
	}
	p.Add(&panelGrid{grid: grid, gap: t.em})
	return p, entries, nil
}

// panelCols is the number of columns of a figure of n panels at s: as many panels as fit at
// minPanelWidth each, at most n.
func panelCols(n int, s Settings) int {
	return min(n, max(1, int(s.Width/minPanelWidth)))
}

// panelGrid is a plot.Plotter that draws its plots in a grid filling the data area, their data
// areas aligned (plot.Align).
type panelGrid struct {
	grid [][]*plot.Plot
	gap  vg.Length
}

// Plot implements plot.Plotter.
func (g *panelGrid) Plot(c draw.Canvas, _ *plot.Plot) {
	tiles := draw.Tiles{Rows: len(g.grid), Cols: len(g.grid[0]), PadX: g.gap, PadY: g.gap}
	cs := plot.Align(g.grid, tiles, c)
	for r, row := range g.grid {
		for k, p := range row {
			if p != nil {
				p.Draw(cs[r][k])
			}
		}
	}
}
