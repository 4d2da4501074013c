package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"

	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/plots"
)

// calibrationLabels name the calibration metrics in summary.md.
var calibrationLabels = map[metrics.Metric]string{
	metrics.MetricECE: "ECE", metrics.MetricECERel: "ECE / mean p", metrics.MetricMassRatio: "Σp̂ / Σp",
	metrics.MetricPHatECE: "ECE of P̂", metrics.MetricPHatECERel: "ECE of P̂ / mean p", metrics.MetricPHatMassRatio: "ΣP̂ / Σp",
}

// isCalibration reports whether m is a calibration metric.
func isCalibration(m metrics.Metric) bool { return slices.Contains(metrics.CalibrationMetrics(), m) }

// calibrationDistance is how far a calibration metric's value v is from a calibrated model's:
// the ECE itself, and |log ratio| for a mass ratio (so that 1/2 and 2 are as bad).
func calibrationDistance(m metrics.Metric, v float64) float64 {
	if m == metrics.MetricMassRatio || m == metrics.MetricPHatMassRatio {
		return math.Abs(math.Log(v))
	}
	return v
}

// writeCalibrationSummary writes summary.md's calibration section when some run was measured
// against the true probabilities (Run.Calibration): what was measured, then per calibration
// metric a table of every group by slice, as trained (refTau), mean ± 95% interval across seeds
// to three significant digits (ECEs are of the order of 1/M), the most calibrated of each column
// in bold; then the contrasts' rows of these metrics.
func writeCalibrationSummary(w io.Writer, s *summary, recs []*Run, rows []contrastRow) {
	var measured []*Run
	for _, r := range recs {
		if r.Calibration != nil {
			measured = append(measured, r)
		}
	}
	if len(measured) == 0 {
		return
	}
	c := measured[0].Calibration
	fmt.Fprintf(w, "\n## Calibration against the true P(item | query)\n\n"+
		"The model's estimate p̂ of P(item | query) against the data's true probability p over every item of the corpus for %d of the "+
		"%d test queries (%d pairs per run; docs/calibration.md): the softmax over the corpus of the logits s/τ, their sigmoid or their "+
		"exponential, as each loss models it (the link below), and, where P̂ was measured, Khrylchenko et al.'s P̂ (the softmax "+
		"probability estimated from k' uniform negatives). The pairs are binned by p̂, four bins a decade; ECE = Σ_b (n_b/n)·|mean p̂ − mean p|, "+
		"ECE / mean p is it over the slice's mean true probability, and Σp̂ / Σp above 1 is overconfidence. Mean ± half-width of the "+
		"95%% interval across seeds; the most calibrated of each column in **bold** (the lowest ECE, the ratio nearest 1). "+
		"reliability.png draws the curves of all pairs.\n\n", c.Queries, c.TestQueries, c.Queries*c.Items)
	var links []string
	for _, g := range s.groups {
		i := slices.IndexFunc(measured, func(r *Run) bool { return r.Group == g })
		if i < 0 {
			continue
		}
		l := fmt.Sprintf("%s: %s", s.label(g), measured[i].Calibration.Link)
		if k := measured[i].Calibration.PHatNegatives; k > 0 {
			l += fmt.Sprintf(", P̂ with k' = %d", k)
		}
		links = append(links, l)
	}
	fmt.Fprintf(w, "Links: %s.\n", strings.Join(links, "; "))
	sls := s.tableSlices()
	header, rule := sliceColumns(sls)
	ref := s.refTau()
	for _, m := range metrics.CalibrationMetrics() {
		if len(s.ks[m]) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n### %s\n\n| run |%s\n|---|%s\n", calibrationLabels[m], header, rule)
		best := map[metrics.Slice]float64{}
		for _, sl := range sls {
			best[sl] = math.Inf(1)
			for _, g := range s.groups {
				if v, ok := s.values[aggKey{g, coord{ref, sl, m, 0, metrics.TestNatural}}]; ok {
					best[sl] = math.Min(best[sl], calibrationDistance(m, v.Mean))
				}
			}
		}
		for _, g := range s.groups {
			var texts []string
			shown := false
			for _, sl := range sls {
				v, ok := s.values[aggKey{g, coord{ref, sl, m, 0, metrics.TestNatural}}]
				if !ok {
					texts = append(texts, "–")
					continue
				}
				t := fmt.Sprintf("%.3g", v.Mean)
				if v.N >= 2 {
					t += fmt.Sprintf(" ± %.2g", v.Hi-v.Mean)
				}
				if calibrationDistance(m, v.Mean) == best[sl] {
					t = "**" + t + "**"
				}
				texts = append(texts, t)
				shown = true
			}
			if shown {
				fmt.Fprintf(w, "| %s | %s |\n", mdCell(s.label(g)), strings.Join(texts, " | "))
			}
		}
	}
	writeCalibrationContrasts(w, sls, rows)
}

// writeCalibrationContrasts writes the contrasts' rows of the calibration metrics: A − B by
// slice, mean ± half-width of the 95% interval to three significant digits, ✱ as in the
// Contrasts section.
func writeCalibrationContrasts(w io.Writer, sls []metrics.Slice, rows []contrastRow) {
	var lines []contrastCells
	for _, r := range rows {
		if isCalibration(r.Metric) && !slices.Contains(lines, r.contrastCells) {
			lines = append(lines, r.contrastCells)
		}
	}
	if len(lines) == 0 {
		return
	}
	header, rule := sliceColumns(sls)
	for _, m := range metrics.CalibrationMetrics() {
		var table []string
		for _, l := range lines {
			n := 0
			var texts []string
			for _, sl := range sls {
				i := slices.IndexFunc(rows, func(r contrastRow) bool {
					return r.contrastCells == l && r.coord == coord{0, sl, m, 0, metrics.TestNatural}
				})
				if i < 0 {
					texts = append(texts, "–")
					continue
				}
				r := rows[i]
				n = max(n, r.N)
				t := fmt.Sprintf("%+.3g", r.Mean)
				if r.N >= 2 {
					t += fmt.Sprintf(" ± %.2g", r.Hi-r.Mean)
				}
				if r.significant() {
					t += " ✱"
				}
				texts = append(texts, t)
			}
			if n > 0 {
				table = append(table, fmt.Sprintf("| %s | %d | %s |\n", mdCell(l.label()), n, strings.Join(texts, " | ")))
			}
		}
		if len(table) > 0 {
			fmt.Fprintf(w, "\n### %s, contrasts (A − B; ✱ as in the Contrasts section)\n\n| A − B | seeds |%s\n|---|---|%s\n%s",
				calibrationLabels[m], header, rule, strings.Join(table, ""))
		}
	}
}

// calibrationFigures lists reliability (and reliability_phat when P̂ was measured): one
// reliability curve per group as trained (refTau), the bins of its seeds pooled (plots.Reliability).
func calibrationFigures(s *summary, recs []*Run) []figure {
	var figs []figure
	for _, est := range []metrics.Estimate{metrics.EstimateModel, metrics.EstimatePHat} {
		series := reliabilitySeries(s, recs, est)
		if len(series) == 0 {
			continue
		}
		// The figure's text cannot put a hat over a letter: the estimates are named in words.
		name, what := "reliability", "est. p"
		if est == metrics.EstimatePHat {
			name, what = "reliability_phat", "P-hat"
		}
		l := plots.Labels{X: "Bin's mean " + what, Y: "Bin's mean true p", Key: s.key(len(series))}
		figs = append(figs, figure{name, func(ps plots.Settings) (*plot.Plot, error) {
			return plots.Reliability(series, l, "Pairs per run", ps)
		}})
	}
	return figs
}

// reliabilitySeries pools, per group, the bins of its runs' curves of estimate est at refTau: a
// point per bin of mean estimate and mean truth over the pooled pairs, with the pairs per run;
// bins whose means are not positive (a log axis cannot show them) are left out.
func reliabilitySeries(s *summary, recs []*Run, est metrics.Estimate) []plots.ReliabilitySeries {
	var series []plots.ReliabilitySeries
	for _, g := range s.groups {
		var pooled []metrics.ReliabilityBin
		runs := 0
		for _, r := range recs {
			if r.Group != g || r.Calibration == nil {
				continue
			}
			for _, c := range r.Calibration.Curves {
				if c.Estimate != est || c.Tau != s.refTau() {
					continue
				}
				if pooled == nil {
					pooled = make([]metrics.ReliabilityBin, len(c.Bins))
				}
				for b, x := range c.Bins[:min(len(c.Bins), len(pooled))] {
					pooled[b].Pairs += x.Pairs
					pooled[b].Predicted += x.Predicted
					pooled[b].True += x.True
				}
				runs++
			}
		}
		rs := plots.ReliabilitySeries{Name: s.label(g), Style: s.enc.style(g)}
		for _, b := range pooled {
			if b.Pairs == 0 || !(b.Predicted > 0) || !(b.True > 0) {
				continue
			}
			n := float64(b.Pairs)
			rs.Predicted = append(rs.Predicted, b.Predicted/n)
			rs.True = append(rs.True, b.True/n)
			rs.Pairs = append(rs.Pairs, n/float64(runs))
		}
		if len(rs.Predicted) > 0 {
			series = append(series, rs)
		}
	}
	if len(series) == 1 {
		series[0].Name = ""
	}
	return series
}
