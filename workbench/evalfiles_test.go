package workbench

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/metrics"
)

// metricsRows reads metrics.csv into its rows, each a map from column to value.
func metricsRows(t *testing.T, dir string) []map[string]string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(readFile(t, filepath.Join(dir, "metrics.csv")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

// trecScores scores a TREC run file against its qrels as trec_eval, ir_measures and ranx define
// Recall@K and NDCG@K with binary relevance, written here from those definitions and nothing of
// the workbench: per query, the documents sorted by score, decreasing (equal scores keep the
// file's order), Recall@K = relevant documents in the top K / relevant documents, NDCG@K =
// Σ_{i ≤ K, doc i relevant} 1/log2(i+1) over the same sum for the ideal ranking; the means over
// the queries of the qrels (a query with no line in the run scores 0).
func trecScores(t *testing.T, run, qrels string, k int) (recall, ndcg float64) {
	t.Helper()
	rel := map[string]map[string]bool{}
	for _, f := range fieldsOf(t, qrels, 4) {
		if rel[f[0]] == nil {
			rel[f[0]] = map[string]bool{}
		}
		if f[3] != "0" {
			rel[f[0]][f[2]] = true
		}
	}
	type doc struct {
		id    string
		score float64
	}
	ranked := map[string][]doc{}
	for _, f := range fieldsOf(t, run, 6) {
		s, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			t.Fatal(err)
		}
		ranked[f[0]] = append(ranked[f[0]], doc{f[2], s})
	}
	for q, rels := range rel {
		docs := ranked[q]
		sort.SliceStable(docs, func(i, j int) bool { return docs[i].score > docs[j].score })
		var hits, dcg, idcg float64
		for i, d := range docs[:min(k, len(docs))] {
			if rels[d.id] {
				hits++
				dcg += 1 / math.Log2(float64(i)+2)
			}
		}
		for i := range min(k, len(rels)) {
			idcg += 1 / math.Log2(float64(i)+2)
		}
		recall += hits / float64(len(rels))
		ndcg += dcg / idcg
	}
	return recall / float64(len(rel)), ndcg / float64(len(rel))
}

// fieldsOf reads a whitespace-separated file whose lines have n fields.
func fieldsOf(t *testing.T, path string, n int) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != n {
			t.Fatalf("%s: line %q has %d fields, want %d", path, sc.Text(), len(fs), n)
		}
		out = append(out, fs)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRunFilesMatchMetrics: with eval.write_run, each run's TREC run file scored against its
// qrels by an independent implementation of Recall@K and NDCG@K (trecScores) gives
// metrics.csv's values of all test pairs, for the ranking as trained and under post-hoc logit
// adjustment, with the filtered protocol (every query's other test items removed from a pair's
// ranking); each run says what its run files hold (with the sampled evaluation on, that its
// candidates are in negatives.tsv, not in the run files); items.tsv and pairs.tsv map the
// synthetic data's docnos to themselves, a line per item and per qid; the run files and the maps
// of a later evaluation without write_run are removed.
func TestRunFilesMatchMetrics(t *testing.T) {
	dir := t.TempDir()
	out, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-set", "eval.write_run=true", "-set", "eval.sampled.kind=uniform",
		"-set", "eval.filter=known", "-set", "eval.logit_adjust=[0,0.5]")
	if err != nil {
		t.Fatal(err)
	}
	if note := "run files run.trec, run_la_tau=0.5.trec and qrels.trec: every test pair's top 10 of the full ranking; " +
		"the sampled evaluation's candidates are in negatives.tsv"; strings.Count(out, note) != 4 {
		t.Errorf("the output does not say what each run's files hold (%q):\n%s", note, out)
	}
	want := map[string]float64{} // run|la_tau|metric|k
	for _, r := range metricsRows(t, dir) {
		if r["kind"] == "run" && r["slice"] == "all" && (r["metric"] == "recall" || r["metric"] == "ndcg") {
			v, err := strconv.ParseFloat(r["value"], 64)
			if err != nil {
				t.Fatal(err)
			}
			want[r["run"]+"|"+r["la_tau"]+"|"+r["metric"]+"|"+r["k"]] = v
		}
	}
	for _, id := range smokeRunIDs {
		runDir := filepath.Join(dir, "runs", id)
		for tau, file := range map[string]string{"0": "run.trec", "0.5": "run_la_tau=0.5.trec"} {
			for _, k := range []int{1, 10} {
				recall, ndcg := trecScores(t, filepath.Join(runDir, file), filepath.Join(runDir, "qrels.trec"), k)
				for m, got := range map[string]float64{"recall": recall, "ndcg": ndcg} {
					key := id + "|" + tau + "|" + m + "|" + strconv.Itoa(k)
					w, ok := want[key]
					if !ok {
						t.Fatalf("metrics.csv has no %s", key)
					}
					if math.Abs(got-w) > 5e-8*w+1e-15 { // metrics.csv holds 8 significant digits
						t.Errorf("%s: %s from the run file %v, metrics.csv %v", key, file, got, w)
					}
				}
			}
		}
	}
	// The synthetic source names no item or query: the maps give the indices.
	runDir := filepath.Join(dir, "runs", smokeRunIDs[0])
	docs := fieldsOf(t, filepath.Join(runDir, itemsFile), 2)
	pairs := fieldsOf(t, filepath.Join(runDir, pairsFile), 4)
	if len(docs) != 301 || len(pairs) != len(fieldsOf(t, filepath.Join(runDir, qrelsFile), 4))+1 {
		t.Errorf("%d lines in items.tsv (want 301: a header, 300 items) and %d in pairs.tsv (a header and a line per qrels line)", len(docs), len(pairs))
	}
	for j, d := range docs[1:] {
		if d[0] != strconv.Itoa(j) || d[1] != d[0] {
			t.Fatalf("items.tsv line %d %q, want docno %d and item id %d", j+2, d, j, j)
		}
	}
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-set", "eval.filter=known", "-set", "eval.logit_adjust=[0,0.5]"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"run.trec", "run_la_tau=0.5.trec", "qrels.trec", itemsFile, pairsFile} {
		if _, err := os.Stat(filepath.Join(dir, "runs", smokeRunIDs[0], f)); err == nil {
			t.Errorf("%s left from an evaluation that wrote it", f)
		}
	}
}

// TestRunFileIDs: with eval.write_run, items.tsv maps every docno to the data's item id and
// pairs.tsv every qid to its test pair's user id, item id and time, so that run.trec and
// qrels.trec join with the data: on interactions with string ids (one holding a tab and quotes),
// items.tsv has a line per item and names every item of the file, pairs.tsv a line per qid of
// qrels.trec, each a row of the file and each user's last (the leave_last_out split's test
// pairs, all of them or max_pairs' sample), and every qrels docno is its qid's item.
func TestRunFileIDs(t *testing.T) {
	dir := t.TempDir()
	const users, perUser = 60, 8
	items := []string{"item\t\"odd\""}
	for j := range 39 {
		items = append(items, fmt.Sprintf("item%d", 1000+j))
	}
	var data strings.Builder
	cw := csv.NewWriter(&data)
	cw.Write([]string{"user_id", "item_id", "ts"})
	rows := map[string]bool{}   // user|item|time
	last := map[string]string{} // user → user|item|time of its last row
	for u := range users {
		for e := range perUser {
			user, item, ts := fmt.Sprintf("u%d", u), items[(u*3+e*7)%len(items)], strconv.Itoa(1600000000+u*1000+e*60)
			cw.Write([]string{user, item, ts})
			rows[user+"|"+item+"|"+ts] = true
			last[user] = user + "|" + item + "|" + ts
		}
	}
	cw.Flush()
	write(t, filepath.Join(dir, "events.csv"), data.String())
	config := filepath.Join(dir, "exp.toml")
	write(t, config, "[data]\nsource = \"interactions\"\npath = \"events.csv\"\n[data.interactions]\nuser = \"user_id\"\nitem = \"item_id\"\ntime = \"ts\"\nrating = \"none\"\n"+
		"[data.split]\nkind = \"leave_last_out\"\n[model]\nembedding_dim = 8\nhidden = [8]\n[train]\nbatch_size = 64\nepochs = 1\n[eval]\nk = [5]\nbootstrap = 10\nwrite_run = true\n")
	tsv := func(t *testing.T, path string, header ...string) [][]string {
		t.Helper()
		r := csv.NewReader(bytes.NewReader(readFile(t, path)))
		r.Comma = '\t'
		recs, err := r.ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !slices.Equal(recs[0], header) {
			t.Fatalf("%s: header %q, want %q", path, recs[0], header)
		}
		return recs[1:]
	}
	for _, c := range []struct {
		name  string
		sets  []string
		pairs int
	}{{"all test pairs", nil, users}, {"max_pairs", []string{"-set", "eval.max_pairs=20"}, 20}} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			if _, err := runCommand(t, append([]string{"-config", config, "-out", out}, c.sets...)...); err != nil {
				t.Fatal(err)
			}
			runDir := filepath.Join(out, "runs", "seed=1")
			docs := tsv(t, filepath.Join(runDir, itemsFile), "docno", "item_id")
			if len(docs) != len(items) {
				t.Fatalf("items.tsv: %d items, want %d", len(docs), len(items))
			}
			itemOf := map[string]string{}
			for j, d := range docs {
				if d[0] != strconv.Itoa(j) {
					t.Fatalf("items.tsv: line %d has docno %s", j+2, d[0])
				}
				itemOf[d[0]] = d[1]
			}
			if names := slices.Sorted(maps.Values(itemOf)); !slices.Equal(names, slices.Sorted(slices.Values(items))) {
				t.Errorf("items.tsv names %q, want the file's items %q", names, items)
			}
			pairs := tsv(t, filepath.Join(runDir, pairsFile), "qid", "query_id", "item_id", "time")
			qrels := fieldsOf(t, filepath.Join(runDir, qrelsFile), 4)
			if len(pairs) != c.pairs || len(qrels) != c.pairs {
				t.Fatalf("%d lines in pairs.tsv and %d in qrels.trec, want %d", len(pairs), len(qrels), c.pairs)
			}
			seen := map[string]bool{}
			for p, pr := range pairs {
				row := pr[1] + "|" + pr[2] + "|" + pr[3]
				if pr[0] != strconv.Itoa(p) || !rows[row] || last[pr[1]] != row || seen[row] {
					t.Errorf("pairs.tsv line %d %q: not qid %d with its user's last row of the file, once", p+2, pr, p)
				}
				seen[row] = true
				if q := qrels[p]; q[0] != pr[0] || itemOf[q[2]] != pr[2] {
					t.Errorf("qrels.trec line %d %q: docno %s is item %q, pairs.tsv's qid %s item %q", p+1, q, q[2], itemOf[q[2]], pr[0], pr[2])
				}
			}
			for _, f := range fieldsOf(t, filepath.Join(runDir, "run.trec"), 6) {
				qid, err := strconv.Atoi(f[0])
				if _, ok := itemOf[f[2]]; !ok || err != nil || qid < 0 || qid >= len(pairs) {
					t.Fatalf("run.trec: qid %s or docno %s is no line of pairs.tsv or items.tsv", f[0], f[2])
				}
			}
		})
	}
}

// TestSampledNegativesReproduced: the sampled evaluation's negatives saved in negatives.tsv,
// and its metrics, are the same when the runs are evaluated again (-force) and when the grid
// runs two at a time into another folder: the draws depend on the data seed and the pair only.
func TestSampledNegativesReproduced(t *testing.T) {
	sets := []string{"-set", "eval.sampled.kind=popularity", "-set", "eval.sampled.negatives=20"}
	a, b := t.TempDir(), t.TempDir()
	sampled := func(dir string) map[string]string {
		out := map[string]string{}
		for _, r := range metricsRows(t, dir) {
			if strings.HasPrefix(r["metric"], "sampled_") || strings.HasPrefix(r["metric"], "corrected_") {
				out[r["run"]+"|"+r["slice"]+"|"+r["metric"]+"|"+r["k"]] = r["value"]
			}
		}
		return out
	}
	negatives := func(dir string) map[string][]byte {
		out := map[string][]byte{}
		for _, id := range smokeRunIDs {
			out[id] = readFile(t, filepath.Join(dir, "runs", id, negativesFile))
		}
		return out
	}
	if _, err := runCommand(t, append([]string{"-config", smokeConfig, "-out", a, "-jobs", "1"}, sets...)...); err != nil {
		t.Fatal(err)
	}
	first, firstNeg := sampled(a), negatives(a)
	if len(first) != 4*4*(4*2+1) {
		t.Fatalf("%d sampled values, want 4 runs × 4 slices × (4 metrics × 2 K + MRR)", len(first))
	}
	// Every run of one data seed ranks the same candidates.
	if !bytes.Equal(firstNeg[smokeRunIDs[0]], firstNeg[smokeRunIDs[3]]) {
		t.Error("two runs on the same data drew different negatives")
	}
	if _, err := runCommand(t, append([]string{"-config", smokeConfig, "-out", a, "-force"}, sets...)...); err != nil {
		t.Fatal(err)
	}
	if _, err := runCommand(t, append([]string{"-config", smokeConfig, "-out", b, "-jobs", "2"}, sets...)...); err != nil {
		t.Fatal(err)
	}
	for name, dir := range map[string]string{"rerun": a, "-jobs 2": b} {
		got, neg := sampled(dir), negatives(dir)
		for k, v := range first {
			if got[k] != v {
				t.Errorf("%s: %s = %s, first run %s", name, k, got[k], v)
			}
		}
		for id, n := range firstNeg {
			if !bytes.Equal(neg[id], n) {
				t.Errorf("%s: %s's negatives.tsv differs", name, id)
			}
		}
	}
	// The file lists every test pair with its 20 negatives.
	lines := strings.Split(strings.TrimSpace(string(firstNeg[smokeRunIDs[0]])), "\n")
	if lines[0] != "pair\tquery\titem\tnegatives" || len(lines) != 801 || len(strings.Fields(strings.Split(lines[1], "\t")[3])) != 20 {
		t.Errorf("negatives.tsv: %d lines, header %q, first %q", len(lines), lines[0], lines[1])
	}
}

// TestEvalBadInputs: every bad input of the evaluation's settings is one error naming its key,
// before anything trains.
func TestEvalBadInputs(t *testing.T) {
	tests := []struct {
		name string
		body string
		sets []string
		want []string
	}{
		{"negatives < 1", "[eval.sampled]\nkind = \"uniform\"\nnegatives = -3\n", nil,
			[]string{"eval.sampled.negatives: must be a number of negatives per test pair in [1, 1000], got -3"}},
		{"negatives = 0 written", "[eval.sampled]\nkind = \"uniform\"\nnegatives = 0\n", nil,
			[]string{"eval.sampled.negatives: 0 is not allowed (omit the key for the default 100)"}},
		{"negatives without a kind", "[eval.sampled]\nnegatives = 50\n", nil, []string{"eval.sampled.negatives: only used with a kind of sampled evaluation"}},
		{"variance weight", "", []string{"eval.sampled.kind=uniform", "eval.sampled.variance_weight=1.5"},
			[]string{"eval.sampled.variance_weight: must be in (0, 1]"}},
		{"unknown kind", "[eval.sampled]\nkind = \"pop\"\n", nil, []string{`eval.sampled.kind`, `unknown "pop"`, "popularity"}},
		{"gamma < 0", "[eval]\ngamma = -0.5\n", nil, []string{"eval.gamma: must be a positive exponent", "got -0.5"}},
		{"gamma = 0 written", "", []string{"eval.gamma=0"}, []string{"eval.gamma: 0 is not allowed (omit the key for the default 1)"}},
		{"exposure", "[eval]\nexposure = \"yes\"\n", nil, []string{"eval.exposure", `unknown "yes" (allowed: on, all, off)`}},
		{"bh with one contrast", "[report]\nadjust = \"bh\"\n[[report.contrast]]\nname = \"x\"\na = \"variant=plain\"\nb = \"variant=logq\"\n" +
			"[[ablation]]\nkey = \"loss.variant\"\nvalues = [\"plain\", \"logq\"]\n", nil, []string{`report.adjust: "bh" with a single contrast`}},
		{"unknown contrast metric", "[[report.contrast]]\nname = \"x\"\na = \"variant=plain\"\nb = \"variant=logq\"\nmetrics = [\"hr\"]\n" +
			"[[ablation]]\nkey = \"loss.variant\"\nvalues = [\"plain\", \"logq\"]\n", nil, []string{"report.contrast[0]: metrics:", `unknown "hr"`}},
		{"propensity off multi-label data", "[eval.propensity]\na = 0.6\n", nil,
			[]string{`eval.propensity.a: PSP@K and PSRecall@K are evaluated on multi-label data only (data.source = "xmc")`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadAndPlan(t, tt.body, tt.sets...)
			wantError(t, err, tt.want...)
		})
	}
}

// TestEvalBadInputsAgainstData: the evaluation checked against the run's data before anything
// trains: a cut-off K not below the corpus size, more negatives than the corpus has items, and
// popularity negatives from a corpus whose items were never seen in training (or too few of
// them), each one error naming the key; and a contrast naming a metric its cells do not
// evaluate names the contrast's metrics and the setting that evaluates it.
func TestEvalBadInputsAgainstData(t *testing.T) {
	dir := t.TempDir()
	_, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-set", "eval.sampled.kind=uniform", "-set", "eval.sampled.negatives=300")
	wantError(t, err, "eval.sampled.negatives: 300 negatives per test pair from a corpus of 300 items")
	if _, err := os.Stat(filepath.Join(dir, "runs")); err == nil {
		t.Error("runs were started")
	}
	// A cut-off that ranks the whole corpus (its Recall@K is 1 whatever was trained).
	_, err = runCommand(t, "-config", smokeConfig, "-out", dir, "-set", "eval.k=[1,10,300]")
	wantError(t, err, "eval.k: 300 ranks the whole corpus of 300 items, where every Recall@300 is 1")
	cfg := &Config{}
	cfg.Eval.Sampled = metrics.SampledSettings{Kind: metrics.NegativesPopularity, Negatives: 5}
	ds := &datasets.Dataset{Items: 10, Queries: 2, Test: []datasets.Interaction{{Query: 0, Item: 1}}}
	wantError(t, checkEval(cfg, ds, make([]int64, 10)), "eval.sampled.kind: popularity negatives are drawn ∝ the training count, and only 0 of the 10 items have one",
		`use kind = "uniform" or fewer negatives`)
	wantError(t, checkEval(cfg, ds, []int64{1, 1, 1, 1, 1, 0, 0, 0, 0, 0}), "only 5 of the 10 items have one, not more than eval.sampled.negatives = 5")
	if err := checkEval(cfg, ds, []int64{1, 1, 1, 1, 1, 1, 1, 0, 0, 0}); err != nil {
		t.Error(err)
	}
	// A query that knows most of the corpus leaves its test pair too few items to draw from.
	ds.Train = []datasets.Interaction{{Query: 0, Item: 2}, {Query: 0, Item: 3}, {Query: 0, Item: 4}, {Query: 0, Item: 5}}
	cfg.Eval.Sampled.Kind, cfg.Eval.Sampled.Negatives = metrics.NegativesUniform, 6
	wantError(t, checkEval(cfg, ds, make([]int64, 10)), "eval.sampled.negatives: 6 negatives per test pair, and the test pair (query 0, item 1) has 5 items",
		"its query's 5 known positives")
	cfg.Eval.Sampled.Negatives = 5
	if err := checkEval(cfg, ds, make([]int64, 10)); err != nil {
		t.Errorf("5 negatives of the 5 items left: %v", err)
	}
	body := string(readFile(t, smokeConfig)) + "\n[[report.contrast]]\nname = \"x\"\na = \"variant=plain\"\nb = \"variant=logq\"\nmetrics = [\"sampled_recall\"]\n"
	_, err = runCommand(t, "-config", writeConfig(t, body), "-out", t.TempDir())
	wantError(t, err, `report.contrast[0] (x): metrics: cell variant=plain has no "sampled_recall": the sampled evaluation evaluates it (eval.sampled.kind)`)
}
