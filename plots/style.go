package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// okabeIto returns the i-th colour of the Okabe–Ito palette (Wong 2011, Nature Methods 8:441,
// figure 2) in the order series take them: the three most distinct hues first, yellow (weak on
// white paper) last.
func okabeIto(i int) color.RGBA {
	switch i {
	case 0:
		return color.RGBA{R: 0x00, G: 0x72, B: 0xB2, A: 0xFF} // blue
	case 1:
		return color.RGBA{R: 0xD5, G: 0x5E, B: 0x00, A: 0xFF} // vermillion
	case 2:
		return color.RGBA{R: 0x00, G: 0x9E, B: 0x73, A: 0xFF} // bluish green
	case 3:
		return color.RGBA{R: 0xE6, G: 0x9F, B: 0x00, A: 0xFF} // orange
	case 4:
		return color.RGBA{R: 0xCC, G: 0x79, B: 0xA7, A: 0xFF} // reddish purple
	case 5:
		return color.RGBA{R: 0x56, G: 0xB4, B: 0xE9, A: 0xFF} // sky blue
	case 6:
		return color.RGBA{R: 0x00, G: 0x00, B: 0x00, A: 0xFF} // black
	default:
		return color.RGBA{R: 0xF0, G: 0xE4, B: 0x42, A: 0xFF} // yellow
	}
}

// Number of distinct colours, dash patterns, markers and hatchings. Dash patterns and
// hatchings cycle with period 7, coprime to the 8 colours, so that series i and i+8 still
// differ in pattern.
const (
	numColors   = 8
	numPatterns = 7
	numMarkers  = 8
)

// DistinctSeries is the number of series a figure draws each in its own (colour, pattern)
// pair: series i and i+DistinctSeries look alike.
const DistinctSeries = numColors * numPatterns

// DistinctColors and DistinctShapes are the numbers of distinct Style.Color and Style.Shape
// values: colours and shapes repeat after them.
const (
	DistinctColors = numColors
	DistinctShapes = numPatterns
)

// Color returns the colour of series i (i ≥ 0): the Okabe–Ito palette in the order blue,
// vermillion, bluish green, orange, reddish purple, sky blue, black, yellow, repeating after 8
// series.
func Color(i int) color.RGBA {
	return okabeIto(i % numColors)
}

// Dashes returns the dash pattern of line series i (i ≥ 0), as alternating dash and gap
// lengths: solid (nil), dashed, dotted, dash-dot, long dash, dash-dot-dot, short dash,
// repeating after 7 series. The returned slice is new on every call.
func Dashes(i int) []vg.Length {
	var pts []float64
	switch i % numPatterns {
	case 0:
		return nil
	case 1:
		pts = []float64{4, 1.5}
	case 2:
		pts = []float64{1, 1.2}
	case 3:
		pts = []float64{4, 1.2, 1, 1.2}
	case 4:
		pts = []float64{7, 2}
	case 5:
		pts = []float64{4, 1.2, 1, 1.2, 1, 1.2}
	default:
		pts = []float64{2.2, 1.4}
	}
	d := make([]vg.Length, len(pts))
	for j, p := range pts {
		d[j] = vg.Points(p)
	}
	return d
}

// Marker returns the marker shape of line series i (i ≥ 0): filled circle, filled square,
// filled triangle, ring, hollow square, hollow triangle, cross, plus, repeating after 8 series.
func Marker(i int) draw.GlyphDrawer {
	switch i % numMarkers {
	case 0:
		return draw.CircleGlyph{}
	case 1:
		return draw.BoxGlyph{}
	case 2:
		return draw.PyramidGlyph{}
	case 3:
		return draw.RingGlyph{}
	case 4:
		return draw.SquareGlyph{}
	case 5:
		return draw.TriangleGlyph{}
	case 6:
		return draw.CrossGlyph{}
	default:
		return draw.PlusGlyph{}
	}
}

// hatchAngles returns the directions, in degrees from the x axis, of the hatching lines of
// bar series i: none, /, \, −, |, ×, +, repeating after 7 series.
func hatchAngles(i int) []float64 {
	switch i % numPatterns {
	case 0:
		return nil
	case 1:
		return []float64{45}
	case 2:
		return []float64{135}
	case 3:
		return []float64{0}
	case 4:
		return []float64{90}
	case 5:
		return []float64{45, 135}
	default:
		return []float64{0, 90}
	}
}

// hatchColor returns the colour of hatching lines drawn over fill: white over dark fills,
// black over light ones, nearly opaque so that they keep the 3:1 contrast with the fill that
// WCAG 2.1 (success criterion 1.4.11) asks of graphical objects.
func hatchColor(fill color.RGBA) color.NRGBA {
	// ITU-R BT.601 luma of the 8-bit sRGB components.
	luma := 0.299*float64(fill.R) + 0.587*float64(fill.G) + 0.114*float64(fill.B)
	if luma < 0.4*255 {
		return color.NRGBA{R: 0xFF, G: 0xFF, B: 0xFF, A: 0xC0}
	}
	return color.NRGBA{A: 0xE0}
}

// bandColor returns c at the opacity of a confidence band.
func bandColor(c color.RGBA) color.NRGBA {
	return color.NRGBA{R: c.R, G: c.G, B: c.B, A: 0x40}
}

// theme holds the sizes derived from resolved Settings.
type theme struct {
	s        Settings
	text     font.Font // axis labels and legend entries
	tick     font.Font // tick labels
	title    font.Font
	em       vg.Length // FontSize in vg units
	thin     vg.Length // axes, ticks, error bars and bar outlines
	lineW    vg.Length // data lines
	markerR  vg.Length // marker radius
	gridLine draw.LineStyle
}

// newTheme derives a theme from resolved settings.
func newTheme(s Settings) theme {
	variant, _ := fontVariant(s.Font)
	face := func(size float64) font.Font {
		return font.Font{Typeface: "Liberation", Variant: font.Variant(variant), Size: vg.Points(size)}
	}
	em := vg.Points(s.FontSize)
	return theme{
		s:       s,
		text:    face(s.FontSize),
		tick:    face(s.FontSize * 7 / 8),
		title:   face(s.FontSize * 9 / 8),
		em:      em,
		thin:    vg.Points(0.6),
		lineW:   vg.Points(1.1),
		markerR: em * 0.28,
		gridLine: draw.LineStyle{
			Color: color.Gray{Y: 0xE0},
			Width: vg.Points(0.4),
		},
	}
}

// newFigure resolves s and returns its theme and an empty plot labelled by l. The y label is
// required, and so is the x label if needX.
func newFigure(l Labels, needX bool, s Settings) (theme, *plot.Plot, error) {
	if err := s.Resolve(); err != nil {
		return theme{}, nil, fmt.Errorf("plots: settings: %w", err)
	}
	if needX && l.X == "" {
		return theme{}, nil, errors.New("plots: labels: X is empty (label the x axis, with units)")
	}
	if l.Y == "" {
		return theme{}, nil, errors.New("plots: labels: Y is empty (label the y axis, with units)")
	}
	t := newTheme(s)
	p, err := t.newPlot(l)
	return t, p, err
}

// newXYFigure is newFigure for a figure of two numeric axes, both labelled, with the data kept
// a little away from them.
func newXYFigure(l Labels, s Settings) (theme, *plot.Plot, error) {
	t, p, err := newFigure(l, true, s)
	if err != nil {
		return t, nil, err
	}
	p.X.Padding = t.em * 0.3
	p.Y.Padding = t.em * 0.3
	return t, p, nil
}

// newPlot returns an empty plot with the theme's fonts, axes and labels; a label longer than
// the side of the figure it runs along is a *LayoutError.
func (t theme) newPlot(l Labels) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = l.Title
	p.Title.TextStyle.Font = t.title
	p.Title.Padding = t.em * 0.3
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = t.text
		a.Label.Padding = t.em * 0.3
		a.Tick.Label.Font = t.tick
		a.LineStyle.Width = t.thin
		a.Tick.LineStyle.Width = t.thin
		a.Tick.Length = t.em * 0.35
		a.Tick.Marker = linearTicks{}
	}
	p.X.Label.Text = l.X
	p.Y.Label.Text = l.Y
	for _, c := range []struct {
		field, text string
		sty         text.Style
		side        float64 // inches
	}{
		{"Title", l.Title, p.Title.TextStyle, t.s.Width},
		{"X", l.X, p.X.Label.TextStyle, t.s.Width},
		{"Y", l.Y, p.Y.Label.TextStyle, t.s.Height},
	} {
		if i := strings.IndexFunc(c.text, isCombining); i >= 0 {
			r, _ := utf8.DecodeRuneInString(c.text[i:])
			return nil, fmt.Errorf("plots: labels: %s %q has the combining mark %U at byte %d, which the figure's text drawing puts "+
				"beside the letter before it, not over it: write the label without it", c.field, c.text, r, i)
		}
		if w := c.sty.Width(c.text); c.text != "" && w > vg.Length(c.side)*vg.Inch-2*t.s.margin() {
			le := &LayoutError{Problem: fmt.Sprintf("labels: %s %q is %.2f in long, more than the %.2f in the figure's %.2f in leave inside its margins",
				c.field, c.text, w/vg.Inch, (vg.Length(c.side)*vg.Inch-2*t.s.margin())/vg.Inch, c.side)}
			if need := inches(w + 2*t.s.margin()); c.field == "Y" {
				le.Height = need
			} else {
				le.Width = need
			}
			return nil, le
		}
	}
	return p, nil
}

// isCombining reports whether r is a combining mark (Unicode category M: the hat of p̂, a
// decomposed accent), which gonum/plot draws as a glyph of its own after the letter it belongs
// over.
func isCombining(r rune) bool { return unicode.Is(unicode.M, r) }

// maxIntervals is the largest number of intervals between labelled ticks on a linear axis.
const maxIntervals = 6

// linearStep returns the distance between labelled ticks of a linear axis over [lo, hi]
// (lo < hi): the smallest of 1, 2, 2.5 and 5 times a power of ten whose multiples around
// [lo, hi] make at most n intervals.
func linearStep(lo, hi float64, n int) float64 {
	if !(hi > lo) || math.IsInf(hi-lo, 0) { // not a range: any positive step ends the search
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10((hi-lo)/float64(n))))
	for ; ; mag *= 10 {
		for _, m := range []float64{1, 2, 2.5, 5} {
			step := m * mag
			if l, h := widen(lo, hi, step); (h-l)/step <= float64(n)+1e-9 {
				return step
			}
		}
	}
}

// intervalsFor returns how many intervals between labelled ticks an x axis of a figure width
// inches wide can hold: one per tickSpacing of its data area (the width less the y axis and
// margins, about 0.6 in), between 2 and maxIntervals.
func intervalsFor(width float64) int {
	const yAxis = 0.6 // inches
	return intervalsIn(width - yAxis)
}

// intervalsIn returns how many intervals between labelled ticks a data area data inches wide
// can hold: one per 0.35 in, between 2 and maxIntervals.
func intervalsIn(data float64) int {
	const tickSpacing = 0.35 // inches
	return max(2, min(maxIntervals, int(data/tickSpacing)))
}

// widen returns [lo, hi] widened to multiples of step.
func widen(lo, hi, step float64) (float64, float64) {
	const eps = 1e-9 // relative slack, so a bound already on a multiple is not widened by rounding
	return step * math.Floor(lo/step+eps), step * math.Ceil(hi/step-eps)
}

// niceLinear widens [lo, hi] to multiples of its linearStep, so that the axis starts and ends
// on a labelled tick. (The widened range has the same step: a smaller one would have fitted
// [lo, hi] too.)
func niceLinear(lo, hi float64) (float64, float64) {
	if lo == hi {
		if lo == 0 {
			return 0, 1
		}
		d := math.Abs(lo) / 2
		lo, hi = lo-d, hi+d
	}
	return widen(lo, hi, linearStep(lo, hi, maxIntervals))
}

// linearTicks is the plot.Ticker of linear axes: labelled ticks at the multiples of linearStep
// within the range, at most intervals of them (0 for maxIntervals), with as many decimals as the
// step needs.
type linearTicks struct{ intervals int }

// Ticks implements plot.Ticker.
func (lt linearTicks) Ticks(lo, hi float64) []plot.Tick {
	n := lt.intervals
	if n == 0 {
		n = maxIntervals
	}
	step := linearStep(lo, hi, n)
	if !((hi-lo)/step <= 2*float64(n)) { // not a range linearStep can cut
		return nil
	}
	decimals := 0 // the fewest that write the step exactly
	for s := step; decimals < 10 && math.Abs(s-math.Round(s)) > 1e-6*s; s *= 10 {
		decimals++
	}
	// Exponent form for huge or tiny values, on the whole axis, with the significant digits
	// down to the step's last digit.
	expo := math.Max(math.Abs(lo), math.Abs(hi)) >= 1e6 || step < 1e-4
	var ticks []plot.Tick
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+step*1e-9; k++ {
		v := k * step
		var label string
		switch {
		case k == 0:
			v, label = 0, strconv.FormatFloat(0, 'f', decimals, 64) // +0, not -0
			if expo {
				label = "0"
			}
		case expo:
			sig := int(math.Floor(math.Log10(math.Abs(v)))-math.Floor(math.Log10(step))) + 1
			if m := step / math.Pow(10, math.Floor(math.Log10(step))); math.Abs(m-2.5) < 1e-9 {
				sig++
			}
			label = strconv.FormatFloat(v, 'g', max(sig, 1), 64)
		default:
			label = strconv.FormatFloat(v, 'f', decimals, 64)
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: label})
	}
	return ticks
}

// Most labels of a log axis: 1-2-5 labels while they are at most maxLog125 (else powers of ten),
// at most maxLogLabels labelled values (else every k-th).
const (
	maxLog125    = 7
	maxLogLabels = 8
)

// logMantissas returns the mantissas m of the labelled values m·10^e of a log axis over
// [lo, hi]: 1, 2 and 5 when that gives at most n labels, else only powers of ten.
func logMantissas(lo, hi float64, n int) []float64 {
	m125 := []float64{1, 2, 5}
	if len(logValues(m125, floorLog(m125, lo), ceilLog(m125, hi))) <= n {
		return m125
	}
	return []float64{1}
}

// logValues returns the values m·10^e in [lo, hi] (with a relative slack of 1e-9) for m in
// mants, in increasing order.
func logValues(mants []float64, lo, hi float64) []float64 {
	var vs []float64
	for e := math.Floor(math.Log10(lo)) - 1; e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range mants {
			v := m * math.Pow(10, e)
			if v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
				vs = append(vs, v)
			}
		}
	}
	return vs
}

// floorLog returns the largest m·10^e ≤ x for m in mants.
func floorLog(mants []float64, x float64) float64 {
	vs := logValues(mants, math.Pow(10, math.Floor(math.Log10(x))), x)
	return vs[len(vs)-1]
}

// ceilLog returns the smallest m·10^e ≥ x for m in mants.
func ceilLog(mants []float64, x float64) float64 {
	return logValues(mants, x, math.Pow(10, math.Ceil(math.Log10(x))))[0]
}

// niceLog widens [lo, hi] (lo > 0) to the nearest labelled ticks of a log axis outside it.
func niceLog(lo, hi float64) (float64, float64) {
	if lo == hi {
		lo, hi = lo/2, hi*2
	}
	m := logMantissas(lo, hi, maxLog125)
	return floorLog(m, lo), ceilLog(m, hi)
}

// logTicks is the plot.Ticker of log axes: labels at 1, 2 and 5 times powers of ten when that
// gives at most 7 labels, else at powers of ten, every k-th power when there would be more than
// 8; unlabelled minor ticks at every other integer multiple of a power of ten when the axis
// spans at most 6 decades. A positive labels lowers both limits to it, for an axis too short
// for more labels.
type logTicks struct{ labels int }

// Ticks implements plot.Ticker.
func (lt logTicks) Ticks(lo, hi float64) []plot.Tick {
	n125, n := maxLog125, maxLogLabels
	if lt.labels > 0 {
		n125, n = min(n125, lt.labels), min(n, lt.labels)
	}
	mants := logMantissas(lo, hi, n125)
	labelled := make(map[float64]bool)
	var ticks []plot.Tick
	vs := logValues(mants, lo, hi)
	every := (len(vs) + n - 1) / n // label every k-th value so that at most n are
	for i, v := range vs {
		labelled[v] = true
		label := ""
		if i%every == 0 {
			label = formatLog(v)
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: label})
	}
	if math.Log10(hi/lo) <= 6 {
		for _, v := range logValues([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, lo, hi) {
			if !labelled[v] {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
	}
	return ticks
}

// formatLog formats a value m·10^e with one significant digit: plainly (0.002, 50, 10000) for
// 10^-4 ≤ v < 10^6, else in exponent form (1e-05, 2e+06).
func formatLog(v float64) string {
	e := math.Floor(math.Log10(v) + 1e-9)
	if e < -4 || e >= 6 {
		return strconv.FormatFloat(v, 'g', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', int(math.Max(0, -e)), 64)
}
