package workbench

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/models"
	"github.com/samplingbias/workbench/report"
)

// Files of a run's evaluation beside metrics.json (see writeEvalFiles).
const (
	negativesFile = "negatives.tsv"
	qrelsFile     = "qrels.trec"
	itemsFile     = "items.tsv"
	pairsFile     = "pairs.tsv"
)

// runFileName is the run file of τ: run.trec for the ranking as trained (τ = 0), else
// run_la_tau=<τ>.trec.
func runFileName(tau float64) string {
	if tau == 0 {
		return "run.trec"
	}
	return "run_la_tau=" + strconv.FormatFloat(tau, 'g', -1, 64) + ".trec"
}

// checkEval refuses, before anything trains, an evaluation the run's data cannot give: a
// cut-off K that ranks the whole corpus, more sampled negatives than a test pair has items to draw from (the corpus without the pair's item
// and its query's known positives), or popularity negatives from a corpus with too few items
// seen in training.
func checkEval(cfg *Config, ds *datasets.Dataset, counts []int64) error {
	for _, k := range cfg.Eval.K {
		if k >= ds.Items {
			return fmt.Errorf("eval.k: %d ranks the whole corpus of %d items, where every Recall@%d is 1: use cut-offs below the corpus size", k, ds.Items, k)
		}
	}
	sm := cfg.Eval.Sampled
	if !sm.On() {
		return nil
	}
	if sm.Negatives >= ds.Items {
		return fmt.Errorf("eval.sampled.negatives: %d negatives per test pair from a corpus of %d items: use fewer than the corpus minus the pair's item", sm.Negatives, ds.Items)
	}
	popularity := sm.Kind == metrics.NegativesPopularity
	seen := 0
	for _, c := range counts {
		if c > 0 {
			seen++
		}
	}
	if popularity && seen <= sm.Negatives {
		return fmt.Errorf("eval.sampled.kind: popularity negatives are drawn ∝ the training count, and only %d of the %d items have one, not more than eval.sampled.negatives = %d: use kind = %q or fewer negatives",
			seen, ds.Items, sm.Negatives, metrics.NegativesUniform)
	}
	// The test pair with the fewest items left to draw from.
	known := ds.KnownPositives()
	for _, it := range ds.Test {
		ex := known[it.Query] // holds the pair's item
		left := ds.Items - len(ex)
		if popularity {
			left = seen
			for _, j := range ex {
				if counts[j] > 0 {
					left--
				}
			}
		}
		if left < sm.Negatives {
			return fmt.Errorf("eval.sampled.negatives: %d negatives per test pair, and the test pair (query %d, item %d) has %d items to draw from (the corpus without its query's %d known positives%s)",
				sm.Negatives, it.Query, it.Item, left, len(ex), map[bool]string{true: ", seen in training", false: ""}[popularity])
		}
	}
	return nil
}

// checkPropensity refuses [eval.propensity] values other than the defaults on data that is not
// multi-label, where PSP@K is not evaluated.
func checkPropensity(c *Config) error {
	p := c.Eval.Propensity
	if c.Data.Source == datasets.SourceXMC {
		return nil
	}
	for _, kv := range []struct {
		key      string
		v, deflt float64
	}{{"a", p.A, metrics.DefaultPropensityA}, {"b", p.B, metrics.DefaultPropensityB}} {
		if kv.v != kv.deflt {
			return fmt.Errorf("eval.propensity.%s: PSP@K and PSRecall@K are evaluated on multi-label data only (data.source = %q), not on %q; leave it out",
				kv.key, datasets.SourceXMC, c.Data.Source)
		}
	}
	return nil
}

// pairRanksOf is what the report's paired tests over test pairs need of ev: the pairs' ranks
// under every τ, their items' slices (itemSlice) and a digest identifying the pairs.
func pairRanksOf(ev *metrics.Evaluation, taus []float64, itemSlice []metrics.Slice) *report.PairRanks {
	h := sha256.New()
	var b [8]byte
	for _, p := range ev.Pairs {
		binary.LittleEndian.PutUint32(b[:4], uint32(p.Query))
		binary.LittleEndian.PutUint32(b[4:], uint32(p.Item))
		h.Write(b[:])
	}
	pr := &report.PairRanks{Pairs: hex.EncodeToString(h.Sum(nil)[:16]), Taus: taus, Slices: make([]metrics.Slice, len(ev.Pairs))}
	for p, pair := range ev.Pairs {
		pr.Slices[p] = itemSlice[pair.Item]
	}
	n := len(ev.Pairs)
	for k := range taus {
		pr.Full = append(pr.Full, ev.Ranks[k*n:(k+1)*n])
	}
	pr.Sampled, pr.SampledTau = ev.SampledRanks, ev.SampledTau
	return pr
}

// writeEvalFiles writes into the run's folder what its evaluation ev saves beside metrics.json,
// each atomically, and removes what an earlier evaluation saved and this one does not (a file
// of other settings would be stale): negatives.tsv with the sampled evaluation, the run files
// (one per strength of post-hoc logit adjustment evaluated), qrels.trec, and items.tsv and
// pairs.tsv, which map their docnos and qids to the ids of ds, with eval.write_run.
func writeEvalFiles(r plannedRun, ev *models.Evaluation, ds *datasets.Dataset, progress io.Writer) error {
	cfg := r.cfg
	queries, test := ev.Queries, len(ev.Input.Pairs)
	keep := map[string]bool{}
	if cfg.Eval.Sampled.On() {
		keep[negativesFile] = true
		if err := writeAtomic(filepath.Join(r.dir, negativesFile), func(w io.Writer) error {
			return writeNegatives(w, ev.Evaluation, queries)
		}); err != nil {
			return err
		}
	}
	if cfg.Eval.WriteRun {
		keep[qrelsFile], keep[itemsFile], keep[pairsFile] = true, true, true
		if err := writeAtomic(filepath.Join(r.dir, qrelsFile), ev.WriteQrels); err != nil {
			return err
		}
		if err := writeAtomic(filepath.Join(r.dir, itemsFile), func(w io.Writer) error { return writeItemIDs(w, ds) }); err != nil {
			return err
		}
		if err := writeAtomic(filepath.Join(r.dir, pairsFile), func(w io.Writer) error { return writePairIDs(w, ev.Evaluation, ds) }); err != nil {
			return err
		}
		tag := "workbench"
		if !strings.ContainsAny(r.ID, " \t") && r.ID != "" {
			tag = r.ID
		}
		var names []string
		for k, tau := range ev.Taus {
			name := runFileName(tau)
			keep[name] = true
			names = append(names, name)
			if err := writeAtomic(filepath.Join(r.dir, name), func(w io.Writer) error { return ev.WriteRun(w, k, tag) }); err != nil {
				return err
			}
		}
		what := fmt.Sprintf("every test pair's top %d of the full ranking", maxK(cfg.Eval.K))
		if n := len(ev.Pairs); n < test {
			what = fmt.Sprintf("the top %d of the full ranking of the %d test pairs of eval.max_pairs's sample (of %d)", maxK(cfg.Eval.K), n, test)
		}
		if cfg.Eval.Sampled.On() {
			what += "; the sampled evaluation's candidates are in " + negativesFile
		}
		runNote(progress, r.ID, "run files %s and %s: %s; %s and %s map their docnos and qids to the data's ids",
			strings.Join(names, ", "), qrelsFile, what, itemsFile, pairsFile)
	}
	return removeUnkept(r.dir, keep)
}

// removeUnkept removes from dir the evaluation files (negatives.tsv, qrels.trec, run*.trec,
// items.tsv, pairs.tsv) not in keep.
func removeUnkept(dir string, keep map[string]bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		run, _ := filepath.Match("run*.trec", name)
		if (run || name == qrelsFile || name == negativesFile || name == itemsFile || name == pairsFile) && !keep[name] {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// writeNegatives writes negatives.tsv: a header, then one line per evaluated test pair with its
// index (the qid of the run files), its query and item (the data's indices) and its negatives,
// separated by spaces.
func writeNegatives(w io.Writer, ev *metrics.Evaluation, queries []int32) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "pair\tquery\titem\tnegatives")
	var line []byte
	for p, pr := range ev.Pairs {
		line = strconv.AppendInt(line[:0], int64(p), 10)
		line = append(line, '\t')
		line = strconv.AppendInt(line, int64(queries[pr.Query]), 10)
		line = append(line, '\t')
		line = strconv.AppendInt(line, int64(pr.Item), 10)
		line = append(line, '\t')
		for i, j := range ev.Negatives[p] {
			if i > 0 {
				line = append(line, ' ')
			}
			line = strconv.AppendInt(line, int64(j), 10)
		}
		line = append(line, '\n')
		bw.Write(line)
	}
	return bw.Flush()
}

// writeItemIDs writes items.tsv: a header, then one line per item of ds with its docno in the
// run files (its index) and its id in the data (Dataset.ItemNames; the index when the source
// names none), tab-separated (tsvWriter).
func writeItemIDs(w io.Writer, ds *datasets.Dataset) error {
	tw := tsvWriter(w)
	tw.Write([]string{"docno", "item_id"})
	for j := range ds.Items {
		tw.Write([]string{strconv.Itoa(j), nameOf(ds.ItemNames, j)})
	}
	tw.Flush()
	return tw.Error()
}

// writePairIDs writes pairs.tsv: a header, then one line per test pair of ds that ev evaluated,
// with its qid in the run files and qrels (its index among the evaluated pairs), its query's and
// its item's ids in the data (Dataset.QueryNames and ItemNames; the index when the source names
// none) and its time in unix seconds (empty when the data have no timestamps), tab-separated
// (tsvWriter).
func writePairIDs(w io.Writer, ev *metrics.Evaluation, ds *datasets.Dataset) error {
	tw := tsvWriter(w)
	tw.Write([]string{"qid", "query_id", "item_id", "time"})
	for p := range ev.Pairs {
		i := p
		if ev.Sample != nil {
			i = int(ev.Sample[p])
		}
		it := ds.Test[i]
		at := ""
		if ds.Days > 0 {
			at = strconv.FormatInt(it.Time, 10)
		}
		tw.Write([]string{strconv.Itoa(p), nameOf(ds.QueryNames, int(it.Query)), nameOf(ds.ItemNames, int(it.Item)), at})
	}
	tw.Flush()
	return tw.Error()
}

// tsvWriter writes tab-separated records, a field quoted as in CSV when it holds a tab, a quote
// or a line break (or starts with a space), as CSV readers given the tab as separator read them.
func tsvWriter(w io.Writer) *csv.Writer {
	tw := csv.NewWriter(w)
	tw.Comma = '\t'
	return tw
}

// nameOf is names[i], or i when names is nil.
func nameOf(names []string, i int) string {
	if names == nil {
		return strconv.Itoa(i)
	}
	return names[i]
}

// maxK is the largest cut-off.
func maxK(ks []int) int {
	m := 0
	for _, k := range ks {
		m = max(m, k)
	}
	return m
}

// plannedResults are placeholders, at zero, of the results a run of cfg will have: every metric
// its evaluation gives at every K, slice and logit-adjustment strength, so that the report's
// check sees every metric and figure of the finished grid.
func plannedResults(cfg *Config) []metrics.Result {
	e := cfg.Eval
	family := []metrics.Metric{metrics.MetricRecall, metrics.MetricNDCG, metrics.MetricStratRecall}
	var sampled []metrics.Metric
	if e.Sampled.On() {
		sampled = []metrics.Metric{metrics.MetricSampledRecall, metrics.MetricSampledNDCG, metrics.MetricCorrectedRecall, metrics.MetricCorrectedNDCG}
	}
	var lists []metrics.Metric
	if e.Exposure != metrics.ExposureOff {
		lists = metrics.ExposureMetrics()
	}
	if cfg.Data.Source == datasets.SourceXMC {
		lists = append(lists, metrics.MetricPSP, metrics.MetricPSRecall)
	}
	taus := e.LogitAdjust
	if e.SelectLATau {
		taus = []float64{0} // the strength selected on validation, which the report reads at 0
	}
	ref := metrics.RefTau(taus)
	var out []metrics.Result
	for k, tau := range taus {
		at, fam := lists, family
		if k != ref && e.Exposure != metrics.ExposureAll {
			at = nil // the lists' metrics are of the ranking as trained only
		}
		if k == ref {
			fam = append(slices.Clone(family), sampled...) // so is the sampled evaluation
		}
		for _, sl := range runSlices(cfg.Slices) {
			for _, m := range fam {
				for _, k := range e.K {
					out = append(out, metrics.Result{Tau: tau, Slice: sl, Metric: m, K: k})
					if e.Debiased && (m == metrics.MetricRecall || m == metrics.MetricNDCG) {
						out = append(out, metrics.Result{Tau: tau, Slice: sl, Metric: m, K: k, Test: metrics.TestDebiased})
					}
				}
			}
			out = append(out, metrics.Result{Tau: tau, Slice: sl, Metric: metrics.MetricMRR})
			if e.Sampled.On() && k == ref {
				out = append(out, metrics.Result{Tau: tau, Slice: sl, Metric: metrics.MetricSampledMRR})
			}
			if e.Debiased {
				out = append(out, metrics.Result{Tau: tau, Slice: sl, Metric: metrics.MetricMRR, Test: metrics.TestDebiased})
			}
		}
		for _, m := range at {
			for _, k := range e.K {
				out = append(out, metrics.Result{Tau: tau, Slice: metrics.SliceAll, Metric: m, K: k})
			}
		}
	}
	return out
}
