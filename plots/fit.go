package plots

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
)

// Fit builds a figure with build at s and, when its texts do not fit (build returns a
// *LayoutError), builds it again another way rather than fail: first with the legend placed the
// other way (beside the data instead of above it, or the reverse), then at the size the
// LayoutError asks for, enlarged step by step up to the largest figure Settings allows. It
// returns the figure, the Settings it was built with, which Save must be given, and a note
// saying what did not fit and what was done instead ("" when s served): enlarged, what did not
// fit at s and then at each larger size tried, and the size drawn. Any other error of build is
// returned as it is.
func Fit(build func(Settings) (*plot.Plot, error), s Settings) (*plot.Plot, Settings, string, error) {
	if err := s.Resolve(); err != nil {
		return nil, s, "", fmt.Errorf("plots: settings: %w", err)
	}
	p, err := build(s)
	var first *LayoutError
	if !errors.As(err, &first) {
		return p, s, "", err
	}
	other := s
	other.Legend = LegendRight
	if s.Legend == LegendRight {
		other.Legend = LegendTop
	}
	if p, err := build(other); err == nil {
		return p, other, fmt.Sprintf("%s; drawn with the legend %s instead (set plots.legend = %q to ask for it)",
			first.Problem, placementName(other.Legend), other.Legend), nil
	}
	// Enlarge, keeping the placement asked for, until the figure fits or cannot grow; the note
	// gives what did not fit at each size tried, the size drawn being the largest they ask for.
	big, le := s, first
	problems := []string{first.Problem}
	for range 8 {
		next := big
		next.Width = math.Min(math.Max(next.Width, le.Width), maxInches)
		next.Height = math.Min(math.Max(next.Height, le.Height), maxInches)
		if le.Width == 0 && le.Height == 0 || next.Width == big.Width && next.Height == big.Height {
			break // nothing to grow, or already as large as allowed
		}
		// Keep the PNG within the pixels allowed per side, at a lower resolution if need be.
		next.DPI = min(next.DPI, int(maxPixels/math.Max(next.Width, next.Height)))
		big = next
		p, err := build(big)
		if err == nil {
			return p, big, fmt.Sprintf("%s; drawn at %.1f × %.1f in instead of %.1f × %.1f in (set plots.width and plots.height to choose)",
				strings.Join(problems, "; "), big.Width, big.Height, s.Width, s.Height), nil
		}
		if !errors.As(err, &le) {
			return nil, s, "", err
		}
		problems = append(problems, fmt.Sprintf("at %.1f × %.1f in, %s", big.Width, big.Height, le.Problem))
	}
	return nil, s, "", first
}

// placementName describes a legend placement in a sentence.
func placementName(legend Legend) string {
	if legend == LegendRight {
		return "beside the plot"
	}
	return "above the plot"
}
