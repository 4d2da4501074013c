package plots

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Long series, such as an estimator's error at each of 20,000 training steps, have many more
// points than a figure has pixel columns: drawing them all is slow (the rasteriser's cost grows
// with the points per row) and makes SVG and PDF files of megabytes. M4 aggregation (Jugel et
// al. 2014, "M4: A Visualization-Oriented Time Series Data Aggregation", PVLDB 7(10)) keeps, in
// each pixel column, the first, last, lowest and highest point: for one-pixel aliased lines
// the polyline through them covers exactly the pixels of the full one; for the thicker
// anti-aliased strokes drawn here a few edge pixels differ (under 0.1% of a figure's pixels in
// TestM4LooksTheSame). The columns are those of a raster at Settings.DPI, for SVG and PDF too,
// which therefore look the same as the full series when printed at that resolution.

// m4 returns the indices, in increasing order, of the points of xys (x increasing) kept by M4
// aggregation into columns of width col in device units, where trX maps x to device units.
func m4(xys plotter.XYs, trX func(float64) vg.Length, col vg.Length) []int {
	column := func(x float64) float64 { return math.Floor(float64(trX(x) / col)) }
	var keep []int
	for start := 0; start < len(xys); {
		bin := column(xys[start].X)
		lo, hi, end := start, start, start+1
		for ; end < len(xys) && column(xys[end].X) == bin; end++ {
			if xys[end].Y < xys[lo].Y {
				lo = end
			}
			if xys[end].Y > xys[hi].Y {
				hi = end
			}
		}
		// first, then the extremes in order of index, then last; without repeats.
		for _, i := range []int{start, min(lo, hi), max(lo, hi), end - 1} {
			if len(keep) == 0 || i > keep[len(keep)-1] {
				keep = append(keep, i)
			}
		}
		start = end
	}
	return keep
}

// pick returns the points of xys at the indices idx.
func pick(xys plotter.XYs, idx []int) plotter.XYs {
	out := make(plotter.XYs, len(idx))
	for i, j := range idx {
		out[i] = xys[j]
	}
	return out
}

// m4Line is a plotter.Line that draws its M4 aggregate; its data range, glyph boxes and legend
// thumbnail are those of the full line.
type m4Line struct {
	*plotter.Line
	col vg.Length // width of a pixel column
}

// Plot implements plot.Plotter.
func (l *m4Line) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	agg := *l.Line
	agg.XYs = pick(l.XYs, m4(l.XYs, trX, l.col))
	agg.Plot(c, p)
}

// m4Band is a band between lower and upper bounds, filled translucent, drawn with the M4
// aggregates of both bounds; its data range and legend thumbnail are those of the full band.
type m4Band struct {
	*plotter.Polygon // the full band, as one ring: upper bound forwards, lower bound backwards
	lo, hi           plotter.XYs
	col              vg.Length
}

// ring returns the polygon of the band between lo and hi: hi forwards, then lo backwards.
func ring(lo, hi plotter.XYs) plotter.XYs {
	r := make(plotter.XYs, 0, len(lo)+len(hi))
	r = append(r, hi...)
	for i := len(lo) - 1; i >= 0; i-- {
		r = append(r, lo[i])
	}
	return r
}

// Plot implements plot.Plotter.
func (b *m4Band) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	agg := *b.Polygon
	agg.XYs = []plotter.XYs{ring(pick(b.lo, m4(b.lo, trX, b.col)), pick(b.hi, m4(b.hi, trX, b.col)))}
	agg.Plot(c, p)
}
