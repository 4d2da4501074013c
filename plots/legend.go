package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legendEntry is one item of a legend: a name and the thumbnails drawn, in order, beside it.
type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// legend is a plot.Plotter that draws its entries in a grid, row by row, in a band between the
// title and the data area (LegendTop) or beside the data area, on its right (LegendRight). Its
// glyph box makes the plot shrink the data area by the band's height or width, so the legend
// never covers data. gonum's own plot.Legend is drawn inside the data area and stacks entries
// vertically, which at a column's width hides data or wastes height.
type legend struct {
	entries []legendEntry
	style   text.Style
	right   bool      // beside the data area rather than above it
	figW    vg.Length // width of the whole figure
	figH    vg.Length // height of the whole figure
	margin  vg.Length // minimum distance from the figure's edges
	thumbW  vg.Length
	thumbH  vg.Length
	textGap vg.Length // between a thumbnail and its name
	colGap  vg.Length // between columns
	rowH    vg.Length
	gap     vg.Length // between the band and the data area
	cols    int
	colW    []vg.Length
}

// Legend placements, the values of Settings.Legend.
const (
	// LegendTop puts the legend in a band above the data area, in as many columns as fit the
	// figure's width.
	LegendTop Legend = "top"
	// LegendRight puts the legend beside the data area, on its right, in as few columns as the
	// data area's height allows.
	LegendRight Legend = "right"
)

// Shares of the figure a legend may take.
const (
	// maxLegendShare is the largest fraction of a figure's height a legend above the data may
	// take.
	maxLegendShare = 0.35
	// maxBesideShare is the largest fraction of a figure's width a legend beside the data may
	// take.
	maxBesideShare = 0.45
)

// newLegend lays entries out at the placement of t.s.Legend: above the data in as many columns
// as fit the width of the figure, or beside it in as many rows as fit its height. A legend that
// does not fit is a *LayoutError giving the figure size it needs.
func newLegend(t theme, p *plot.Plot, entries []legendEntry, thumbW vg.Length) (*legend, error) {
	sty := p.X.Label.TextStyle
	sty.XAlign = draw.XLeft
	sty.YAlign = draw.YCenter
	l := &legend{
		entries: entries,
		style:   sty,
		right:   t.s.Legend == LegendRight,
		figW:    vg.Length(t.s.Width) * vg.Inch,
		figH:    vg.Length(t.s.Height) * vg.Inch,
		margin:  t.s.margin(),
		thumbW:  thumbW,
		thumbH:  t.em * 0.75,
		textGap: t.em * 0.4,
		colGap:  t.em * 1.2,
		rowH:    sty.Height("Mg") * 1.15,
		gap:     t.em * 0.6,
	}
	if l.right {
		return l, l.layoutRight(t, p)
	}
	return l, l.layoutTop()
}

// addLegend adds the legend of entries to p, unless there are none (an empty Key) or the figure
// has a single unnamed series.
func addLegend(t theme, p *plot.Plot, entries []legendEntry, thumbW vg.Length) error {
	if len(entries) == 0 || len(entries) == 1 && entries[0].name == "" {
		return nil
	}
	lg, err := newLegend(t, p, entries, thumbW)
	if err != nil {
		return err
	}
	p.Add(lg)
	return nil
}

// layoutTop chooses the fewest rows whose grid fits the figure's width, and checks the band's
// height.
func (l *legend) layoutTop() error {
	avail := l.figW - 2*l.margin
	for cols := len(l.entries); cols >= 1; cols-- {
		rows := (len(l.entries) + cols - 1) / cols
		l.cols = (len(l.entries) + rows - 1) / rows // the fewest columns giving this many rows
		l.colW = l.columnWidths()
		if l.width() > avail {
			continue
		}
		if h := l.gap + l.height(); h > maxLegendShare*l.figH {
			return &LayoutError{
				Problem: fmt.Sprintf("the legend's %d×%d grid needs %.2f in, more than %.0f%% of the figure's height (%.2f in)",
					l.cols, l.rows(), h/vg.Inch, maxLegendShare*100, l.figH/vg.Inch),
				Height: inches(h / maxLegendShare),
			}
		}
		return nil
	}
	name := l.widest()
	return &LayoutError{
		Problem: fmt.Sprintf("legend entry %q is wider than the figure (%.2f in)", name, l.figW/vg.Inch),
		Width:   inches(l.thumbW + l.textGap + l.style.Width(name) + 2*l.margin),
	}
}

// layoutRight chooses the fewest columns whose rows fit beside the data area, and checks the
// grid's width.
func (l *legend) layoutRight(t theme, p *plot.Plot) error {
	// The data area's height: the figure's, less the title and the x axis's tick labels and
	// label (at most about three lines of text).
	availH := l.figH - 2*l.margin - 3*t.em
	if p.Title.Text != "" {
		availH -= p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
	}
	perCol := int(availH / l.rowH)
	if perCol < 1 {
		return &LayoutError{
			Problem: fmt.Sprintf("the figure (%.2f in high) leaves no room for a legend beside the plot", l.figH/vg.Inch),
			Height:  inches(l.figH - availH + l.rowH),
		}
	}
	n := len(l.entries)
	rows := (n + (n+perCol-1)/perCol - 1) / ((n + perCol - 1) / perCol) // in the fewest columns
	l.cols = (n + rows - 1) / rows                                      // the fewest columns giving this many rows
	l.colW = l.columnWidths()
	if w := l.gap + l.width(); w > maxBesideShare*(l.figW-2*l.margin) {
		return &LayoutError{
			Problem: fmt.Sprintf("the legend's %d×%d grid needs %.2f in beside the plot, more than %.0f%% of the figure's width (%.2f in)",
				l.cols, l.rows(), w/vg.Inch, maxBesideShare*100, l.figW/vg.Inch),
			Width: inches(w/maxBesideShare + 2*l.margin),
		}
	}
	return nil
}

// inches converts a length to inches, rounded up to a tenth.
func inches(x vg.Length) float64 {
	return math.Ceil(float64(x/vg.Inch)*10-1e-9) / 10
}

// LayoutError is the error of a figure whose texts (legend, title or axis labels) do not fit
// its size. Fit catches it and draws the figure another way.
type LayoutError struct {
	// Problem says what does not fit, e.g. "the legend's 3×15 grid needs 2.19 in, more than
	// 35% of the figure's height (2.60 in)".
	Problem string
	// Width and Height are the smallest figure width and height in inches at which the text in
	// question fits; 0 where that side is not the problem.
	Width, Height float64
}

// Error implements error.
func (e *LayoutError) Error() string {
	return "plots: " + e.Problem + ": shorten the text or enlarge the figure"
}

// widest returns the name of the widest entry.
func (l *legend) widest() string {
	var name string
	var w vg.Length
	for _, e := range l.entries {
		if ew := l.style.Width(e.name); ew >= w {
			name, w = e.name, ew
		}
	}
	return name
}

// columnWidths returns the width of each column of the grid for l.cols columns.
func (l *legend) columnWidths() []vg.Length {
	w := make([]vg.Length, l.cols)
	for i, e := range l.entries {
		col, _ := l.cell(i)
		if ew := l.thumbW + l.textGap + l.style.Width(e.name); ew > w[col] {
			w[col] = ew
		}
	}
	return w
}

// cell returns the column and row of entry i: row by row above the data, so that a reader
// reads the entries across as the bars stand; column by column beside it, read downwards.
func (l *legend) cell(i int) (col, row int) {
	if l.right {
		rows := l.rows()
		return i / rows, i % rows
	}
	return i % l.cols, i / l.cols
}

// rows returns the number of rows of the grid.
func (l *legend) rows() int {
	return (len(l.entries) + l.cols - 1) / l.cols
}

// width returns the width of the grid.
func (l *legend) width() vg.Length {
	w := l.colGap * vg.Length(l.cols-1)
	for _, cw := range l.colW {
		w += cw
	}
	return w
}

// height returns the height of the band, without the gap below it.
func (l *legend) height() vg.Length {
	return l.rowH * vg.Length(l.rows())
}

// rect returns the rectangle of the grid beside or above the data area c: centred on it, moved
// if needed to stay within the figure.
func (l *legend) rect(c draw.Canvas) vg.Rectangle {
	w := l.width()
	if l.right {
		x0 := c.Max.X + l.gap
		y0 := c.Center().Y - l.height()/2
		y0 = min(y0, l.figH-l.margin-l.height())
		y0 = max(y0, l.margin)
		return vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x0 + w, Y: y0 + l.height()}}
	}
	x0 := c.Center().X - w/2
	x0 = min(x0, l.figW-l.margin-w)
	x0 = max(x0, l.margin)
	y0 := c.Max.Y + l.gap
	return vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x0 + w, Y: y0 + l.height()}}
}

// Plot implements plot.Plotter; c is the data area.
func (l *legend) Plot(c draw.Canvas, _ *plot.Plot) {
	r := l.rect(c)
	for i, e := range l.entries {
		at := l.entryAt(r, i)
		x, y := at.X, at.Y
		thumb := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x, Y: y - l.thumbH/2},
			Max: vg.Point{X: x + l.thumbW, Y: y + l.thumbH/2},
		}}
		for _, t := range e.thumbs {
			t.Thumbnail(&thumb)
		}
		c.FillText(l.style, vg.Point{X: x + l.thumbW + l.textGap, Y: y + l.textShift()}, e.name)
	}
}

// entryAt returns where entry i goes in the grid r (see cell): the left end of its
// thumbnail, at the height of its row's centre line.
func (l *legend) entryAt(r vg.Rectangle, i int) vg.Point {
	col, row := l.cell(i)
	x := r.Min.X + l.colGap*vg.Length(col)
	for _, cw := range l.colW[:col] {
		x += cw
	}
	return vg.Point{X: x, Y: r.Max.Y - (vg.Length(row)+0.5)*l.rowH}
}

// GlyphBoxes implements plot.GlyphBoxer: one box on top of the data area, as high as the band
// and its gap, and of zero width so that it does not affect horizontal padding; or, beside the
// data area, one box on its right, as wide as the grid and its gap, and of zero height.
func (l *legend) GlyphBoxes(*plot.Plot) []plot.GlyphBox {
	if l.right {
		return []plot.GlyphBox{{
			X: 1,
			Y: 0.5,
			Rectangle: vg.Rectangle{
				Min: vg.Point{X: l.gap},
				Max: vg.Point{X: l.gap + l.width()},
			},
		}}
	}
	return []plot.GlyphBox{{
		X: 0.5,
		Y: 1,
		Rectangle: vg.Rectangle{
			Min: vg.Point{Y: l.gap},
			Max: vg.Point{Y: l.gap + l.height()},
		},
	}}
}

// textShift returns how far to raise a vertically centred entry name so that the middle of its
// capitals and digits, rather than the middle of its font's full extent, lines up with the
// centre of its thumbnail. (text.Plain puts the baseline of YCenter text at
// y - (ascent+descent)/2 - ascent + size; capitals reach about 0.7 size above it.)
func (l *legend) textShift() vg.Length {
	e := l.style.FontExtents()
	size := l.style.Font.Size
	baseline := -(e.Ascent+e.Descent)/2 - e.Ascent + size
	return -(baseline + 0.35*size)
}
