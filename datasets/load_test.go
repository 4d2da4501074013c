package datasets

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadDispatch: every source name that Resolve accepts reaches its loader (a missing file is
// the loader's error, not the dispatch's), and a name without a loader is an error naming the
// source instead of a nil dataset (the dispatch once had no default).
func TestLoadDispatch(t *testing.T) {
	for _, src := range sources {
		s := Settings{Source: src, Path: "testdata/absent"}
		if src == SourceSynthetic {
			s.Path, s.Synthetic = "", SyntheticSettings{Items: 5, Queries: 5, Interactions: 50, Days: 1}
		}
		if err := s.Resolve(); err != nil {
			t.Fatal(err)
		}
		u, err := load(s, 1)
		if err != nil && strings.Contains(err.Error(), "has no loader") {
			t.Errorf("source %s: %v", src, err)
		}
		if err == nil && (u == nil || u.Dataset == nil) {
			t.Errorf("source %s: no error and no dataset", src)
		}
	}
	u, err := load(Settings{Source: "edges"}, 1)
	if u != nil || err == nil || !strings.HasPrefix(err.Error(), `source: "edges" has no loader (datasets/load.go dispatches wikilinks, xmc, interactions, synthetic)`) {
		t.Errorf("unknown source: %v, %v", u, err)
	}
}

// loadEdges is the loader that README's "Adding a dataset" walks through, written as it says: it
// reads "query item" lines (a "#" line is a comment), names the file and line of a malformed
// one, counts what it drops in the Report, builds the id features with newTokenBags and returns
// an *Unsplit that Split turns into the Dataset.
func loadEdges(s Settings) (*Unsplit, error) {
	src, file, err := splitPath(s.Path)
	if err != nil {
		return nil, err
	}
	if file == "" {
		file = "edges.txt"
	}
	l, err := src.open(file)
	if err != nil {
		return nil, err
	}
	rep := Report{Source: "edges"}
	queries, items := newSide("query_id"), newSide("item_id")
	var pairs []Interaction
	for l.next() {
		if len(l.text) == 0 || l.text[0] == '#' {
			continue
		}
		f := strings.Fields(string(l.text))
		switch {
		case l.torn:
			l.done()
			return nil, l.tornError("expected a line \"query item\"")
		case len(f) != 2:
			l.done()
			return nil, l.errorf("expected 2 space-separated columns (query item), got %d", len(f))
		}
		rep.Records++
		if f[0] == f[1] {
			rep.count(&rep.SelfLinks, "%s:%d: self-link of %q (dropped)", l.name, l.line, f[0])
			continue
		}
		pairs = append(pairs, Interaction{Query: queries.id(f[0]), Item: items.id(f[1]), Reward: 1})
	}
	if err := l.done(); err != nil {
		return nil, err
	}
	rep.Files = append(rep.Files, l.summary())
	d := &Dataset{
		Name:    datasetName(s.Path),
		Queries: len(queries.names), Items: len(items.names),
		QueryNames: queries.names, ItemNames: items.names,
		QueryFeatures: queries.features(s, &rep), ItemFeatures: items.features(s, &rep),
		Report: rep,
	}
	return &Unsplit{Dataset: d, Pairs: pairs}, nil
}

// TestAddingADataset follows README's "Adding a dataset" literally with loadEdges: the loader's
// Unsplit splits into a valid Dataset, and its parse errors name file:line.
func TestAddingADataset(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"edges.txt": "# query item\nq1 a\nq1 b\nq2 a\nq2 q2\nq3 c\n",
		"torn.txt":  "q1 a\nq2 b\nq3",
	})
	s := Settings{Source: "edges", Path: dir, MinCount: 2, OOVBuckets: 10, Split: SplitSettings{TestFraction: 0.25}}
	u, err := loadEdges(s)
	if err != nil {
		t.Fatal(err)
	}
	d, err := u.Split(s.Split, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	// 5 records, the self-link dropped: 4 pairs, round(0.25·4) = 1 in test.
	if r := d.Report; d.Queries != 3 || d.Items != 3 || r.Records != 5 || r.SelfLinks != 1 || r.Pairs != 4 || r.Test != 1 || r.Train != 3 {
		t.Errorf("%d queries, %d items, report\n%v", d.Queries, d.Items, r)
	}
	if got, want := d.Report.Summary(), "edges: 5 records read, 4 pairs kept (3 train, 1 test); self-links: 1"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
	s.Path = dir + "/torn.txt"
	var pe *ParseError
	if _, err := loadEdges(s); !errors.As(err, &pe) || pe.Line != 3 || !strings.HasSuffix(pe.File, "torn.txt") {
		t.Errorf("torn file: %v", err)
	}
}

// TestValidateRewards: a hand-built dataset with a negative, NaN or infinite reward is invalid
// (Yi et al.'s rewards are in [0, 1]; larger ones are allowed as weights).
func TestValidateRewards(t *testing.T) {
	feats := &Features{Fields: []Field{IDField("id", 1)}}
	for _, c := range []struct {
		reward float32
		ok     bool
	}{{0, true}, {1, true}, {5, true}, {-0.5, false}, {float32(math.NaN()), false}, {float32(math.Inf(1)), false}} {
		d := &Dataset{Queries: 1, Items: 1, QueryFeatures: feats, ItemFeatures: feats, Train: []Interaction{{Reward: c.reward}}}
		if err := d.Validate(); (err == nil) != c.ok {
			t.Errorf("reward %v: Validate = %v", c.reward, err)
		}
	}
}

// TestCutGzip: a gzip file cut in the middle is an error naming the file, for the line readers
// and the CSV reader alike (a file cut mid-line, compressed); before the fix the CSV reader's
// error did not name the file.
func TestCutGzip(t *testing.T) {
	var links, ratings strings.Builder
	ratings.WriteString("userId,movieId,rating,timestamp\n")
	for i := range 3000 {
		fmt.Fprintf(&links, "P%d\tP%d\n", i, i*7%3001)
		fmt.Fprintf(&ratings, "%d,%d,4,%d\n", i%50, i*7%301, 1000+i)
	}
	for _, c := range []struct {
		file, content string
		s             Settings
	}{
		{"links.tsv", links.String(), Settings{}},
		{"ratings.csv", ratings.String(), Settings{Source: "interactions"}},
	} {
		dir := t.TempDir()
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(c.content))
		zw.Close()
		if err := os.WriteFile(filepath.Join(dir, c.file+".gz"), buf.Bytes()[:buf.Len()/2], 0o644); err != nil {
			t.Fatal(err)
		}
		c.s.Path = dir
		_, err := Load(c.s, 1)
		// The line reader meets the cut as a torn last line (before the stream's own error);
		// the CSV reader, whose last record may lack its line break, reports the stream's error.
		if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, c.file+".gz")+":") {
			t.Errorf("%s cut in half: %v", c.file, err)
		}
		var pe *ParseError
		if !errors.As(err, &pe) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s cut in half: %v is neither a torn line nor the stream's error", c.file, err)
		}
	}
}
