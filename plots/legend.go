package plots

import (
	"fmt"

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
// title and the data area. Its glyph box makes the plot shrink the data area by the band's
// height, so the legend never covers data. gonum's own plot.Legend is drawn inside the data
// area and stacks entries vertically, which at a column's width hides data or wastes height.
type legend struct {
	entries []legendEntry
	style   text.Style
	figW    vg.Length // width of the whole figure
	margin  vg.Length // minimum distance from the figure's left and right edges
	thumbW  vg.Length
	thumbH  vg.Length
	textGap vg.Length // between a thumbnail and its name
	colGap  vg.Length // between columns
	rowH    vg.Length
	gap     vg.Length // between the band and the data area
	cols    int
	colW    []vg.Length
}

// newLegend lays entries out in as many columns as fit the width of the figure. An entry too
// wide for the figure on its own is an error.
func newLegend(t theme, p *plot.Plot, entries []legendEntry, thumbW vg.Length) (*legend, error) {
	sty := p.X.Label.TextStyle
	sty.XAlign = draw.XLeft
	sty.YAlign = draw.YCenter
	l := &legend{
		entries: entries,
		style:   sty,
		figW:    vg.Length(t.s.Width) * vg.Inch,
		margin:  t.s.margin(),
		thumbW:  thumbW,
		thumbH:  t.em * 0.75,
		textGap: t.em * 0.4,
		colGap:  t.em * 1.2,
		rowH:    sty.Height("Mg") * 1.15,
		gap:     t.em * 0.6,
	}
	avail := l.figW - 2*l.margin
	for cols := len(entries); cols >= 1; cols-- {
		rows := (len(entries) + cols - 1) / cols
		l.cols = (len(entries) + rows - 1) / rows // the fewest columns giving this many rows
		l.colW = l.columnWidths()
		if l.width() > avail {
			continue
		}
		if h := l.gap + l.height(); h > maxLegendShare*vg.Length(t.s.Height)*vg.Inch {
			return nil, fmt.Errorf("plots: the legend's %d×%d grid needs %.2f in, more than %.0f%% of the figure's height "+
				"(%.2f in): shorten the series names or enlarge the figure", l.cols, l.rows(), h/vg.Inch, maxLegendShare*100, t.s.Height)
		}
		return l, nil
	}
	return nil, fmt.Errorf("plots: legend entry %q is wider than the figure (%.2f in): shorten it or widen the figure",
		l.widest(), t.s.Width)
}

// maxLegendShare is the largest fraction of a figure's height the legend band may take.
const maxLegendShare = 0.35

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
		if ew := l.thumbW + l.textGap + l.style.Width(e.name); ew > w[i%l.cols] {
			w[i%l.cols] = ew
		}
	}
	return w
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

// rect returns the rectangle of the grid above the data area c: centred over it, moved
// sideways if needed to stay within the figure.
func (l *legend) rect(c draw.Canvas) vg.Rectangle {
	w := l.width()
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

// entryAt returns where entry i goes in the grid r, row by row: the left end of its
// thumbnail, at the height of its row's centre line.
func (l *legend) entryAt(r vg.Rectangle, i int) vg.Point {
	col, row := i%l.cols, i/l.cols
	x := r.Min.X + l.colGap*vg.Length(col)
	for _, cw := range l.colW[:col] {
		x += cw
	}
	return vg.Point{X: x, Y: r.Max.Y - (vg.Length(row)+0.5)*l.rowH}
}

// GlyphBoxes implements plot.GlyphBoxer: one box on top of the data area, as high as the band
// and its gap, and of zero width so that it does not affect horizontal padding.
func (l *legend) GlyphBoxes(*plot.Plot) []plot.GlyphBox {
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
