package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/samplingbias/workbench/metrics"
)

// digestContrasts bounds the contrast rows the digest lists; contrasts.csv has them all.
const digestContrasts = 12

// writeDigest writes the digest at the top of summary.md: the best cell of every slice by
// Recall@K as trained, with its 95% interval; the contrasts that survive the adjustment (and the
// unresolved ones); the cells indistinguishable from chance; and how far the sampled evaluation
// orders the cells as the full one does.
func writeDigest(w io.Writer, s *summary, rows []contrastRow, rs Settings, ag []agreementRow) {
	fmt.Fprintf(w, "\n## Digest\n")
	ref := s.refTau()
	sls := s.slices()
	if ks := s.ks[metrics.MetricRecall]; len(ks) > 0 && len(sls) > 0 {
		fmt.Fprintf(w, "\nBest cell of each slice by Recall@K as trained: mean [95%% interval] (across seeds, or ᵇ the bootstrap over test pairs of a single seed).\n\n")
		names := make([]string, len(sls))
		for i, sl := range sls {
			names[i] = sl.String()
		}
		fmt.Fprintf(w, "| | %s |\n|---|%s\n", strings.Join(names, " | "), strings.Repeat("---|", len(sls)))
		for _, k := range ks {
			var texts []string
			for _, sl := range sls {
				texts = append(texts, mdCell(s.best(coord{ref, sl, metrics.MetricRecall, k, metrics.TestNatural})))
			}
			fmt.Fprintf(w, "| %s | %s |\n", metricLabel(metrics.MetricRecall, k), strings.Join(texts, " | "))
		}
	}
	if len(rs.Contrasts) > 0 {
		writeDigestContrasts(w, rows, rs)
	}
	if flagged := s.atChance(); len(s.base.random) > 0 {
		if len(flagged) == 0 {
			fmt.Fprintf(w, "\nAt chance: no cell (no 95%% interval overlaps the random ranking's range; %s).\n", s.chanceBasis())
		} else {
			fmt.Fprintf(w, "\nAt chance (95%% interval overlapping the random ranking's range; %s): %s.\n", s.chanceBasis(), strings.Join(flagged, "; "))
		}
	}
	var taus []string
	for _, r := range ag {
		if r.slice == metrics.SliceAll && r.full == metrics.MetricRecall && r.k == s.ks[metrics.MetricRecall][0] && !math.IsNaN(r.tau) {
			taus = append(taus, fmt.Sprintf("%s with %s (%d of %d pairs of cells reversed)", decimals(r.tau, 3, false), metricLabel(r.estimate, r.k), len(r.reversed), r.cells*(r.cells-1)/2))
		}
	}
	if len(taus) > 0 {
		fmt.Fprintf(w, "\nSampled against full evaluation, the cells ordered by %s of all test pairs: Kendall's τ_b %s.\n",
			metricLabel(metrics.MetricRecall, s.ks[metrics.MetricRecall][0]), strings.Join(taus, " and "))
	}
}

// best names the group of the highest mean at c, with its mean and 95% interval; groups of
// equal means are all named.
func (s *summary) best(c coord) string {
	top := math.Inf(-1)
	var who []string
	var v agg
	for _, g := range s.groups {
		x, ok := s.values[aggKey{g, c}]
		switch {
		case !ok || x.Mean < top:
			continue
		case x.Mean > top:
			top, who, v = x.Mean, nil, x
		}
		who = append(who, s.label(g))
	}
	if len(who) == 0 {
		return "–"
	}
	lo, hi := v.interval()
	mark := ""
	if v.N < 2 {
		mark = "ᵇ"
	}
	return fmt.Sprintf("%s: %s %s%s", strings.Join(who, " = "), decimals(v.Mean, 4, false), bounds(lo, hi), mark)
}

// writeDigestContrasts writes the digest's lines on the contrasts: how many rows survive the
// adjustment, the first of them (the full ranking's metrics first), and the unresolved ones.
func writeDigestContrasts(w io.Writer, rows []contrastRow, rs Settings) {
	var sig []contrastRow
	unresolved, pairs := 0, 0
	for _, r := range rows {
		if r.significant() {
			sig = append(sig, r)
		}
		switch r.method {
		case pUnresolved:
			unresolved++
		case pPairs:
			pairs++
		}
	}
	full := func(r contrastRow) int {
		if r.Test == metrics.TestNatural && slices.Contains(metrics.Metrics(), r.Metric) {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(sig, func(a, b contrastRow) int { return full(a) - full(b) })
	fmt.Fprintf(w, "\nContrasts: %d of %d rows (contrast × slice × metric × K) have a p-value below 0.05 %s", len(sig), len(rows), adjustText(rs.Adjust))
	if len(sig) == 0 {
		fmt.Fprintf(w, ".\n")
	} else {
		fmt.Fprintf(w, ":\n\n")
		for _, r := range sig[:min(len(sig), digestContrasts)] {
			few := ""
			if r.method == pSeeds && r.N < minSeedsT {
				few = "; " + studentT(r.N)
			}
			fmt.Fprintf(w, "- %s: %s, %s: %s (p = %s%s)\n", r.label(), r.rowName(), r.Slice, r.text(), pText(r.pAdjusted), few)
		}
		if n := len(sig) - digestContrasts; n > 0 {
			fmt.Fprintf(w, "- and %d more (contrasts.csv, the Contrasts section below)\n", n)
		}
	}
	if pairs > 0 {
		fmt.Fprintf(w, "\n%d rows take their p-value from the paired randomisation test over test pairs (ᵖ): one common seed, or seeds that all differ alike.\n", pairs)
	}
	if unresolved > 0 {
		fmt.Fprintf(w, "\n%d rows are unresolved (ᵘ): every seed differs by the same amount, and the metric has no values per test pair to test instead.\n", unresolved)
	}
}

// pText writes the p-value p of a digest line with two significant digits, or with as many more
// as a p-value below 0.05 needs not to read as 0.05: the ✱ beside it says that it is below.
func pText(p float64) string {
	text := strconv.FormatFloat(p, 'g', 2, 64)
	for digits := 3; p < 0.05 && digits <= 17; digits++ {
		if v, _ := strconv.ParseFloat(text, 64); v < 0.05 {
			break
		}
		text = strconv.FormatFloat(p, 'g', digits, 64)
	}
	return text
}

// rowName names the row's metric, K and test set, e.g. "Recall@10" or "Recall@10, debiased test
// set".
func (r contrastRow) rowName() string { return tableKey{0, r.Metric, r.K, r.Test}.name() }
