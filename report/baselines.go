package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/plots"
)

// baselines are a report's sanity baselines, computed without training and filtered as the runs'
// rankings are: the most-popular ranking (Run.MostPopular, metrics.MostPopular) and the random
// ranking (Run.random: metrics.RandomBaseline, or metrics.RandomRecall for a record without it),
// both evaluated with each run. Both are the same for every cell of a seed, so each seed counts
// once.
type baselines struct {
	popular map[coord]agg
	popKeys []coord
	random  map[sliceK]chance // of the first seed's data
}

// sliceK is a Recall@K of a slice.
type sliceK struct {
	slice metrics.Slice
	k     int
}

// chance is the random ranking's Recall@K: its expectation and the central 95% range of the
// recall over the evaluated pairs.
type chance struct{ p, lo, hi float64 }

// collectBaselines gathers the baselines of recs.
func collectBaselines(recs []*Run) baselines {
	b := baselines{random: map[sliceK]chance{}}
	popular := newSeedResults[coord]()
	seen := map[int64]bool{}
	for _, rec := range recs {
		if seen[rec.Seed] {
			continue
		}
		seen[rec.Seed] = true
		for _, r := range rec.MostPopular {
			popular.add(coordOf(r), r)
		}
		if len(seen) > 1 {
			continue
		}
		for _, r := range rec.random() {
			key := sliceK{r.Slice, r.K}
			if _, ok := b.random[key]; !ok {
				b.random[key] = chance{r.Value, r.Lo, r.Hi}
			}
		}
	}
	b.popKeys, b.popular = popular.keys, popular.aggregate()
	return b
}

// writeBaselineRows appends the baselines to metrics.csv, of kind "baseline": run
// "most_popular" (one row per seed and number) and run "random" (the expected Recall@K, per
// seed), τ 0, the natural test set and no axis values.
func writeBaselineRows(cw *csv.Writer, recs []*Run, c csvColumns, axes int) error {
	seen := map[int64]bool{}
	empty := axes // the baselines' selected_la_tau and axis values
	if c.selected {
		empty++
	}
	write := func(run string, seed int64, r metrics.Result) error {
		r.Tau, r.Test = 0, metrics.TestNatural
		return cw.Write(append(c.row(run, kindBaseline, seed, r), make([]string, empty)...))
	}
	for _, rec := range recs {
		if seen[rec.Seed] {
			continue
		}
		seen[rec.Seed] = true
		for _, r := range rec.MostPopular {
			if err := write("most_popular", rec.Seed, r); err != nil {
				return err
			}
		}
		for _, r := range rec.random() {
			if err := write("random", rec.Seed, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// random is the random ranking's Recall@K of the run's test pairs, by slice and K: as recorded
// (filtered as the run's rankings are), or, for a record without it, metrics.RandomRecall's of
// the run's corpus over the pairs of its Recall@K results at the first τ of the natural test set.
func (rec *Run) random() []metrics.Result {
	if rec.Random != nil {
		return rec.Random
	}
	var out []metrics.Result
	for _, r := range rec.Results {
		if r.Metric == metrics.MetricRecall && r.Tau == rec.Results[0].Tau && r.Test == metrics.TestNatural && r.Pairs > 0 && rec.Items > 0 {
			r.Value, r.Lo, r.Hi = metrics.RandomRecall(r.K, rec.Items, r.Pairs)
			out = append(out, r)
		}
	}
	return out
}

// interval is the 95% interval of a summary value: across seeds, or the single run's bootstrap
// interval over test pairs.
func (v agg) interval() (lo, hi float64) {
	if v.N >= 2 || len(v.Boot) == 0 {
		return v.Lo, v.Hi
	}
	return v.Boot[0][0], v.Boot[0][1]
}

// minSeedsT is the fewest seeds whose Student-t interval the report tells chance by. With 2
// seeds it has 1 degree of freedom (t = 12.7: a half-width of 9 standard deviations of the
// seeds), and it overlaps the random ranking's range unless the two seeds agree closely; a cell
// of fewer seeds is told from chance by its runs' bootstrap intervals over test pairs.
const minSeedsT = 3

// atChance reports whether v cannot be told from the random ranking of range c: its 95%
// Student-t interval across seeds overlaps c's range, or, with fewer than minSeedsT seeds, the
// bootstrap interval over test pairs of one of its runs does.
func (v agg) atChance(c chance) bool {
	if v.N >= minSeedsT {
		return v.Lo <= c.hi && v.Hi >= c.lo
	}
	for _, b := range v.Boot {
		if b[0] <= c.hi && b[1] >= c.lo {
			return true
		}
	}
	return false
}

// studentT names the Student-t interval across n seeds and its degrees of freedom, e.g. "2
// seeds: Student-t with 1 degree of freedom".
func studentT(n int) string {
	if n == 2 {
		return "2 seeds: Student-t with 1 degree of freedom"
	}
	return fmt.Sprintf("%d seeds: Student-t with %d degrees of freedom", n, n-1)
}

// chanceBasis says by which intervals the cells are told from chance, for each number of seeds
// of the groups, most seeds first.
func (s *summary) chanceBasis() string {
	var counts []int
	for _, g := range s.groups {
		if !slices.Contains(counts, s.seeds[g]) {
			counts = append(counts, s.seeds[g])
		}
	}
	slices.Sort(counts)
	slices.Reverse(counts)
	parts := make([]string, len(counts))
	for i, n := range counts {
		switch {
		case n >= minSeedsT:
			parts[i] = studentT(n)
		case n == 2:
			parts[i] = studentT(n) + ", too wide to tell, so each seed's bootstrap interval over test pairs instead, at chance when one overlaps"
		default:
			parts[i] = "1 seed: its bootstrap interval over test pairs"
		}
	}
	return strings.Join(parts, "; ")
}

// writeBaselinesSummary writes the baselines' section of summary.md: per Recall@K, the two
// baselines by slice, then the cells whose 95% interval overlaps the random ranking's range.
func writeBaselinesSummary(w io.Writer, s *summary) {
	b := s.base
	if len(b.random) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Sanity baselines\n\nComputed without training, on the models' protocol: the items eval.filter drops from a query's ranking are dropped "+
		"from the baselines' too. most_popular ranks every item by its training count, the same ranking for every query "+
		"(mean ± 95%% interval across seeds, as above). random is a uniformly random ranking: Recall@K = min(K, M′)/M′ per test pair, M′ the items "+
		"its ranking holds (M = %d without a filter), averaged over the slice's evaluated pairs and "+
		"shown with [lo, hi]ᶜ, the central 95%% range of the recall a random ranking gets over them.\n", s.corpus)
	header, rule := sliceColumns(s.tableSlices())
	for _, k := range s.ks[metrics.MetricRecall] {
		fmt.Fprintf(w, "\n### Recall@%d\n\n| baseline |%s\n|---|%s\n| most_popular |", k, header, rule)
		for _, sl := range s.tableSlices() {
			if v, ok := b.popular[coord{0, sl, metrics.MetricRecall, k, metrics.TestNatural}]; ok {
				fmt.Fprintf(w, " %s |", v.text())
			} else {
				fmt.Fprint(w, " – |")
			}
		}
		fmt.Fprint(w, "\n| random |")
		for _, sl := range s.tableSlices() {
			if c, ok := b.random[sliceK{sl, k}]; ok {
				fmt.Fprintf(w, " %s %sᶜ |", decimals(c.p, 4, false), bounds(c.lo, c.hi))
			} else {
				fmt.Fprint(w, " – |")
			}
		}
		fmt.Fprintln(w)
	}
	flagged := s.atChance()
	if len(flagged) == 0 {
		fmt.Fprintf(w, "\nNo cell's 95%% interval overlaps the random ranking's range (%s).\n", s.chanceBasis())
		return
	}
	fmt.Fprintf(w, "\n**Indistinguishable from chance** (95%% interval overlapping the random ranking's range; %s): %s.\n",
		s.chanceBasis(), strings.Join(flagged, "; "))
}

// atChance lists the cells, with the slice, K and τ, whose Recall@K cannot be told from the
// random ranking (agg.atChance).
func (s *summary) atChance() []string {
	var flagged []string
	for _, k := range s.ks[metrics.MetricRecall] {
		for _, g := range s.groups {
			for _, tau := range s.taus {
				for _, sl := range s.slices() {
					v, ok := s.values[aggKey{g, coord{tau, sl, metrics.MetricRecall, k, metrics.TestNatural}}]
					c, okC := s.base.random[sliceK{sl, k}]
					if ok && okC && v.atChance(c) {
						at := ""
						if tau != 0 {
							at = fmt.Sprintf(", τ_LA = %g", tau)
						}
						flagged = append(flagged, fmt.Sprintf("%s (Recall@%d, %s%s)", s.label(g), k, sl, at))
					}
				}
			}
		}
	}
	return flagged
}

// refs are the sanity baselines' Recall@K by slice as the recall figures' reference levels: the
// most-popular ranking (mean over seeds) and the random ranking's expectation (K/M without a
// filter); none when no run recorded them.
func (b baselines) refs(sls []metrics.Slice, k int) []plots.BarRef {
	popular := plots.BarRef{Name: "most popular (no training)"}
	random := plots.BarRef{Name: "random ranking"}
	anyP, anyR := false, false
	for _, sl := range sls {
		v, okP := b.popular[coord{0, sl, metrics.MetricRecall, k, metrics.TestNatural}]
		c, okR := b.random[sliceK{sl, k}]
		popular.Values = append(popular.Values, math.NaN())
		random.Values = append(random.Values, math.NaN())
		if okP {
			popular.Values[len(popular.Values)-1], anyP = v.Mean, true
		}
		if okR {
			random.Values[len(random.Values)-1], anyR = c.p, true
		}
	}
	var out []plots.BarRef
	if anyP {
		out = append(out, popular)
	}
	if anyR {
		out = append(out, random)
	}
	return out
}
