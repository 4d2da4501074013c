package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/plots"
)

// xySeries returns one series per group of the values at coordinates x and y (their τ unused)
// under every post-hoc logit-adjustment strength, in increasing τ (arrows point that way), its
// point at refTau the origin, with the 95% intervals across seeds in both directions when every point has them; a
// value of a metric in [0, 1] has its interval clipped to it, any other to [0, ∞).
func xySeries(s *summary, x, y coord) []plots.TradeoffSeries {
	var series []plots.TradeoffSeries
	for _, g := range s.groups {
		ts := plots.TradeoffSeries{Name: s.label(g), Style: s.enc.style(g)}
		intervals := true
		var taus []float64
		for _, tau := range s.taus { // in increasing order
			x.Tau, y.Tau = tau, tau
			vx, okX := s.values[aggKey{g, x}]
			vy, okY := s.values[aggKey{g, y}]
			if !okX || !okY {
				continue
			}
			ts.X, ts.Y = append(ts.X, vx.Mean), append(ts.Y, vy.Mean)
			ts.XLo, ts.XHi = append(ts.XLo, max(vx.Lo, 0)), append(ts.XHi, min(vx.Hi, upper(x)))
			ts.YLo, ts.YHi = append(ts.YLo, max(vy.Lo, 0)), append(ts.YHi, min(vy.Hi, upper(y)))
			if tau == s.refTau() {
				ts.Origin = len(taus)
			}
			taus = append(taus, tau)
			intervals = intervals && vx.N >= 2 && vy.N >= 2
		}
		if len(ts.X) == 0 {
			continue
		}
		if !intervals { // a single seed: no interval across seeds
			ts.XLo, ts.XHi, ts.YLo, ts.YHi = nil, nil, nil, nil
		}
		ts.Arrows = len(taus) > 1 // towards increasing τ
		series = append(series, ts)
	}
	if len(series) == 1 {
		series[0].Name = ""
	}
	return series
}

// intervalsAsked returns series without their intervals unless ps.TradeoffIntervals asks for
// them.
func intervalsAsked(series []plots.TradeoffSeries, ps plots.Settings) []plots.TradeoffSeries {
	if ps.TradeoffIntervals {
		return series
	}
	out := slices.Clone(series)
	for i := range out {
		out[i].XLo, out[i].XHi, out[i].YLo, out[i].YHi = nil, nil, nil, nil
	}
	return out
}

// upper is the largest value of c's metric: 1 for a share or a metric of ranks, +∞ for the
// average recommended popularity and novelty.
func upper(c coord) float64 {
	if c.Metric == metrics.MetricARP || c.Metric == metrics.MetricNovelty {
		return math.Inf(1)
	}
	return 1
}

// tauTitle is the title of a figure of series of xySeries when some series is a curve of
// several strengths τ of post-hoc logit adjustment: one explanation for every curve, rather than
// a tag at each curve's end that collides with the others' at a dozen cells; "" when every
// series is a single point (one τ evaluated, or, for exposure metrics, only one with them).
func tauTitle(s *summary, series []plots.TradeoffSeries) string {
	if !slices.ContainsFunc(series, func(ts plots.TradeoffSeries) bool { return len(ts.X) > 1 }) {
		return ""
	}
	n := len(s.taus)
	if !slices.Contains(s.taus, 0) {
		return fmt.Sprintf("Along each curve (arrows) τ_LA = %g → %g; large marker: τ_LA = %g", s.taus[0], s.taus[n-1], s.refTau())
	}
	return fmt.Sprintf("Along each curve (arrows) τ_LA = %g → %g; large marker: as trained", s.taus[0], s.taus[n-1])
}
