package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"gonum.org/v1/plot"

	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/plots"
)

// listMetrics are the columns of summary.md's table of what the top-K lists recommend, after
// Recall@K: the exposure metrics and the propensity-scored ones.
func listMetrics() []metrics.Metric {
	return append(metrics.ExposureMetrics(), metrics.MetricPSP, metrics.MetricPSRecall)
}

// writeExposureSummary writes summary.md's section on the top-K lists, as trained: per K, a table
// of every cell's Recall@K beside the exposure (and, on multi-label data, propensity-scored)
// metrics of its lists, mean ± half-width of the 95% interval across seeds.
func writeExposureSummary(w io.Writer, s *summary) {
	var cols []metrics.Metric
	for _, m := range listMetrics() {
		if len(s.ks[m]) > 0 {
			cols = append(cols, m)
		}
	}
	if len(cols) == 0 {
		return
	}
	ref := s.refTau()
	fmt.Fprintf(w, "\n## What the top-K lists recommend\n\nEvery test query's top K, as trained, over all test queries "+
		"(metrics.csv has them at every τ_LA): ARP, the average training count of the listed items (Abdollahpouri et al. 2019); APLT, "+
		"the share of long-tail items (the tail slice, or the rarest popularity bin); coverage, the share of the corpus in some list; "+
		"Gini, the Gini coefficient of the items' exposure over the whole corpus (0: every item listed as often; near 1: a few items "+
		"take every list); novelty, the mean −log₂ of the listed items' training share (add-one smoothed)")
	if slices.Contains(cols, metrics.MetricPSP) {
		fmt.Fprintf(w, "; PSP and PSRecall, precision and recall with each hit weighted by 1/p of its label under Jain et al.'s (KDD 2016) "+
			"propensity model, PSP normalised by the best possible ranking's")
	}
	fmt.Fprintf(w, ". Coverage and Gini have no interval within a run: with one seed they show none.\n")
	for _, k := range s.ks[metrics.MetricRecall] {
		var present []metrics.Metric
		for _, m := range cols {
			if slices.Contains(s.ks[m], k) {
				present = append(present, m)
			}
		}
		if len(present) == 0 {
			continue
		}
		names := []string{metricLabel(metrics.MetricRecall, k)}
		for _, m := range present {
			names = append(names, metricLabel(m, k))
		}
		fmt.Fprintf(w, "\n### Top %d\n\n| run | %s |\n|---|%s\n", k, strings.Join(names, " | "), strings.Repeat("---|", len(names)))
		for _, g := range s.groups {
			var texts []string
			for _, m := range append([]metrics.Metric{metrics.MetricRecall}, present...) {
				if v, ok := s.values[aggKey{g, coord{ref, metrics.SliceAll, m, k, metrics.TestNatural}}]; ok {
					texts = append(texts, v.text())
				} else {
					texts = append(texts, "–")
				}
			}
			fmt.Fprintf(w, "| %s | %s |\n", mdCell(s.label(g)), strings.Join(texts, " | "))
		}
	}
}

// exposureFigures lists, for every K of Recall with the lists' average recommended popularity,
// recall_vs_arp_at_K: every cell's Recall@K of all test pairs against the ARP@K of its lists, as
// trained and, joined to it, under every post-hoc logit-adjustment strength: how far a
// correction moves the recommendations toward the tail, at what cost in recall.
func exposureFigures(s *summary) []figure {
	var figs []figure
	for _, k := range s.ks[metrics.MetricRecall] {
		x := coord{0, metrics.SliceAll, metrics.MetricARP, k, metrics.TestNatural}
		y := coord{0, metrics.SliceAll, metrics.MetricRecall, k, metrics.TestNatural}
		series := xySeries(s, x, y)
		if len(series) == 0 {
			continue
		}
		l := plots.Labels{X: metricLabel(metrics.MetricARP, k) + ": mean training count of the listed items",
			Y: metricLabel(metrics.MetricRecall, k) + " (all pairs)"}
		figs = append(figs, figure{fmt.Sprintf("recall_vs_arp_at_%d", k), func(ps plots.Settings) (*plot.Plot, error) {
			return xyFigure(s, series, l, ps)
		}})
	}
	return figs
}
