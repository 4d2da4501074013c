package plots

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/plot"
)

// ReliabilitySeries is one model's reliability curve: for each bin of its estimates, in
// increasing order, the mean estimated probability, the mean true probability and the number of
// (query, item) pairs.
type ReliabilitySeries struct {
	// Name is the legend entry; it may be empty only when there is a single series.
	Name string
	// Predicted and True are the bins' mean estimated and mean true probabilities, both
	// positive, Predicted strictly increasing; Pairs their numbers of pairs (e.g. per run),
	// positive.
	Predicted, True, Pairs []float64
	// Style is the series' colour, dashes and marker; nil for the series' position.
	Style *Style
}

// Reliability returns a reliability diagram (DeGroot & Fienberg 1983; Niculescu-Mizil & Caruana
// 2005) of probabilities that span decades: in one panel, each series' mean true probability
// against its mean estimate, bin by bin, on log–log axes of equal ranges with the diagonal of a
// calibrated model (dashed grey; above it the model underestimates, below it it is
// overconfident); in a second panel, the number of pairs of each bin against the same x
// (log–log), labelled countsY. l.X labels both x axes, l.Y the first panel's y axis. The panels
// are laid out, with one legend, as LinePanels lays out its panels: side by side when the figure
// is wide enough for two panels of minPanelWidth, else one above the other.
func Reliability(series []ReliabilitySeries, l Labels, countsY string, s Settings) (*plot.Plot, error) {
	if countsY == "" {
		return nil, errors.New("plots: reliability: the counts panel's y label is empty")
	}
	curves := make([]LineSeries, len(series))
	counts := make([]LineSeries, len(series))
	for i, rs := range series {
		if len(rs.True) != len(rs.Predicted) || len(rs.Pairs) != len(rs.Predicted) {
			return nil, fmt.Errorf("plots: reliability series %s: %d predicted, %d true and %d pair counts",
				seriesName(rs.Name, i), len(rs.Predicted), len(rs.True), len(rs.Pairs))
		}
		for j, n := range rs.Pairs {
			if !(n > 0) || math.IsInf(n, 0) {
				return nil, fmt.Errorf("plots: reliability series %s: bin %d has %v pairs, want a positive number", seriesName(rs.Name, i), j, n)
			}
		}
		curves[i] = LineSeries{Name: rs.Name, X: rs.Predicted, Y: rs.True, Style: rs.Style}
		counts[i] = LineSeries{Name: rs.Name, X: rs.Predicted, Y: rs.Pairs, Style: rs.Style}
	}
	o := LineOptions{LogX: true, LogY: true, Markers: true}
	var lo, hi float64 // the x range of both panels, the reliability panel's
	p, _, err := panelFigure(2, func(int) string { return "" }, func(k int, pl Labels, ps Settings) (panelPlot, error) {
		ls := curves
		if k == 1 {
			ls, pl.Y = counts, countsY
		}
		t, p, es, err := linePlot(ls, pl, o, ps, false)
		if err != nil {
			return panelPlot{}, err
		}
		if k == 0 {
			// Both axes over the union of the ranges, so that the identity is the 45° line.
			lo, hi = niceLog(math.Min(p.X.Min, p.Y.Min), math.Max(p.X.Max, p.Y.Max))
			p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
			addIdentity(t, p)
		}
		p.X.Min, p.X.Max = lo, hi
		// A panel is narrow: at most as many labels on its log x axis as a linear axis of its
		// width would have intervals.
		p.X.Tick.Marker = fewerLabels{Ticker: logTicks{}, n: intervalsFor(ps.Width)}
		out := panelPlot{p: p, entries: es}
		for i, s := range ls {
			out.names, out.styles = append(out.names, s.Name), append(out.styles, styleOf(s.Style, i))
		}
		return out, nil
	}, l, true, s)
	return p, err
}

// fewerLabels keeps the labels of at most n of its Ticker's labelled ticks, every k-th from the
// first; the others stay as unlabelled ticks.
type fewerLabels struct {
	plot.Ticker
	n int
}

// Ticks implements plot.Ticker.
func (f fewerLabels) Ticks(lo, hi float64) []plot.Tick {
	ticks := f.Ticker.Ticks(lo, hi)
	labelled := 0
	for _, t := range ticks {
		if t.Label != "" {
			labelled++
		}
	}
	every := (labelled + f.n - 1) / max(f.n, 1)
	i := 0
	for k, t := range ticks {
		if t.Label == "" {
			continue
		}
		if i%every != 0 {
			ticks[k].Label = ""
		}
		i++
	}
	return ticks
}
