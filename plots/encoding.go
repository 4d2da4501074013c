package plots

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// Style is how one series is drawn: in colour Color(Color), with shape Shape — the dash pattern
// Dashes(Shape), the marker Marker(Shape) and, for bars, hatching Shape. A series whose *Style
// is nil is drawn in style {i, i} by its position i, so that series differ in both; a figure
// whose colours and shapes encode two factors gives every series its Style and the figure a Key.
type Style struct {
	Color, Shape int
}

// styleOf is the style of series i given its *Style.
func styleOf(s *Style, i int) Style {
	if s == nil {
		return Style{Color: i, Shape: i}
	}
	return *s
}

// Key is a legend by factor: rather than one entry per series, one entry per colour (a factor's
// values, e.g. the loss variants) followed by one entry per shape (another factor's values, e.g.
// the temperatures), each drawn alone: colours as solid lines or plain boxes, shapes in grey.
type Key struct {
	Colors, Shapes []KeyEntry
}

// KeyEntry names one colour or shape of a Key.
type KeyEntry struct {
	Name  string
	Index int // the Style.Color or Style.Shape it names
}

// keyGrey is the colour of a Key's shape entries.
var keyGrey = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xFF}

// entries returns the legend entries of k for a figure of bars (boxes) or of lines, with
// markers when marks.
func (k *Key) entries(t theme, boxes, marks bool) []legendEntry {
	var out []legendEntry
	add := func(e KeyEntry, c color.RGBA, shape int, solid bool) {
		var thumbs []plot.Thumbnailer
		if boxes {
			b := &bars{fill: c, space: t.em * 0.35, hatchW: t.thin * 0.6, edge: draw.LineStyle{Color: color.Black, Width: t.thin / 2}}
			if !solid {
				b.fill, b.hatch = color.RGBA{R: 0xFF, G: 0xFF, B: 0xFF, A: 0xFF}, hatchAngles(shape)
			}
			thumbs = append(thumbs, b)
		} else {
			ls := draw.LineStyle{Color: c, Width: t.lineW}
			if !solid {
				ls.Dashes = Dashes(shape)
			}
			thumbs = append(thumbs, &plotter.Line{LineStyle: ls})
			if marks && !solid {
				thumbs = append(thumbs, &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: c, Radius: t.markerR, Shape: Marker(shape)}})
			}
		}
		out = append(out, legendEntry{name: e.Name, thumbs: thumbs})
	}
	for _, e := range k.Colors {
		add(e, Color(e.Index), 0, true)
	}
	for _, e := range k.Shapes {
		add(e, keyGrey, e.Index, false)
	}
	return out
}
