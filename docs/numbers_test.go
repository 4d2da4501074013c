package docs

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// The numbers README.md and docs/results.md quote from the shipped results are recomputed here
// from the files of results/showcase/<config>/ (metrics.csv, differences.csv, contrasts.csv and
// summary.md), so that the text says what the files say, whichever run wrote them: each claim
// is a passage of a document with its numbers written {}, and a source per number. The test
// finds the passage (whitespace-insensitive), reads the numbers written there and checks each
// against its source rounded as written; a mismatch names the passage, the file and the value
// recomputed. After the showcases are run again, the failures list the numbers to rewrite.

// showcase is one folder of results/showcase, read once.
type showcase struct {
	name        string
	metrics     []map[string]string
	differences []map[string]string
	contrasts   []map[string]string
	summary     string
}

// readCSV reads a CSV file with a header as one map per row.
func readCSV(t reporter, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := make([]map[string]string, 0, len(rows)-1)
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, name := range rows[0] {
			m[name] = r[i]
		}
		out = append(out, m)
	}
	return out
}

// reporter is what the checks report to: a *testing.T, or a recorder in the test of the checks.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// showcases reads the shipped showcases on first use.
type showcases map[string]*showcase

func (sc showcases) get(t reporter, name string) *showcase {
	if s, ok := sc[name]; ok {
		return s
	}
	dir := filepath.Join("..", "results", "showcase", name)
	s := &showcase{name: name, metrics: readCSV(t, filepath.Join(dir, "metrics.csv"))}
	for _, f := range []struct {
		file string
		to   *[]map[string]string
	}{{"differences.csv", &s.differences}, {"contrasts.csv", &s.contrasts}} {
		if _, err := os.Stat(filepath.Join(dir, f.file)); err == nil {
			*f.to = readCSV(t, filepath.Join(dir, f.file))
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil {
		t.Fatalf("%v", err)
	}
	s.summary = string(b)
	sc[name] = s
	return s
}

// source recomputes one quoted number from a showcase; where says where it comes from.
type source struct {
	show  string
	where string
	value func(s *showcase) (float64, error)
}

// cellOf is a run's cell: its id without the seed.
func cellOf(run string) string {
	i := strings.LastIndex(run, "seed=")
	return strings.TrimSuffix(run[:max(i, 0)], ",")
}

// matches reports whether the cell (axis=value pairs) has every pair of sel.
func matches(cell, sel string) bool {
	have := map[string]bool{}
	for _, p := range strings.Split(cell, ",") {
		have[p] = true
	}
	for _, p := range strings.Split(sel, ",") {
		if p != "" && !have[p] {
			return false
		}
	}
	return true
}

// at is a coordinate of metrics.csv: slice, metric, K and τ_LA.
type at struct {
	slice, metric string
	k             int
	tau           float64
}

func (a at) String() string {
	s := fmt.Sprintf("%s %s@%d", a.slice, a.metric, a.k)
	if a.tau != 0 {
		s += fmt.Sprintf(" τ_LA=%g", a.tau)
	}
	return s
}

// rowAt reports whether a row of metrics.csv, differences.csv or contrasts.csv is at a.
func (a at) rowAt(r map[string]string) bool {
	tau, _ := strconv.ParseFloat(r["la_tau"], 64)
	if _, ok := r["la_tau"]; !ok {
		tau = 0
	}
	return r["slice"] == a.slice && r["metric"] == a.metric && r["k"] == strconv.Itoa(a.k) && tau == a.tau &&
		(r["test"] == "" || r["test"] == "natural")
}

// mean is the mean over seeds of the cell sel's metric at a in metrics.csv ("baseline:most_popular"
// or "baseline:random" for a sanity baseline); the selection must name one cell.
func mean(show, sel string, a at) source {
	return source{show, fmt.Sprintf("metrics.csv, %s, %s, mean over seeds", sel, a), func(s *showcase) (float64, error) {
		var sum float64
		var n int
		cells := map[string]bool{}
		for _, r := range s.metrics {
			if !a.rowAt(r) {
				continue
			}
			if name, ok := strings.CutPrefix(sel, "baseline:"); ok {
				if r["kind"] != "baseline" || r["run"] != name {
					continue
				}
			} else if r["kind"] != "run" || !matches(cellOf(r["run"]), sel) {
				continue
			}
			cells[cellOf(r["run"])] = true
			v, err := strconv.ParseFloat(r["value"], 64)
			if err != nil {
				return 0, err
			}
			sum, n = sum+v, n+1
		}
		if len(cells) > 1 {
			return 0, fmt.Errorf("%q selects %d cells", sel, len(cells))
		}
		if n == 0 {
			return 0, fmt.Errorf("no row")
		}
		return sum / float64(n), nil
	}}
}

// ratio is mean(a)/mean(b).
func ratio(x, y source) source {
	return source{x.show, x.where + " / " + y.where, func(s *showcase) (float64, error) {
		a, err := x.value(s)
		if err != nil {
			return 0, err
		}
		b, err := y.value(s)
		return a / b, err
	}}
}

// paired is one row of differences.csv (cell − baseline) or contrasts.csv (a named contrast, at
// one value of its by axis), selected by its cells or name and coordinate.
type paired struct {
	file string // differences.csv or contrasts.csv
	// cell and base select a row of differences.csv; contrast and by a row of contrasts.csv.
	cell, base, contrast, by string
	at                       at
}

func (p paired) String() string {
	if p.file == "contrasts.csv" {
		return fmt.Sprintf("contrasts.csv, %q %s, %s", p.contrast, p.by, p.at)
	}
	return fmt.Sprintf("differences.csv, %s − %s, %s", p.cell, p.base, p.at)
}

func (p paired) row(s *showcase) (map[string]string, error) {
	rows := s.differences
	if p.file == "contrasts.csv" {
		rows = s.contrasts
	}
	var found []map[string]string
	for _, r := range rows {
		if !p.at.rowAt(r) {
			continue
		}
		ok := p.file == "contrasts.csv" && r["contrast"] == p.contrast && (p.by == "" || r["by_value"] == p.by) ||
			p.file == "differences.csv" && matches(r["cell"], p.cell) && matches(r["baseline"], p.base)
		if ok {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		return nil, fmt.Errorf("%d rows", len(found))
	}
	return found[0], nil
}

// diff is the mean of a paired row; half its interval's half-width (hi − mean).
func diff(show string, p paired) source {
	return source{show, p.String() + ", mean", func(s *showcase) (float64, error) {
		r, err := p.row(s)
		if err != nil {
			return 0, err
		}
		return strconv.ParseFloat(r["mean"], 64)
	}}
}

func half(show string, p paired) source {
	return source{show, p.String() + ", half-width", func(s *showcase) (float64, error) {
		r, err := p.row(s)
		if err != nil {
			return 0, err
		}
		m, err1 := strconv.ParseFloat(r["mean"], 64)
		hi, err2 := strconv.ParseFloat(r["hi"], 64)
		if err1 != nil || err2 != nil {
			return 0, fmt.Errorf("mean %q, hi %q", r["mean"], r["hi"])
		}
		return hi - m, nil
	}}
}

// bound is the lower (lo) or upper (hi) end of a paired row's interval.
func bound(show string, p paired, end string) source {
	return source{show, p.String() + ", " + end, func(s *showcase) (float64, error) {
		r, err := p.row(s)
		if err != nil {
			return 0, err
		}
		return strconv.ParseFloat(r[end], 64)
	}}
}

// extreme is the largest (or, with smallest, the least) of the sources' values, each taken
// with sign (or, with abs, its magnitude).
func extreme(name string, smallest, abs bool, srcs ...source) source {
	return source{srcs[0].show, name, func(s *showcase) (float64, error) {
		best := math.NaN()
		for _, src := range srcs {
			v, err := src.value(s)
			if err != nil {
				return 0, fmt.Errorf("%s: %w", src.where, err)
			}
			if abs {
				v = math.Abs(v)
			}
			if math.IsNaN(best) || smallest && v < best || !smallest && v > best {
				best = v
			}
		}
		return best, nil
	}}
}

// negate is −src.
func negate(src source) source {
	return source{src.show, "−(" + src.where + ")", func(s *showcase) (float64, error) {
		v, err := src.value(s)
		return -v, err
	}}
}

// summaryNumber is the number that the regular expression re's first group matches in
// summary.md (the slice sizes, the sampler audit's notes).
func summaryNumber(show, what, re string) source {
	rx := regexp.MustCompile(re)
	return source{show, "summary.md, " + what, func(s *showcase) (float64, error) {
		m := rx.FindStringSubmatch(s.summary)
		if m == nil {
			return 0, fmt.Errorf("no match of %s", re)
		}
		return strconv.ParseFloat(m[1], 64)
	}}
}

// pairs is the number of test pairs of a slice in summary.md's slice sizes.
func pairs(show, slice string) source {
	return summaryNumber(show, slice+"'s test pairs", `Slice sizes[^\n]* `+slice+` \d+ / (\d+);`)
}

// items is the number of items of a slice in summary.md's slice sizes.
func items(show, slice string) source {
	return summaryNumber(show, slice+"'s items", `Slice sizes[^\n]* `+slice+` (\d+) / \d+;`)
}

// audit is a figure of the sampler audit's note of the cell named in summary.md: "tv", "floor"
// or "worst".
func audit(show, cell, field string) source {
	q := regexp.QuoteMeta(cell)
	re := map[string]string{
		"tv":    `sampler audit of ` + q + ` \([^)]*\): total variation ([0-9]+\.[0-9]+)`,
		"floor": `sampler audit of ` + q + ` \([^)]*\): total variation [0-9.]+ [^\n]*?against ([0-9]+\.[0-9]+) from`,
		"worst": `sampler audit of ` + q + ` \([^)]*\)[^\n]*?most frequent items ([0-9]+\.[0-9]+)`,
	}[field]
	return summaryNumber(show, "sampler audit of "+cell+", "+field, re)
}

// claim is a passage of a document that quotes numbers of the showcases: the passage as written
// with each number replaced by {}, and the source of each number in order.
type claim struct {
	doc     string
	passage string
	sources []source
}

// number is how a quoted number is written: an optional sign (+, − or -), digits with thousands
// separators, and decimals, possibly in bold.
const number = `\*{0,2}([+−-]?[0-9][0-9,]*(?:\.[0-9]+)?)\*{0,2}`

// checkClaim finds c's passage in text and checks each number written there against its source.
func checkClaim(t reporter, sc showcases, c claim, text string) {
	t.Helper()
	parts := strings.Split(collapse(c.passage), "{}")
	if len(parts)-1 != len(c.sources) {
		t.Fatalf("%s: passage %q has %d numbers, %d sources", c.doc, c.passage, len(parts)-1, len(c.sources))
	}
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	m := regexp.MustCompile(strings.Join(parts, number)).FindStringSubmatch(collapse(text))
	if m == nil {
		t.Errorf("%s no longer says %q: update the claim with the text", c.doc, c.passage)
		return
	}
	for i, src := range c.sources {
		written := m[i+1]
		w, err := strconv.ParseFloat(strings.NewReplacer(",", "", "−", "-", "+", "").Replace(written), 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", c.doc, written, err)
		}
		got, err := src.value(sc.get(t, src.show))
		if err != nil {
			t.Errorf("%s: %q: number %d (%s): results/showcase/%s/%s: %v", c.doc, c.passage, i+1, written, src.show, src.where, err)
			continue
		}
		decimals := 0
		if j := strings.IndexByte(written, '.'); j >= 0 {
			decimals = len(written) - j - 1
		}
		if tol := 0.5*math.Pow(10, -float64(decimals)) + 1e-9; math.Abs(got-w) > tol {
			t.Errorf("%s says %s in %q (number %d), but results/showcase/%s/%s gives %.*f (%g)",
				c.doc, written, c.passage, i+1, src.show, src.where, decimals, got, got)
		}
	}
}

// collapse writes every run of white space as one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestQuotedNumbers checks every claim of quotedNumbers against the shipped showcases.
func TestQuotedNumbers(t *testing.T) {
	sc := showcases{}
	docs := map[string]string{}
	for _, c := range quotedNumbers() {
		if _, ok := docs[c.doc]; !ok {
			b, err := os.ReadFile(filepath.Join("..", c.doc))
			if err != nil {
				t.Fatal(err)
			}
			docs[c.doc] = string(b)
		}
		checkClaim(t, sc, c, docs[c.doc])
	}
}

// TestCheckClaimFails: a passage whose number differs from its source beyond its rounding, or
// that the document no longer has, fails with the passage, the file and the recomputed value.
func TestCheckClaimFails(t *testing.T) {
	sc := showcases{"x": &showcase{name: "x", metrics: []map[string]string{
		{"run": "variant=a,seed=1", "kind": "run", "slice": "all", "metric": "recall", "k": "10", "value": "0.1234"},
		{"run": "variant=a,seed=2", "kind": "run", "slice": "all", "metric": "recall", "k": "10", "value": "0.1266"},
	}}}
	src := mean("x", "variant=a", at{"all", "recall", 10, 0})
	for _, c := range []struct {
		text string
		fail string // "" for none
	}{
		{"a reaches 0.125 overall", ""},
		{"a reaches 0.13 overall", ""},
		{"a reaches 0.127 overall", "gives 0.125"},
		{"a reaches\n0.14 overall", "but results/showcase/x/metrics.csv, variant=a, all recall@10, mean over seeds gives 0.12"},
		{"b reaches 0.125 overall", "no longer says"},
	} {
		rec := &recorder{}
		checkClaim(rec, sc, claim{"doc.md", "a reaches {} overall", []source{src}}, c.text)
		if got := strings.Join(rec.errs, "\n"); c.fail == "" && got != "" || c.fail != "" && !strings.Contains(got, c.fail) {
			t.Errorf("%q: errors %q, want %q", c.text, got, c.fail)
		}
	}
}

// recorder is a reporter that keeps what it is told.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// meanHalfWidth is the half-width of the 95% Student-t interval across seeds of the cell sel's
// metric at a in metrics.csv: t(0.975, n − 1)·sd/√n over its n seeds.
func meanHalfWidth(show, sel string, a at) source {
	return source{show, fmt.Sprintf("metrics.csv, %s, %s, half-width of the 95%% interval across seeds", sel, a), func(s *showcase) (float64, error) {
		var vs []float64
		for _, r := range s.metrics {
			if a.rowAt(r) && r["kind"] == "run" && matches(cellOf(r["run"]), sel) {
				v, err := strconv.ParseFloat(r["value"], 64)
				if err != nil {
					return 0, err
				}
				vs = append(vs, v)
			}
		}
		if len(vs) < 2 {
			return 0, fmt.Errorf("%d seeds", len(vs))
		}
		_, sd := stat.MeanStdDev(vs, nil)
		n := float64(len(vs))
		return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.975) * sd / math.Sqrt(n), nil
	}}
}
