package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/samplingbias/workbench/metrics"
)

// auditNotes are the summary's lines of the runs' sampler audits (sampler.audit = true), one per
// group: the means over its seeds of the total-variation distance between the declared and the
// drawn copies of each item, of its sampling-noise floor and of the head's worst relative error
// (samplers.AuditSummary), and the verdict of the check of every step and item
// (samplers.Audit.Check), or "Q undefined" for a sampler without a law.
func auditNotes(recs []*Run) []string {
	var groups []string
	sums := map[string][4]float64{}
	checks := map[string]*auditChecks{}
	mass := map[string][2]float64{} // Σ Mass over the seeds that recorded it, and their number
	head := map[string]int{}
	undefined := map[string]bool{}
	for _, rec := range recs {
		a := rec.Audit
		if a == nil {
			continue
		}
		if _, ok := sums[rec.Group]; !ok {
			groups = append(groups, rec.Group)
			head[rec.Group] = a.Head
		}
		undefined[rec.Group] = undefined[rec.Group] || a.QUndefined
		if checks[rec.Group] == nil {
			checks[rec.Group] = &auditChecks{}
		}
		checks[rec.Group].add(rec.Seed, a)
		v := sums[rec.Group]
		sums[rec.Group] = [4]float64{v[0] + a.TV, v[1] + a.Floor, v[2] + a.HeadWorst, v[3] + 1}
		if a.Mass > 0 {
			m := mass[rec.Group]
			mass[rec.Group] = [2]float64{m[0] + a.Mass, m[1] + 1}
		}
	}
	notes := make([]string, len(groups))
	for i, g := range groups {
		v, h, ms := sums[g], head[g], mass[g]
		if g == "" {
			g = "the runs"
		}
		n := v[3]
		if undefined[groups[i]] {
			notes[i] = fmt.Sprintf("sampler audit of %s (sampler_audit.csv): Q undefined (the sampler draws by the model's scores, "+
				"so no law of its draws exists to compare them with; the file gives the drawn frequencies only)", g)
			continue
		}
		seeds := fmt.Sprintf("mean of %d seeds", int(n))
		if n == 1 {
			seeds = "one seed"
		}
		notes[i] = fmt.Sprintf("sampler audit of %s (sampler_audit.csv, %s): total variation %s between the copies "+
			"the loss's q declares and those drawn, against %s from sampling noise alone (i.i.d. draws from the declared law; "+
			"%s); worst relative error among the %d most frequent items %s",
			g, seeds, decimals(v[0]/n, 4, false), decimals(v[1]/n, 4, false), auditVerdict(v[0]/n, v[1]/n), h, decimals(v[2]/n, 4, false))
		if ms[1] > 0 {
			notes[i] += massVerdict(ms[0] / ms[1])
		}
		notes[i] += checks[groups[i]].verdict(int(n))
	}
	return notes
}

// auditChecks are a group's verdicts of the check of every step and item (Audit.Failure).
type auditChecks struct {
	failed    int
	seed      int    // of the first seed that failed
	failure   string // its failure
	unchecked int    // seeds whose records predate the check
}

// add counts the verdict of the audit a of the run of seed seed.
func (c *auditChecks) add(seed int64, a *Audit) {
	switch {
	case a.Unchecked:
		c.unchecked++
	case a.Failure != "":
		if c.failed == 0 {
			c.seed, c.failure = int(seed), a.Failure
		}
		c.failed++
	}
}

// verdict is the summary's clause on the checks of a group of n seeds: none when every seed
// passed them.
func (c *auditChecks) verdict(n int) string {
	s := ""
	if c.failed > 0 {
		of := fmt.Sprintf("in %d of %d seeds, first seed %d", c.failed, n, c.seed)
		if n == 1 {
			of = fmt.Sprintf("(seed %d)", c.seed)
		}
		s = fmt.Sprintf("; the check of every step's declarations and of every item against its draws (as samplerstest.Audit's) fails %s: %s: "+
			"the declared q or p is not the law of the draws", of, c.failure)
	}
	if c.unchecked > 0 {
		s += fmt.Sprintf("; %d of %d seeds' records predate the check of every step and item: run them again to check their declarations", c.unchecked, n)
	}
	return s
}

// auditMismatch is the ratio of an audit's TV to its noise floor above which the summary says that
// the draws do not follow the declared law. Under the declared law the TV's mean is the floor and
// its relative spread about 0.75/√M′ over M′ drawn items (each item's absolute deviation has a
// relative spread near 0.75): 1.5 floors is more than 3 spreads for M′ ≥ 20 and many more for
// the shipped corpora's thousands of items.
const auditMismatch = 1.5

// auditMassExcess is the ratio of the declared copies' sum over the drawn items to the drawn
// copies' (samplers.AuditSummary.Mass) above which the summary says that the declarations exceed
// the draws. An exact law gives at most 1 (less by the declared mass of the items never drawn,
// which on a large corpus may be most of it, so a low mass says nothing): a declaration too
// large by a constant factor, or none at all (q = 1), shows here and not in the TV, which
// compares normalised distributions.
const auditMassExcess = 1.1

// massVerdict is the summary's clause on the declared mass m: none when it is within the law's
// bound (or was not recorded).
func massVerdict(m float64) string {
	if m <= auditMassExcess {
		return ""
	}
	return fmt.Sprintf("; the declared copies of the drawn items sum to %.3f times the copies drawn, which an exact law never exceeds: "+
		"the declared q is too large (a constant factor, or no declaration), which the TV cannot see", m)
}

// auditVerdict says whether a TV of tv against a floor of floor is sampling noise.
func auditVerdict(tv, floor float64) string {
	if !(floor > 0) {
		return "no draws"
	}
	if tv > auditMismatch*floor {
		return fmt.Sprintf("%.1f times the floor: the draws do not follow the declared law", tv/floor)
	}
	return fmt.Sprintf("%.2f times the floor: within sampling noise", tv/floor)
}

// writeSummary writes summary.md: the slice sizes and seeds, a digest, the contrasts, the sanity
// baselines, the sampled evaluation against the full one, what the top-K lists recommend, then per
// metric and K a table of every group by slice, mean ± 95% CI half-width across seeds, the best
// mean of each column in bold; the popularity bins and the paired differences.
func writeSummary(w io.Writer, title string, s *summary, d *differences, rows []contrastRow, rs Settings, ag []agreementRow) error {
	fmt.Fprintf(w, "# %s\n\n", title)
	for _, l := range s.data {
		fmt.Fprintf(w, "%s\n\n", l)
	}
	fmt.Fprintf(w, "Mean ± half-width of the 95%% Student-t confidence interval across seeds; the best mean of each column is in **bold**. "+
		"A row of a single seed has no interval across seeds: it shows [lo, hi]ᵇ, the run's 95%% bootstrap percentile interval "+
		"over test pairs (the spread of evaluation, not of training), or no interval when evaluation made none.\n\n")
	fmt.Fprintf(w, "Slice sizes (items in the corpus, test pairs):")
	for _, sl := range metrics.Slices() {
		if sz, ok := s.sizes[sl]; ok {
			fmt.Fprintf(w, " %s %d / %d;", sl, sz[0], sz[1])
		}
	}
	for _, n := range s.notes {
		fmt.Fprintf(w, "\n\nNote: %s.", n)
	}
	fmt.Fprintf(w, "\n\nSeeds per row:")
	for _, g := range s.groups {
		fmt.Fprintf(w, " %s %d;", s.label(g), s.seeds[g])
	}
	fmt.Fprintln(w)
	writeSelectionSummary(w, s)
	writeDigest(w, s, rows, rs, ag)
	writeContrastsSummary(w, s, rows, rs)
	writeBaselinesSummary(w, s)
	writeAgreementSummary(w, s, ag, rows)
	writeExposureSummary(w, s)
	header, rule := sliceColumns(s.tableSlices())
	s.eachTable(true, func(tk tableKey) {
		fmt.Fprintf(w, "\n## %s\n\n| run |%s\n|---|%s\n", tk.name(), header, rule)
		best := map[metrics.Slice]float64{}
		for _, sl := range s.tableSlices() {
			best[sl] = math.Inf(-1)
			for _, g := range s.groups {
				if v, ok := s.values[aggKey{g, coord{tk.Tau, sl, tk.Metric, tk.K, tk.Test}}]; ok && v.Mean > best[sl] {
					best[sl] = v.Mean
				}
			}
		}
		for _, g := range s.groups {
			fmt.Fprintf(w, "| %s |", mdCell(s.label(g)))
			for _, sl := range s.tableSlices() {
				v, ok := s.values[aggKey{g, coord{tk.Tau, sl, tk.Metric, tk.K, tk.Test}}]
				if !ok {
					fmt.Fprint(w, " – |")
					continue
				}
				cellText := v.text()
				if v.Mean == best[sl] {
					cellText = "**" + cellText + "**"
				}
				fmt.Fprintf(w, " %s |", cellText)
			}
			fmt.Fprintln(w)
		}
	})
	writeBinsSummary(w, s)
	writeDifferencesSummary(w, s, d, s.label)
	return nil
}

// dataLines are summary.md's lines on the data: the split of the first run that states one, with
// its test pairs of a cold item or query (and, when the runs' splits differ, which run's it is),
// and, when test pairs have a cold query and a query tower reads histories, what their empty
// histories rank; none when no run states its split.
func dataLines(recs []*Run) []string {
	var first *Run
	differ := false
	var encoders []string
	for _, r := range recs {
		if r.Split == nil {
			continue
		}
		if first == nil {
			first = r
		}
		a, b := *r.Split, *first.Split
		a.History, b.History = "", "" // cells may differ in their query towers
		differ = differ || a != b
		if h := r.Split.History; h != "" && !slices.Contains(encoders, h) {
			encoders = append(encoders, h)
		}
	}
	if first == nil {
		return nil
	}
	sp := first.Split
	valid := ""
	if sp.Valid > 0 {
		valid = fmt.Sprintf(", %s validation", grouped(sp.Valid))
	}
	line := fmt.Sprintf("Data: %s, %s training pairs%s, %s test (%s with a cold item, %s with a cold query)", first.Dataset,
		grouped(sp.Train), valid, grouped(sp.Test), grouped(sp.ColdItems), grouped(sp.ColdQueries))
	if differ {
		line += fmt.Sprintf(", of %s: the runs' splits differ", first.ID)
	}
	lines := []string{line + "."}
	if sp.ColdQueries == 0 {
		return lines
	}
	share := float64(sp.ColdQueries) / float64(sp.Test)
	for _, e := range encoders {
		switch e {
		case "sasrec":
			line := fmt.Sprintf("The %s test pairs with a cold query (%s%%) have an empty history, which SASRec reads as a zero query: "+
				"every item scores 0 for them and their item ranks last as trained (τ_LA = 0), so that no cell's Recall@K over all test pairs "+
				"as trained can exceed %s (docs/encoders.md).", grouped(sp.ColdQueries), decimals(100*share, 1, false), decimals(1-share, 4, false))
			if adjusted(recs, e) {
				line += " Post-hoc logit adjustment (τ_LA ≠ 0) ranks the items for them by −τ_LA·log π alone, and the bound does not hold for it."
			}
			lines = append(lines, line)
		case "mean":
			lines = append(lines, fmt.Sprintf("The %s test pairs with a cold query (%s%%) have an empty history, whose mean is zero: "+
				"the history-mean tower's query for them is the user's own features alone, which no training pair of theirs has trained (docs/encoders.md).",
				grouped(sp.ColdQueries), decimals(100*share, 1, false)))
		}
	}
	return lines
}

// adjusted reports whether a run whose query tower reads histories by encoder has results under
// post-hoc logit adjustment (τ_LA ≠ 0).
func adjusted(recs []*Run, encoder string) bool {
	for _, r := range recs {
		if r.Split == nil || r.Split.History != encoder {
			continue
		}
		for _, x := range r.Results {
			if x.Tau != 0 {
				return true
			}
		}
	}
	return false
}

// grouped writes n with its digits in groups of three: 5,330.
func grouped(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// text writes v for a summary table: mean ± half-width across seeds, or, for a single seed, the
// bootstrap interval over test pairs marked ᵇ, or the mean alone.
func (v agg) text() string {
	switch {
	case v.N >= 2:
		return decimals(v.Mean, 4, false) + " ± " + decimals(v.Hi-v.Mean, 4, false)
	case len(v.Boot) > 0 && v.Boot[0][0] < v.Boot[0][1]:
		return decimals(v.Mean, 4, false) + " " + bounds(v.Boot[0][0], v.Boot[0][1]) + "ᵇ"
	}
	return decimals(v.Mean, 4, false)
}

// unitMetric reports whether every value of metric m lies in [0, 1]: the metrics of ranks and
// of shares.
func unitMetric(m metrics.Metric) bool {
	switch m {
	case metrics.MetricRecall, metrics.MetricNDCG, metrics.MetricMRR, metrics.MetricStratRecall,
		metrics.MetricSampledRecall, metrics.MetricSampledNDCG, metrics.MetricSampledMRR,
		metrics.MetricAPLT, metrics.MetricCoverage, metrics.MetricGini, metrics.MetricPSP, metrics.MetricPSRecall:
		return true
	}
	return false
}

// beyondUnit is summary.md's note on the 95% intervals across seeds of metrics in [0, 1] that
// reach below 0 or above 1, the first of them in the order of keys as the example; none when no
// interval does. They are shown as computed: the Student-t interval is symmetric about the
// mean, so that mean ± half-width is the interval itself, and a bound past 0 or 1 says that the
// seeds are too few or too spread to bound the mean on that side, which a clipped bound would
// hide.
func (s *summary) beyondUnit(keys []aggKey) []string {
	n, example := 0, ""
	for _, k := range keys {
		v := s.values[k]
		if v.N < 2 || !unitMetric(k.Metric) || (v.Lo >= 0 && v.Hi <= 1) {
			continue
		}
		if n == 0 {
			example = fmt.Sprintf("%s, %s, %s: %s", s.label(k.Group), tableKey{k.Tau, k.Metric, k.K, k.Test}.name(), k.Slice, bounds(v.Lo, v.Hi))
		}
		n++
	}
	if n == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d of the 95%% intervals across seeds of metrics that lie in [0, 1] reach below 0 or above 1 (e.g. %s); "+
		"they are shown as computed, not clipped: the Student-t interval is symmetric about the mean and knows no bounds, and one that "+
		"passes 0 or 1 says that the seeds are too few or too spread to bound the mean on that side (the figures draw it clipped to [0, 1])", n, example)}
}

// decimals writes x with places decimals, as summary.md's tables do ("%.4f", or "%+.4f" with
// plus), unless x is not zero and would read as zero at that precision: then with two
// significant digits ("-1.3e-05"), so that an estimate, a difference or a bound of an interval
// that is not zero never reads as 0.0000.
func decimals(x float64, places int, plus bool) string {
	flag := ""
	if plus {
		flag = "+"
	}
	text := fmt.Sprintf("%"+flag+".*f", places, x)
	if v, err := strconv.ParseFloat(text, 64); err == nil && v == 0 && x != 0 {
		return fmt.Sprintf("%"+flag+".2g", x)
	}
	return text
}

// bounds writes the interval [lo, hi] with four decimals (decimals).
func bounds(lo, hi float64) string {
	return "[" + decimals(lo, 4, false) + ", " + decimals(hi, 4, false) + "]"
}

// mdCell is text for a cell of a markdown table: a "|" in it (a label of plots.labels, a
// contrast's name) is escaped, as GitHub's tables read it, so that it does not end the cell.
func mdCell(text string) string { return strings.ReplaceAll(text, "|", `\|`) }

// metricLabel names a metric at K as in papers: Recall@10, NDCG@10, MRR.
func metricLabel(metric metrics.Metric, k int) string {
	names := map[metrics.Metric]string{
		metrics.MetricRecall: "Recall", metrics.MetricNDCG: "NDCG", metrics.MetricMRR: "MRR",
		metrics.MetricStratRecall: "Popularity-stratified Recall", metrics.MetricSampledRecall: "Sampled HR",
		metrics.MetricSampledNDCG: "Sampled NDCG", metrics.MetricSampledMRR: "Sampled MRR",
		metrics.MetricCorrectedRecall: "Corrected Recall", metrics.MetricCorrectedNDCG: "Corrected NDCG",
		metrics.MetricARP: "ARP", metrics.MetricAPLT: "APLT", metrics.MetricCoverage: "Coverage", metrics.MetricGini: "Gini",
		metrics.MetricNovelty: "Novelty", metrics.MetricPSP: "PSP", metrics.MetricPSRecall: "PSRecall",
	}
	name, ok := names[metric]
	if !ok {
		name = cmp.Or(calibrationLabels[metric], string(metric))
	}
	if k == 0 {
		return name
	}
	return fmt.Sprintf("%s@%d", name, k)
}
