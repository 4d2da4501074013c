package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/plots"
)

// estimates pairs each metric of the full ranking with the sampled evaluation's estimates of it
// (Krichene & Rendle 2020): the metric over the 1 + n candidates, and the corrected estimate.
var estimates = []struct{ full, sampled, corrected metrics.Metric }{
	{metrics.MetricRecall, metrics.MetricSampledRecall, metrics.MetricCorrectedRecall},
	{metrics.MetricNDCG, metrics.MetricSampledNDCG, metrics.MetricCorrectedNDCG},
	{metrics.MetricMRR, metrics.MetricSampledMRR, ""},
}

// agreementRow is how far one sampled estimate orders the grid's cells as the full metric does:
// at one slice, metric and K (the ranking as trained, natural test set), Kendall's τ_b between
// the cells' means under the two, and the pairs of cells they order oppositely.
type agreementRow struct {
	slice          metrics.Slice
	full, estimate metrics.Metric
	k              int
	cells          int
	tau            float64
	reversed       [][2]string // group pairs, the first ahead under the full metric
}

// sampledAgreement compares, at refTau, every full metric with its sampled estimates over the
// groups that have both, per slice and K; none without the sampled evaluation.
func sampledAgreement(s *summary) []agreementRow {
	var out []agreementRow
	ref := s.refTau()
	for _, e := range estimates {
		for _, k := range s.ks[e.full] {
			for _, est := range []metrics.Metric{e.sampled, e.corrected} {
				if est == "" || len(s.ks[est]) == 0 {
					continue
				}
				for _, sl := range s.slices() {
					row := agreementRow{slice: sl, full: e.full, estimate: est, k: k}
					var groups []string
					var full, sampled []float64
					for _, g := range s.groups {
						f, okF := s.values[aggKey{g, coord{ref, sl, e.full, k, metrics.TestNatural}}]
						x, okX := s.values[aggKey{g, coord{ref, sl, est, k, metrics.TestNatural}}]
						if okF && okX {
							groups = append(groups, g)
							full, sampled = append(full, f.Mean), append(sampled, x.Mean)
						}
					}
					if len(groups) < 2 {
						continue
					}
					var disc [][2]int
					row.cells = len(groups)
					row.tau, disc = kendallTau(full, sampled)
					for _, d := range disc {
						a, b := d[0], d[1]
						if full[a] < full[b] {
							a, b = b, a
						}
						row.reversed = append(row.reversed, [2]string{groups[a], groups[b]})
					}
					out = append(out, row)
				}
			}
		}
	}
	return out
}

// writeAgreementCSV writes sampled_vs_full.csv: one row per slice, full metric, K and sampled
// estimate: the cells compared, Kendall's τ_b between their orderings (empty when one ordering
// is all ties) and the pairs of cells the two order oppositely, "a>b" for a ahead of b under the
// full metric, separated by ";".
func writeAgreementCSV(w io.Writer, rows []agreementRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"slice", "metric", "k", "estimate", "cells", "kendall_tau", "reversed_pairs", "reversed"}); err != nil {
		return err
	}
	for _, r := range rows {
		tau := ""
		if !math.IsNaN(r.tau) {
			tau = strconv.FormatFloat(r.tau, 'g', 8, 64)
		}
		var pairs []string
		for _, p := range r.reversed {
			pairs = append(pairs, p[0]+">"+p[1])
		}
		if err := cw.Write([]string{r.slice.String(), string(r.full), strconv.Itoa(r.k), string(r.estimate), strconv.Itoa(r.cells),
			tau, strconv.Itoa(len(r.reversed)), strings.Join(pairs, ";")}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// contrastDisagreement is a contrast row of a full metric whose sign or significance differs
// under one of the metric's sampled estimates.
type contrastDisagreement struct {
	full, est contrastRow
}

// disagreements lists the contrast rows of a full metric (natural test set) whose mean has
// another sign, or whose significance differs, under a sampled estimate of the metric.
func disagreements(rows []contrastRow) []contrastDisagreement {
	var out []contrastDisagreement
	for _, r := range rows {
		if r.Test != metrics.TestNatural {
			continue
		}
		for _, e := range estimates {
			if r.Metric != e.full {
				continue
			}
			for _, est := range []metrics.Metric{e.sampled, e.corrected} {
				c := r.coord
				c.Metric = est
				i := slices.IndexFunc(rows, func(x contrastRow) bool { return x.contrastCells == r.contrastCells && x.coord == c })
				if i < 0 {
					continue
				}
				x := rows[i]
				if sign(r.Mean) != sign(x.Mean) || r.significant() != x.significant() {
					out = append(out, contrastDisagreement{r, x})
				}
			}
		}
	}
	return out
}

func sign(v float64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// writeAgreementSummary writes summary.md's section on the sampled evaluation against the full
// one: Kendall's τ_b of every estimate by slice, metric and K, the pairs of cells reversed at the
// first K, and the contrasts whose sign or significance the sampled evaluation changes.
func writeAgreementSummary(w io.Writer, s *summary, ag []agreementRow, rows []contrastRow) {
	if len(ag) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Sampled against full evaluation\n\nEach test pair is also ranked among its item and its sampled negatives "+
		"(negatives.tsv in each run's folder): the sampled HR@K, NDCG@K and MRR over those candidates, and Krichene & Rendle's (KDD 2020) "+
		"corrected estimates of the full Recall@K and NDCG@K from the sampled rank. Kendall's τ_b between the orderings of the cells by "+
		"the full metric and by the estimate (as trained, means over seeds): 1 when they order every pair of cells alike, −1 when "+
		"they reverse every one. sampled_vs_full.csv lists the pairs reversed.\n\n")
	header, rule := sliceColumns(s.tableSlices())
	fmt.Fprintf(w, "| metric | estimate | cells |%s\n|---|---|---|%s\n", header, rule)
	type key struct {
		full, est metrics.Metric
		k         int
	}
	var keys []key
	for _, r := range ag {
		if k := (key{r.full, r.estimate, r.k}); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		cells := 0
		var texts []string
		for _, sl := range s.tableSlices() {
			i := slices.IndexFunc(ag, func(r agreementRow) bool {
				return r.full == k.full && r.estimate == k.est && r.k == k.k && r.slice == sl
			})
			switch {
			case i < 0:
				texts = append(texts, "–")
			case math.IsNaN(ag[i].tau):
				texts = append(texts, "ties")
			default:
				cells = max(cells, ag[i].cells)
				texts = append(texts, fmt.Sprintf("%s (%d reversed)", decimals(ag[i].tau, 3, false), len(ag[i].reversed)))
			}
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s |\n", metricLabel(k.full, k.k), metricLabel(k.est, k.k), cells, strings.Join(texts, " | "))
	}
	dis := disagreements(rows)
	if len(rows) == 0 {
		return
	}
	if len(dis) == 0 {
		fmt.Fprintf(w, "\nEvery contrast has the same sign and significance under the full metrics and their sampled estimates.\n")
		return
	}
	fmt.Fprintf(w, "\nContrasts whose sign or significance (✱) differs between a full metric and its sampled estimate:\n\n")
	for _, d := range dis {
		fmt.Fprintf(w, "- %s, %s: %s %s; %s %s\n", d.full.label(), d.full.Slice, metricLabel(d.full.Metric, d.full.K), d.full.text(),
			metricLabel(d.est.Metric, d.est.K), d.est.text())
	}
}

// agreementFigures lists, for every K of Recall with a sampled estimate, sampled_vs_full_at_K:
// per cell its full Recall@K against the sampled HR@K and against the corrected estimate (with
// the identity line), all test pairs, as trained.
func agreementFigures(s *summary) []figure {
	var figs []figure
	for _, k := range s.ks[metrics.MetricRecall] {
		full := coord{0, metrics.SliceAll, metrics.MetricRecall, k, metrics.TestNatural}
		var panels []plots.ScatterPanel
		for _, est := range []metrics.Metric{metrics.MetricSampledRecall, metrics.MetricCorrectedRecall} {
			e := full
			e.Metric = est
			series := onlyRef(s, xySeries(s, full, e))
			if len(series) == 0 {
				continue
			}
			panels = append(panels, plots.ScatterPanel{Title: metricLabel(est, k), Series: series, Identity: est == metrics.MetricCorrectedRecall})
		}
		if len(panels) == 0 {
			continue
		}
		n := len(panels[0].Series)
		l := plots.Labels{X: "Full " + metricLabel(metrics.MetricRecall, k) + " (all pairs)", Y: "Sampled estimate", Key: s.key(n)}
		figs = append(figs, figure{fmt.Sprintf("sampled_vs_full_at_%d", k), func(ps plots.Settings) (*plot.Plot, error) {
			return plots.ScatterPanels(panels, l, ps)
		}})
	}
	return figs
}

// onlyRef keeps each series' point at refTau (its origin): one point per cell.
func onlyRef(s *summary, series []plots.TradeoffSeries) []plots.TradeoffSeries {
	for i, ts := range series {
		o := ts.Origin
		one := plots.TradeoffSeries{Name: ts.Name, Style: ts.Style, X: ts.X[o : o+1], Y: ts.Y[o : o+1]}
		if ts.XLo != nil {
			one.XLo, one.XHi, one.YLo, one.YHi = ts.XLo[o:o+1], ts.XHi[o:o+1], ts.YLo[o:o+1], ts.YHi[o:o+1]
		}
		series[i] = one
	}
	if len(series) == 1 {
		series[0].Name = ""
	}
	return series
}
