package report

import (
	"fmt"
	"io"

	"github.com/samplingbias/workbench/metrics"
)

// writeBinsSummary writes the popularity bins' section of summary.md when slices.method cuts the
// items into bins: each bin's items, training counts, training-interaction share and test-pair
// share, then per K the Recall@K of every cell by bin with its macro-Recall@K and balance
// (metrics.PopularityBalance) over the bins that have test pairs.
func writeBinsSummary(w io.Writer, s *summary) {
	if len(s.bins) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Popularity bins\n\nItems by decreasing training count in %d bins (bin1 the most frequent; items of equal count never split).\n\n", len(s.bins))
	fmt.Fprintf(w, "| bin | items | training counts | training interactions | test pairs |\n|---|---|---|---|---|\n")
	var present []metrics.Slice
	for i, b := range s.bins {
		fmt.Fprintf(w, "| %s | %d | %d–%d | %.1f%% | %.1f%% |\n", metrics.SliceBin(i), b.Items, b.MinCount, b.MaxCount, 100*b.Train, 100*b.Test)
		if b.Test > 0 {
			present = append(present, metrics.SliceBin(i))
		}
	}
	tau := s.refTau()
	for _, k := range s.ks[metrics.MetricRecall] {
		fmt.Fprintf(w, "\n### %s by popularity bin\n\nMean across seeds per bin; macro = the unweighted mean over the %d bins with test pairs, "+
			"balance = 1 − Gini of the per-bin recalls (Prakash et al. 2024; 1 = every bin recalled alike).\n\n| run |", s.refMetric(k), len(present))
		for _, sl := range present {
			fmt.Fprintf(w, " %s |", sl)
		}
		fmt.Fprintf(w, " macro | balance |\n|---|")
		for range len(present) + 2 {
			fmt.Fprint(w, "---|")
		}
		fmt.Fprintln(w)
		for _, g := range s.groups {
			fmt.Fprintf(w, "| %s |", mdCell(s.label(g)))
			recalls := make([]float64, 0, len(present))
			for _, sl := range present {
				v, ok := s.values[aggKey{g, coord{tau, sl, metrics.MetricRecall, k, metrics.TestNatural}}]
				if !ok {
					fmt.Fprint(w, " – |")
					continue
				}
				recalls = append(recalls, v.Mean)
				fmt.Fprintf(w, " %s |", decimals(v.Mean, 4, false))
			}
			if len(recalls) == len(present) && len(recalls) > 0 {
				macro, balance := metrics.PopularityBalance(recalls)
				fmt.Fprintf(w, " %s | %s |\n", decimals(macro, 4, false), decimals(balance, 3, false))
			} else {
				fmt.Fprint(w, " – | – |\n")
			}
		}
	}
}
