package plots

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot/vg"

	"github.com/samplingbias/workbench/internal/setting"
)

// Defaults of Settings.
const (
	// DefaultWidth is the width in inches of one column of a two-column paper (IEEE and ACM
	// templates: 3.5 in and 3.33 in).
	DefaultWidth = 3.5
	// DefaultHeight in inches is about three quarters of DefaultWidth, the usual shape of a
	// column figure; the title, the legend band and the axes take their share of it.
	DefaultHeight = 2.6
	// DefaultDPI is the usual print resolution for raster figures.
	DefaultDPI = 300
	// DefaultFontSize in points is one to two points below a paper's 9–10 pt body text, the
	// usual size of figure text at column width.
	DefaultFontSize = 8
	// DefaultFont is the default Settings.Font: a serif metrically compatible with Times, the
	// body font of most paper templates.
	DefaultFont = FontSerif
	// DefaultLegend is the default Settings.Legend.
	DefaultLegend = LegendTop
	// DefaultYRange is the default Settings.YRange.
	DefaultYRange = YRangeAuto
	// DefaultXScale is the default Settings.XScale.
	DefaultXScale = XScaleLinear
)

// DefaultFormats returns the default Settings.Formats, [png].
func DefaultFormats() []Format { return []Format{FormatPNG} }

// Font is the typeface of a figure's text, Settings.Font.
type Font string

// Fonts. The table fonts gives the Liberation variant of each.
const (
	// FontSerif is Liberation Serif, metrically compatible with Times.
	FontSerif Font = "serif"
	// FontSans is Liberation Sans, metrically compatible with Arial/Helvetica.
	FontSans Font = "sans"
)

// fonts is the one place a font is declared: its name and its Liberation variant.
var fonts = []fontDef{{FontSerif, "Serif"}, {FontSans, "Sans"}}

// fontDef declares a font: its name and its Liberation variant.
type fontDef struct {
	name    Font
	variant string
}

func fontNames() []Font { return setting.Column(fonts, func(f fontDef) Font { return f.name }) }

// UnmarshalText sets f from its name; an unknown name is an error that lists the allowed ones.
func (f *Font) UnmarshalText(b []byte) error { return setting.Unmarshal(f, b, fontNames()) }

// Format is a file format of Save, an entry of Settings.Formats.
type Format string

// Formats.
const (
	FormatPNG Format = "png" // raster, at Settings.DPI
	FormatSVG Format = "svg" // vector, fonts embedded
	FormatPDF Format = "pdf" // vector, fonts embedded
)

var formats = []Format{FormatPNG, FormatSVG, FormatPDF}

// UnmarshalText sets f from its name; an unknown name is an error that lists the allowed ones.
func (f *Format) UnmarshalText(b []byte) error { return setting.Unmarshal(f, b, formats) }

// Legend is the placement of a legend, Settings.Legend.
type Legend string

var legends = []Legend{LegendTop, LegendRight}

// UnmarshalText sets l from its name; an unknown name is an error that lists the allowed ones.
func (l *Legend) UnmarshalText(b []byte) error { return setting.Unmarshal(l, b, legends) }

// YRange is how the y axis of a metric figure is set, Settings.YRange.
type YRange string

// Values of Settings.YRange.
const (
	YRangeAuto YRange = "auto" // bars from 0, lines fitted to the data
	YRangeZero YRange = "zero" // every figure from 0
	YRangeData YRange = "data" // every figure fitted to its values and intervals
)

var yRanges = []YRange{YRangeAuto, YRangeZero, YRangeData}

// UnmarshalText sets y from its name; an unknown name is an error that lists the allowed ones.
func (y *YRange) UnmarshalText(b []byte) error { return setting.Unmarshal(y, b, yRanges) }

// XScale is the scale of the x axis of a figure against a numeric ablation axis, Settings.XScale.
type XScale string

// Values of Settings.XScale.
const (
	XScaleLinear XScale = "linear"
	XScaleLog    XScale = "log" // every value of the axis must then be positive
)

var xScales = []XScale{XScaleLinear, XScaleLog}

// UnmarshalText sets x from its name; an unknown name is an error that lists the allowed ones.
func (x *XScale) UnmarshalText(b []byte) error { return setting.Unmarshal(x, b, xScales) }

// Limits enforced by Settings.Resolve.
const (
	minInches   = 1     // smaller leaves no room for data between the axes and the text
	maxInches   = 20    // larger than any printed page
	minDPI      = 50    // below this even a screen preview is blurred
	maxDPI      = 1200  // above this a printer cannot resolve the dots
	maxPixels   = 10000 // per side: a PNG larger than 10000 × 10000 pixels is a mistake
	minFontSize = 4     // smaller text cannot be read when printed
	maxFontSize = 36    // larger text does not fit a figure
)

// Settings is the [plots] section of a config: the printed size, resolution, text size and
// output formats of every figure. Its zero value works: Resolve fills every zero field with the
// default stated in its comment.
type Settings struct {
	// Width of a figure in inches, in [1, 20]; default DefaultWidth (a column of a two-column
	// paper).
	Width float64 `toml:"width"`
	// Height of a figure in inches, in [1, 20]; default DefaultHeight.
	Height float64 `toml:"height"`
	// DPI is the resolution of PNG files in dots per inch, in [50, 1200], with at most 10000
	// pixels per side; default DefaultDPI. SVG and PDF are vector formats: for them it only sets the
	// resolution at which Lines aggregates long series.
	DPI int `toml:"dpi"`
	// FontSize in points, in [4, 36], of axis labels and legend entries at the printed size;
	// tick labels are 7/8 and the title 9/8 of it. Default DefaultFontSize.
	FontSize float64 `toml:"font_size"`
	// Font is one of the Font constants; default DefaultFont.
	Font Font `toml:"font"`
	// Formats lists the files Save writes for each figure: any of the Format constants, each
	// at most once; default DefaultFormats().
	Formats []Format `toml:"formats"`
	// Legend places the legend of a figure of several series: LegendTop (in a band above the
	// data) or LegendRight (beside the data); default DefaultLegend. A legend that does not fit
	// where asked is placed the other way, or the figure enlarged, by Fit.
	Legend Legend `toml:"legend"`
	// YRange sets the y axis of metric figures: "auto" (YRangeAuto: bars from 0, lines fitted
	// to the data), "zero" (YRangeZero: every figure from 0) or "data" (YRangeData: every
	// figure fitted to its values and intervals, bars drawn from the axis's lower end, which
	// shows differences between values near 0.9 that an axis from 0 flattens); default
	// DefaultYRange.
	YRange YRange `toml:"y_range"`
	// Labels maps the values of ablation axes, as they appear in run ids, to the names legends
	// and tables show for them, e.g. {in_batch = "in-batch", full = "full softmax"}; a key
	// "axis=value" (e.g. "negatives=64") applies to that axis only and takes precedence over a
	// bare value, and an empty name leaves the value out. The workbench's report reads it; a
	// key that matches no value of the grid is an error there. Default: none.
	Labels map[string]string `toml:"labels"`
	// XScale is the scale of the x axis of the figures of a metric against a numeric ablation
	// axis (recall_at_K_vs_<axis>.png): "linear" or "log" (e.g. for a learning rate or a
	// number of negatives swept by factors); default DefaultXScale.
	XScale XScale `toml:"x_scale"`
	// ColorBy names the ablation axis, as in run ids (e.g. "variant"), whose values the cells'
	// colours encode, and MarkerBy the axes whose values, jointly, their markers, dash patterns
	// and hatching encode; the legend then has one entry per colour and one per marker. Default:
	// on a grid of several axes (or of zipped keys), colour by the axis with the most values and
	// marker by the others, unless two cells would then look the same (more values than
	// DistinctColors colours or DistinctShapes shapes), when every cell gets its own style and
	// legend entry. Written values that leave two cells alike are an error naming them. The
	// workbench's report reads them.
	ColorBy  string   `toml:"color_by"`
	MarkerBy []string `toml:"marker_by"`
	// TradeoffIntervals draws, in the trade-off figures (tradeoff_at_K.png, recall_vs_arp_at_K.png),
	// the 95% interval across seeds of every point in both directions. Default false: the curves
	// alone, which stay readable at a dozen cells; summary.md gives the intervals.
	TradeoffIntervals bool `toml:"tradeoff_intervals"`
}

// Resolve fills the zero fields of s with their defaults, in place, and validates every field.
// An error starts with the TOML key of the offending field.
func (s *Settings) Resolve() error {
	setting.Default(&s.Width, DefaultWidth)
	setting.Default(&s.Height, DefaultHeight)
	setting.Default(&s.DPI, DefaultDPI)
	setting.Default(&s.FontSize, DefaultFontSize)
	setting.Default(&s.Font, DefaultFont)
	if len(s.Formats) == 0 {
		s.Formats = DefaultFormats()
	}
	setting.Default(&s.Legend, DefaultLegend)
	setting.Default(&s.YRange, DefaultYRange)
	setting.Default(&s.XScale, DefaultXScale)
	side := math.Max(s.Width, s.Height)
	px := math.Round(side * float64(s.DPI))
	_, emptyLabel := s.Labels[""]
	return setting.First(
		s.checkInches("width", s.Width),
		s.checkInches("height", s.Height),
		setting.Range("dpi", s.DPI, setting.Closed(minDPI, maxDPI)),
		setting.Require("dpi", px <= maxPixels, "%d dpi × %v in = %v pixels, more than the %d allowed per side",
			s.DPI, side, px, maxPixels),
		setting.Require("font_size", s.FontSize >= minFontSize && s.FontSize <= maxFontSize,
			"must be in [%d, %d] points, got %v", minFontSize, maxFontSize, s.FontSize),
		setting.OneOf("font", s.Font, fontNames()),
		setting.OneOf("legend", s.Legend, legends),
		setting.OneOf("y_range", s.YRange, yRanges),
		setting.OneOf("x_scale", s.XScale, xScales),
		setting.Require("labels", !emptyLabel,
			"an empty key (write the axis value, or axis=value)"),
		checkFormats(s.Formats),
	)
}

// checkInches checks a size in inches.
func (s *Settings) checkInches(key string, v float64) error {
	return setting.Require(key, v >= minInches && v <= maxInches, "must be in [%d, %d] inches, got %v", minInches, maxInches, v)
}

// checkFormats requires known formats, each at most once.
func checkFormats(fs []Format) error {
	for i, f := range fs {
		if err := setting.OneOf("formats", f, formats); err != nil {
			return err
		}
		if slices.Contains(fs[:i], f) {
			return fmt.Errorf("formats: %q listed twice", f)
		}
	}
	return nil
}

// isFormat reports whether f is an allowed Settings.Formats entry.
func isFormat(f string) bool { return slices.Contains(formats, Format(f)) }

// fontVariant returns the Liberation font variant of a Settings.Font name.
func fontVariant(name Font) (string, bool) {
	for _, f := range fonts {
		if f.name == name {
			return f.variant, true
		}
	}
	return "", false
}

// margin returns the blank margin left around a figure: half the font size, so that no text or
// legend touches the figure's edge.
func (s Settings) margin() vg.Length {
	return vg.Points(s.FontSize) / 2
}
