package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Labels are the texts of a figure.
type Labels struct {
	// Title is drawn above the legend; empty for none (a paper's caption usually replaces it).
	Title string
	// X labels the x axis: required by Lines, optional for GroupedBars.
	X string
	// Y labels the y axis, with its units, e.g. "Recall@10" or "TV distance"; required.
	Y string
	// Key, if not nil, is the legend: one entry per colour and per shape of the series' Styles
	// instead of one per series (whose names may then be empty).
	Key *Key
}

// BarData is the input of GroupedBars: one value per (series, group), e.g. Recall@10 of each
// variant (series) on each popularity slice (group).
type BarData struct {
	// Groups names the groups along the x axis, in order, e.g. head, torso, tail, all.
	Groups []string
	// Series are drawn side by side within each group, in order, series i in Color(i) with
	// hatching i.
	Series []BarSeries
	// Refs are reference levels drawn over the bars of each group, ref r as a grey line with
	// Dashes(r+1), each named in the legend after the series (or after the Key's entries).
	Refs []BarRef
	// Interval names the error bars in the legend, after the references, e.g. "95% CI across
	// seeds", so that the figure says what they are; empty for no entry. The entry is drawn only
	// when some series has error bars.
	Interval string
}

// BarRef is a reference level drawn across each group as a horizontal line, not as a bar: e.g. a
// sanity baseline (the most-popular ranking, a random one) that every bar is read against.
type BarRef struct {
	// Name is the legend entry; required.
	Name string
	// Values holds the level in each group; NaN draws no line in that group.
	Values []float64
}

// BarSeries is one bar per group.
type BarSeries struct {
	// Name is the legend entry; it may be empty only when there is a single series (no legend).
	Name string
	// Values holds the bar heights, one per group.
	Values []float64
	// Lo and Hi are the ends of the error bars, e.g. a 95% confidence interval across seeds,
	// with Lo[g] ≤ Values[g] ≤ Hi[g]; both nil for no error bars.
	Lo, Hi []float64
	// Style is the series' colour and hatching; nil for the series' position (see Style).
	Style *Style
}

// BarPoint is one bar given in long format: the value of a series in a group, with the ends
// of its error bar.
type BarPoint struct {
	Series, Group string
	Value         float64
	// Lo and Hi are the ends of the error bar; both NaN when there is none (e.g. a single
	// seed), which must then hold for every point of the series.
	Lo, Hi float64
}

// NewBarData gathers long-format points, one per (series, group), into BarData: groups in the
// given order, series in the order of their first point. A missing or repeated (series, group)
// pair, a group not in groups, or a series with error bars on some bars only is an error.
func NewBarData(groups []string, points []BarPoint) (BarData, error) {
	if err := checkNames("group", groups, false); err != nil {
		return BarData{}, err
	}
	gi := make(map[string]int, len(groups))
	for i, g := range groups {
		gi[g] = i
	}
	d := BarData{Groups: groups}
	si := make(map[string]int)
	var seen [][]bool // seen[series][group]
	var noCI []int    // per series: number of points without an interval
	for _, pt := range points {
		g, ok := gi[pt.Group]
		if !ok {
			return BarData{}, fmt.Errorf("plots: point of series %q: unknown group %q", pt.Series, pt.Group)
		}
		s, ok := si[pt.Series]
		if !ok {
			s = len(d.Series)
			si[pt.Series] = s
			n := len(groups)
			d.Series = append(d.Series, BarSeries{
				Name: pt.Series, Values: make([]float64, n), Lo: make([]float64, n), Hi: make([]float64, n),
			})
			seen = append(seen, make([]bool, n))
			noCI = append(noCI, 0)
		}
		if seen[s][g] {
			return BarData{}, fmt.Errorf("plots: series %q, group %q given twice", pt.Series, pt.Group)
		}
		seen[s][g] = true
		bs := &d.Series[s]
		bs.Values[g], bs.Lo[g], bs.Hi[g] = pt.Value, pt.Lo, pt.Hi
		if math.IsNaN(pt.Lo) && math.IsNaN(pt.Hi) {
			noCI[s]++
		}
	}
	for s := range d.Series {
		bs := &d.Series[s]
		for g, ok := range seen[s] {
			if !ok {
				return BarData{}, fmt.Errorf("plots: series %q has no point for group %q", bs.Name, groups[g])
			}
		}
		switch noCI[s] {
		case 0:
		case len(groups):
			bs.Lo, bs.Hi = nil, nil
		default:
			return BarData{}, fmt.Errorf("plots: series %q has error bars on some groups only", bs.Name)
		}
	}
	return d, nil
}

// GroupedBars returns a bar chart with one group of bars per d.Groups entry and, within each
// group, one bar per series with its error bar, labelled by l and sized by s (whose zero value
// works; Save the figure with the same Settings). The y axis runs from 0, or from a labelled
// tick below the lowest bar or error bar if that is negative, to a labelled tick above the
// highest; with s.YRange "data", from a labelled tick below the lowest bar or error bar, the
// bars standing on the axis's lower end.
func GroupedBars(d BarData, l Labels, s Settings) (*plot.Plot, error) {
	if err := d.validate(); err != nil {
		return nil, err
	}
	t, p, err := newFigure(l, false, s)
	if err != nil {
		return nil, err
	}

	ticks := make([]plot.Tick, len(d.Groups))
	for g, name := range d.Groups {
		ticks[g] = plot.Tick{Value: float64(g), Label: name}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Tick.Length = 0
	p.X.Tick.Label.Font = t.text // group names read as labels, not as numbers
	p.X.Padding = 0              // bars stand on the x axis
	p.Y.Padding = 0
	p.Add(&plotter.Grid{Horizontal: t.gridLine})

	const groupWidth = 0.8 // fraction of the space between groups taken by a group's bars
	w := groupWidth / float64(len(d.Series))
	var entries []legendEntry
	var errBars []plot.Plotter
	var intervals *plotter.YErrorBars // the first series' error bars, the legend's thumbnail
	for i, bs := range d.Series {
		st := styleOf(bs.Style, i)
		b := &bars{
			values: bs.Values,
			offset: -groupWidth/2 + (float64(i)+0.5)*w,
			width:  w,
			fill:   Color(st.Color),
			edge:   draw.LineStyle{Color: color.Black, Width: t.thin / 2},
			hatch:  hatchAngles(st.Shape),
			space:  t.em * 0.35,
			hatchW: t.thin * 0.6,
		}
		p.Add(b)
		entries = append(entries, legendEntry{name: bs.Name, thumbs: []plot.Thumbnailer{b}})
		if bs.Lo == nil {
			continue
		}
		eb, err := errorBars(bs, b.offset)
		if err != nil {
			return nil, err
		}
		eb.LineStyle = draw.LineStyle{Color: color.Black, Width: t.thin}
		eb.CapWidth = min(barWidth(t, len(d.Groups), len(d.Series))*0.6, t.em*0.5)
		errBars = append(errBars, eb)
		if intervals == nil {
			intervals = eb
		}
	}
	p.Add(errBars...) // above every bar
	if l.Key != nil {
		entries = l.Key.entries(t, true, false)
	}
	for r, ref := range d.Refs {
		style := draw.LineStyle{Color: color.Gray{Y: 0x30}, Width: t.lineW, Dashes: Dashes(r + 1)}
		for g, v := range ref.Values {
			if math.IsNaN(v) {
				continue
			}
			x := float64(g)
			p.Add(&plotter.Line{XYs: plotter.XYs{{X: x - groupWidth/2 - 0.04, Y: v}, {X: x + groupWidth/2 + 0.04, Y: v}}, LineStyle: style})
		}
		entries = append(entries, legendEntry{name: ref.Name, thumbs: []plot.Thumbnailer{&plotter.Line{LineStyle: style}}})
	}
	if d.Interval != "" && intervals != nil {
		entries = append(entries, legendEntry{name: d.Interval, thumbs: []plot.Thumbnailer{errorBarThumb{intervals}}})
	}
	if err := addLegend(t, p, entries, t.em*1.1); err != nil {
		return nil, err
	}
	p.X.Min, p.X.Max = -0.5, float64(len(d.Groups))-0.5
	if t.s.YRange == YRangeData {
		lo, hi := d.extent()
		// A margin below the lowest value, so that its bar shows, but not below 0 for
		// values that are not negative.
		low := lo - 0.1*(hi-lo)
		if lo >= 0 {
			low = math.Max(low, 0)
		}
		p.Y.Min, p.Y.Max = niceLinear(low, hi)
	} else {
		p.Y.Min, p.Y.Max = niceLinear(math.Min(p.Y.Min, 0), p.Y.Max)
	}
	return p, nil
}

// extent returns the lowest and highest value drawn: bars and error bars.
func (d BarData) extent() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, bs := range d.Series {
		for _, vs := range [][]float64{bs.Values, bs.Lo, bs.Hi} {
			for _, v := range vs {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	for _, r := range d.Refs {
		for _, v := range r.Values {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	return lo, hi
}

// barWidth estimates the printed width of one bar, for sizing error bar caps: the data area
// takes about 85% of the figure's width.
func barWidth(t theme, groups, series int) vg.Length {
	return vg.Length(t.s.Width) * vg.Inch * 0.85 / vg.Length(groups) * 0.8 / vg.Length(series)
}

// errorBars returns the error bars of bs, whose bars are offset from their group's centre.
func errorBars(bs BarSeries, offset float64) (*plotter.YErrorBars, error) {
	pts := struct {
		plotter.XYs
		plotter.YErrors
	}{make(plotter.XYs, len(bs.Values)), make(plotter.YErrors, len(bs.Values))}
	for g, v := range bs.Values {
		pts.XYs[g] = plotter.XY{X: float64(g) + offset, Y: v}
		pts.YErrors[g].Low, pts.YErrors[g].High = v-bs.Lo[g], bs.Hi[g]-v
	}
	eb, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return nil, fmt.Errorf("plots: series %q: error bars: %w", bs.Name, err)
	}
	return eb, nil
}

// errorBarThumb draws the legend's thumbnail of error bars: one vertical bar with its caps, of
// the figure's line style and cap width.
type errorBarThumb struct{ eb *plotter.YErrorBars }

// Thumbnail implements plot.Thumbnailer.
func (e errorBarThumb) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	lo, hi := c.Min.Y, c.Max.Y
	w := e.eb.CapWidth / 2
	c.StrokeLines(e.eb.LineStyle, []vg.Point{{X: x, Y: lo}, {X: x, Y: hi}},
		[]vg.Point{{X: x - w, Y: lo}, {X: x + w, Y: lo}}, []vg.Point{{X: x - w, Y: hi}, {X: x + w, Y: hi}})
}

// validate checks d for GroupedBars.
func (d BarData) validate() error {
	if len(d.Groups) == 0 {
		return errors.New("plots: bar data has no groups")
	}
	if err := checkNames("group", d.Groups, false); err != nil {
		return err
	}
	if len(d.Series) == 0 {
		return errors.New("plots: bar data has no series")
	}
	names := make([]string, len(d.Series))
	for i, bs := range d.Series {
		names[i] = bs.Name
	}
	if err := checkNames("series", names, len(d.Series) == 1); err != nil {
		return err
	}
	for i, bs := range d.Series {
		name := seriesName(bs.Name, i)
		if len(bs.Values) != len(d.Groups) {
			return fmt.Errorf("plots: series %s: %d values for %d groups", name, len(bs.Values), len(d.Groups))
		}
		group := func(g int) string { return fmt.Sprintf("group %q", d.Groups[g]) }
		if err := checkInterval(name, "Values", group, bs.Values, bs.Lo, bs.Hi); err != nil {
			return err
		}
	}
	for _, r := range d.Refs {
		if r.Name == "" {
			return errors.New("plots: a reference level has no name")
		}
		if len(r.Values) != len(d.Groups) {
			return fmt.Errorf("plots: reference %s: %d values for %d groups", r.Name, len(r.Values), len(d.Groups))
		}
		for g, v := range r.Values {
			if math.IsInf(v, 0) {
				return fmt.Errorf("plots: reference %s: group %q: %v", r.Name, d.Groups[g], v)
			}
		}
	}
	return nil
}

// checkNames rejects empty (unless emptyOK) and repeated names.
func checkNames(kind string, names []string, emptyOK bool) error {
	seen := make(map[string]bool, len(names))
	for i, n := range names {
		if n == "" && !emptyOK {
			return fmt.Errorf("plots: %s %d has no name", kind, i)
		}
		if seen[n] {
			return fmt.Errorf("plots: %s %q appears twice", kind, n)
		}
		seen[n] = true
	}
	return nil
}

// seriesName returns the quoted name of series i, or its index if it has none.
func seriesName(name string, i int) string {
	if name == "" {
		return fmt.Sprint(i)
	}
	return fmt.Sprintf("%q", name)
}

// checkInterval checks that the values vs, named field, and their interval ends lo and hi
// (both nil, or as long as vs) are finite with lo ≤ v ≤ hi. where names point i in errors.
func checkInterval(series, field string, where func(i int) string, vs, lo, hi []float64) error {
	if (lo == nil) != (hi == nil) {
		return fmt.Errorf("plots: series %s: Lo and Hi must be given together", series)
	}
	if lo != nil && (len(lo) != len(vs) || len(hi) != len(vs)) {
		return fmt.Errorf("plots: series %s: len(Lo) = %d, len(Hi) = %d, want len(%s) = %d",
			series, len(lo), len(hi), field, len(vs))
	}
	for i, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("plots: series %s, %s: %s is %v", series, where(i), field, v)
		}
		if lo == nil {
			continue
		}
		for _, e := range []struct {
			name string
			v    float64
		}{{"Lo", lo[i]}, {"Hi", hi[i]}} {
			if math.IsNaN(e.v) || math.IsInf(e.v, 0) {
				return fmt.Errorf("plots: series %s, %s: %s is %v", series, where(i), e.name, e.v)
			}
		}
		if !(lo[i] <= v && v <= hi[i]) {
			return fmt.Errorf("plots: series %s, %s: interval [Lo, Hi] = [%v, %v] does not contain %s = %v",
				series, where(i), lo[i], hi[i], field, v)
		}
	}
	return nil
}

// bars is a plot.Plotter drawing one bar per group, with widths and offsets in x data units
// (group g is centred at x = g), so that they scale with the data area; plotter.BarChart takes
// them in printed lengths, which depend on the final layout.
type bars struct {
	values        []float64
	offset, width float64 // centre of the bars relative to their group, and their width
	fill          color.RGBA
	edge          draw.LineStyle
	hatch         []float64 // angles of the hatching lines, in degrees
	space         vg.Length // between hatching lines
	hatchW        vg.Length // width of hatching lines
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	base := math.Min(math.Max(0, p.Y.Min), p.Y.Max) // bars stand on 0, or on the axis's end
	for g, v := range b.values {
		x := float64(g) + b.offset
		x0, x1 := trX(x-b.width/2), trX(x+b.width/2)
		y0, y1 := trY(base), trY(v)
		b.draw(&c, vg.Rectangle{Min: vg.Point{X: x0, Y: min(y0, y1)}, Max: vg.Point{X: x1, Y: max(y0, y1)}})
	}
}

// Thumbnail implements plot.Thumbnailer.
func (b *bars) Thumbnail(c *draw.Canvas) {
	b.draw(c, c.Rectangle)
}

// DataRange implements plot.DataRanger.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymin, ymax = 0, 0
	for _, v := range b.values {
		ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
	}
	return -0.5, float64(len(b.values)) - 0.5, ymin, ymax
}

// draw fills r, hatches it and outlines it.
func (b *bars) draw(c *draw.Canvas, r vg.Rectangle) {
	corners := []vg.Point{r.Min, {X: r.Min.X, Y: r.Max.Y}, r.Max, {X: r.Max.X, Y: r.Min.Y}}
	c.FillPolygon(b.fill, corners)
	hs := draw.LineStyle{Color: hatchColor(b.fill), Width: b.hatchW}
	for _, a := range b.hatch {
		c.StrokeLines(hs, hatchLines(r, a, b.space)...)
	}
	c.StrokeLines(b.edge, append(corners, r.Min))
}

// hatchLines returns the segments of the lines at angle deg (degrees from the x axis) spaced
// space apart that cross r. The lines sit at multiples of space from the origin, so the
// hatching of neighbouring bars lines up.
func hatchLines(r vg.Rectangle, deg float64, space vg.Length) [][]vg.Point {
	sin, cos := math.Sincos(deg * math.Pi / 180)
	// A line is {q : q·n = k·space} for the unit normal n, traversed along the direction d.
	nx, ny := -sin, cos
	proj := func(x, y vg.Length) float64 { return float64(x)*nx + float64(y)*ny }
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, q := range []vg.Point{r.Min, r.Max, {X: r.Min.X, Y: r.Max.Y}, {X: r.Max.X, Y: r.Min.Y}} {
		lo, hi = math.Min(lo, proj(q.X, q.Y)), math.Max(hi, proj(q.X, q.Y))
	}
	sp := float64(space)
	var segs [][]vg.Point
	for k := math.Ceil(lo / sp); k*sp <= hi; k++ {
		// Point of the line closest to the origin, then clip the parameter t of
		// (x0 + t·cos, y0 + t·sin) to r (Liang–Barsky).
		x0, y0 := k*sp*nx, k*sp*ny
		t0, t1 := math.Inf(-1), math.Inf(1)
		for _, ax := range [2][4]float64{
			{x0, cos, float64(r.Min.X), float64(r.Max.X)},
			{y0, sin, float64(r.Min.Y), float64(r.Max.Y)},
		} {
			p, dir, mn, mx := ax[0], ax[1], ax[2], ax[3]
			if math.Abs(dir) < 1e-12 {
				if p < mn || p > mx {
					t0, t1 = 1, 0
				}
				continue
			}
			a, b := (mn-p)/dir, (mx-p)/dir
			t0, t1 = math.Max(t0, math.Min(a, b)), math.Min(t1, math.Max(a, b))
		}
		if t0 < t1 {
			segs = append(segs, []vg.Point{
				{X: vg.Length(x0 + t0*cos), Y: vg.Length(y0 + t0*sin)},
				{X: vg.Length(x0 + t1*cos), Y: vg.Length(y0 + t1*sin)},
			})
		}
	}
	return segs
}
