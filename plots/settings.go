package plots

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/plot/vg"
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
	DefaultFont = "serif"
)

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
	// Width of a figure in inches, in [1, 20]; default 3.5 (a column of a two-column paper).
	Width float64 `toml:"width"`
	// Height of a figure in inches, in [1, 20]; default 2.6.
	Height float64 `toml:"height"`
	// DPI is the resolution of PNG files in dots per inch, in [50, 1200], with at most 10000
	// pixels per side; default 300. SVG and PDF are vector formats: for them it only sets the
	// resolution at which Lines aggregates long series.
	DPI int `toml:"dpi"`
	// FontSize in points, in [4, 36], of axis labels and legend entries at the printed size;
	// tick labels are 7/8 and the title 9/8 of it. Default 8.
	FontSize float64 `toml:"font_size"`
	// Font is "serif" (Liberation Serif, metrically compatible with Times) or "sans"
	// (Liberation Sans, metrically compatible with Arial/Helvetica); default "serif".
	Font string `toml:"font"`
	// Formats lists the files Save writes for each figure: any of "png", "svg" (fonts
	// embedded) and "pdf" (fonts embedded), each at most once; default ["png"].
	Formats []string `toml:"formats"`
	// Legend places the legend of a figure of several series: "top" (LegendTop, in a band
	// above the data) or "right" (LegendRight, beside the data); default "top". A legend that
	// does not fit where asked is placed the other way, or the figure enlarged, by Fit.
	Legend string `toml:"legend"`
	// YRange sets the y axis of metric figures: "auto" (YRangeAuto: bars from 0, lines fitted
	// to the data), "zero" (YRangeZero: every figure from 0) or "data" (YRangeData: every
	// figure fitted to its values and intervals, bars drawn from the axis's lower end, which
	// shows differences between values near 0.9 that an axis from 0 flattens); default "auto".
	YRange string `toml:"y_range"`
	// Labels maps the values of ablation axes, as they appear in run ids, to the names legends
	// and tables show for them, e.g. {in_batch = "in-batch", full = "full softmax"}; a key
	// "axis=value" (e.g. "negatives=64") applies to that axis only and takes precedence over a
	// bare value, and an empty name leaves the value out. The workbench's report reads it; a
	// key that matches no value of the grid is an error there. Default: none.
	Labels map[string]string `toml:"labels"`
}

// Values of Settings.YRange.
const (
	YRangeAuto = "auto"
	YRangeZero = "zero"
	YRangeData = "data"
)

// Resolve fills the zero fields of s with their defaults, in place, and validates every field.
// An error starts with the TOML key of the offending field.
func (s *Settings) Resolve() error {
	if s.Width == 0 {
		s.Width = DefaultWidth
	}
	if s.Height == 0 {
		s.Height = DefaultHeight
	}
	if s.DPI == 0 {
		s.DPI = DefaultDPI
	}
	if s.FontSize == 0 {
		s.FontSize = DefaultFontSize
	}
	if s.Font == "" {
		s.Font = DefaultFont
	}
	if len(s.Formats) == 0 {
		s.Formats = []string{"png"}
	}
	if s.Legend == "" {
		s.Legend = LegendTop
	}
	if s.YRange == "" {
		s.YRange = YRangeAuto
	}

	for _, d := range []struct {
		key string
		v   float64
	}{{"width", s.Width}, {"height", s.Height}} {
		if !(d.v >= minInches && d.v <= maxInches) {
			return fmt.Errorf("%s: must be in [%d, %d] inches, got %v", d.key, minInches, maxInches, d.v)
		}
	}
	if s.DPI < minDPI || s.DPI > maxDPI {
		return fmt.Errorf("dpi: must be in [%d, %d], got %d", minDPI, maxDPI, s.DPI)
	}
	if px := math.Round(math.Max(s.Width, s.Height) * float64(s.DPI)); px > maxPixels {
		return fmt.Errorf("dpi: %d dpi × %v in = %v pixels, more than the %d allowed per side",
			s.DPI, math.Max(s.Width, s.Height), px, maxPixels)
	}
	if !(s.FontSize >= minFontSize && s.FontSize <= maxFontSize) {
		return fmt.Errorf("font_size: must be in [%d, %d] points, got %v", minFontSize, maxFontSize, s.FontSize)
	}
	if _, ok := fontVariant(s.Font); !ok {
		return fmt.Errorf("font: unknown %q (allowed: serif, sans)", s.Font)
	}
	if s.Legend != LegendTop && s.Legend != LegendRight {
		return fmt.Errorf("legend: unknown %q (allowed: %s, %s)", s.Legend, LegendTop, LegendRight)
	}
	if s.YRange != YRangeAuto && s.YRange != YRangeZero && s.YRange != YRangeData {
		return fmt.Errorf("y_range: unknown %q (allowed: %s, %s, %s)", s.YRange, YRangeAuto, YRangeZero, YRangeData)
	}
	for k := range s.Labels {
		if k == "" {
			return errors.New("labels: an empty key (write the axis value, or axis=value)")
		}
	}
	seen := make(map[string]bool)
	for _, f := range s.Formats {
		if !isFormat(f) {
			return fmt.Errorf("formats: unknown %q (allowed: png, svg, pdf)", f)
		}
		if seen[f] {
			return fmt.Errorf("formats: %q listed twice", f)
		}
		seen[f] = true
	}
	return nil
}

// isFormat reports whether f is an allowed Settings.Formats entry.
func isFormat(f string) bool {
	switch f {
	case "png", "svg", "pdf":
		return true
	}
	return false
}

// fontVariant returns the Liberation font variant of a Settings.Font name.
func fontVariant(name string) (string, bool) {
	switch name {
	case "serif":
		return "Serif", true
	case "sans":
		return "Sans", true
	}
	return "", false
}

// margin returns the blank margin left around a figure: a third of the font size.
func (s Settings) margin() vg.Length {
	return vg.Points(s.FontSize) / 3
}
