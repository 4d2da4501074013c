package datasets

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWikispeediaShipped checks the embedded graph against the counts of its PROVENANCE.md:
// 4,604 articles, 119,882 links of which 110 are self-links, no duplicate rows, every
// endpoint listed; 6 articles without a category; 15 top-level subjects; in-degree of
// United_States 1551.
func TestWikispeediaShipped(t *testing.T) {
	sub, err := fs.Sub(wikispeedia, "wikispeedia")
	if err != nil {
		t.Fatal(err)
	}
	checkProvenance(t, sub, "articles.tsv", "links.tsv", "categories.tsv")

	d := mustLoad(t, Settings{MinCount: 1}, 1)
	r := d.Report
	if d.Name != "wikispeedia" || d.Queries != 4604 || d.Items != 4604 {
		t.Errorf("name %q, %d queries, %d items; want wikispeedia, 4604, 4604", d.Name, d.Queries, d.Items)
	}
	if r.Records != 119882 || r.SelfLinks != 110 || r.Duplicates != 0 || r.UnknownIDs != 0 || r.UndecodedNames != 0 {
		t.Errorf("records %d self-links %d duplicates %d unknown %d undecoded %d; want 119882 110 0 0 0",
			r.Records, r.SelfLinks, r.Duplicates, r.UnknownIDs, r.UndecodedNames)
	}
	if r.Pairs != 119882-110 || len(d.Train)+len(d.Test) != 119772 || len(d.Test) != 11977 {
		t.Errorf("pairs %d, train %d, test %d; want 119772 pairs, test round(0.1·119772) = 11977", r.Pairs, len(d.Train), len(d.Test))
	}
	if r.NoFeatures != 6 {
		t.Errorf("%d pages without category, want 6", r.NoFeatures)
	}
	if d.Days != 0 || d.QueryFeatures != d.ItemFeatures {
		t.Errorf("days %d, shared features %v; want 0, true", d.Days, d.QueryFeatures == d.ItemFeatures)
	}
	for _, p := range slices.Concat(d.Train, d.Test) {
		if p.Query == p.Item || p.Reward != 1 || p.Time != 0 {
			t.Fatalf("pair %+v: want no self-link, reward 1, time 0", p)
		}
	}
	us := slices.Index(d.ItemNames, "United States")
	indeg := 0
	for _, p := range slices.Concat(d.Train, d.Test) {
		if int(p.Item) == us {
			indeg++
		}
	}
	if indeg != 1551 {
		t.Errorf("in-degree of United States %d, want 1551", indeg)
	}
	cat := d.ItemFeatures.Field("category")
	top := 0
	for _, tok := range cat.Tokens {
		if strings.Count(tok, ".") == 1 {
			top++
		}
	}
	if top != 15 {
		t.Errorf("%d top-level subjects, want 15", top)
	}

	kept := mustLoad(t, Settings{Wikilinks: WikilinksSettings{KeepSelfLinks: true}}, 1)
	if kept.Report.Pairs != 119882 || kept.Report.SelfLinks != 110 {
		t.Errorf("keep_self_links: %d pairs, %d self-links; want 119882, 110", kept.Report.Pairs, kept.Report.SelfLinks)
	}
}

// TestWikispeediaFeatures checks titles, n-grams and category prefixes of real pages.
func TestWikispeediaFeatures(t *testing.T) {
	d := mustLoad(t, Settings{MinCount: 1}, 1)
	ids := d.ItemFeatures.Field("page_id")
	page := func(encoded string) int {
		t.Helper()
		id := ids.Lookup(encoded)
		for e := range d.Items {
			if bag, _ := ids.Bag(e); len(bag) == 1 && bag[0] == id {
				return e
			}
		}
		t.Fatalf("page %q not found", encoded)
		return -1
	}
	for _, c := range []struct {
		page, title string
		ngrams      []string
		categories  []string
	}{
		{"%C3%81ed%C3%A1n_mac_Gabr%C3%A1in", "Áedán mac Gabráin",
			[]string{"gabráin", "mac", "mac gabráin", "áedán", "áedán mac"},
			[]string{"subject", "subject.History", "subject.History.British_History",
				"subject.History.British_History.British_History_1500_and_before_including_Roman_Britain",
				"subject.People", "subject.People.Historical_figures"}},
		{"Ajax_%28programming%29", "Ajax (programming)", []string{"ajax", "ajax programming", "programming"}, nil},
		{"C%2B%2B", "C++", []string{"c"}, nil},
		{"AT%26T", "AT&T", []string{"at", "at t", "t"}, nil},
	} {
		p := page(c.page)
		if d.ItemNames[p] != c.title {
			t.Errorf("%s: title %q, want %q", c.page, d.ItemNames[p], c.title)
		}
		if got := bagTokens(d.ItemFeatures.Field("page_id"), p); !slices.Equal(got, []string{c.page}) {
			t.Errorf("%s: page_id bag %q", c.page, got)
		}
		if got := bagTokens(d.QueryFeatures.Field("title_ngram"), p); !slices.Equal(got, c.ngrams) {
			t.Errorf("%s: title n-grams %q, want %q", c.page, got, c.ngrams)
		}
		if c.categories != nil {
			if got := bagTokens(d.ItemFeatures.Field("category"), p); !slices.Equal(got, c.categories) {
				t.Errorf("%s: categories %q, want %q", c.page, got, c.categories)
			}
		}
	}
}

// TestWikilinksFixture checks counting and features on testdata/wiki (see the file contents).
func TestWikilinksFixture(t *testing.T) {
	for _, min := range []int{1, 2} {
		d := mustLoad(t, Settings{Path: "testdata/wiki", MinCount: min, OOVBuckets: 7}, 3)
		r := d.Report
		want := Report{Records: 8, Pairs: 5, SelfLinks: 1, Duplicates: 2, UnknownIDs: 2, NoFeatures: 1, Train: 4, Test: 1}
		if r.Records != want.Records || r.Pairs != want.Pairs || r.SelfLinks != want.SelfLinks ||
			r.Duplicates != want.Duplicates || r.UnknownIDs != want.UnknownIDs || r.NoFeatures != want.NoFeatures ||
			r.Train != want.Train || r.Test != want.Test {
			t.Errorf("min_count %d: report\n%v", min, r)
		}
		if d.Name != "wiki" || d.Queries != 6 || !slices.Equal(d.ItemNames, []string{"A", "B", "C++", "Ajax (programming)", "New York City", "Lonely"}) {
			t.Errorf("name %q, %d queries, names %q", d.Name, d.Queries, d.ItemNames)
		}
		all := slices.Concat(d.Train, d.Test)
		slices.SortFunc(all, func(a, b Interaction) int { return int(a.Query-b.Query)*100 + int(a.Item-b.Item) })
		var got [][2]int32
		for _, p := range all {
			got = append(got, [2]int32{p.Query, p.Item})
		}
		if want := [][2]int32{{0, 1}, {0, 2}, {1, 0}, {2, 4}, {4, 3}}; !slices.Equal(got, want) {
			t.Errorf("pairs %v, want %v", got, want)
		}
		cat := d.ItemFeatures.Field("category")
		ng := d.ItemFeatures.Field("title_ngram")
		if cat.Vocab != cat.Known+7 || ng.Vocab != ng.Known+7 {
			t.Errorf("vocab %d/%d with %d/%d known; want known + 7 buckets", cat.Vocab, ng.Vocab, cat.Known, ng.Known)
		}
		catA := bagTokens(cat, 0)
		ngNYC := bagTokens(ng, 4)
		if min == 1 {
			if want := []string{"subject", "subject.Science", "subject.Science.Chemistry", "subject.Science.Physics"}; !slices.Equal(catA, want) {
				t.Errorf("categories of A %q, want %q", catA, want)
			}
			if want := []string{"city", "new", "new york", "york", "york city"}; !slices.Equal(ngNYC, want) {
				t.Errorf("n-grams of New York City %q, want %q", ngNYC, want)
			}
		} else {
			// Held by two pages or more: subject, subject.Science, subject.Science.Physics
			// (A, B), subject.IT (C++, Ajax). The rest goes to buckets.
			if want := []string{"#oov", "subject", "subject.Science", "subject.Science.Physics"}; !slices.Equal(catA, want) {
				t.Errorf("min_count 2: categories of A %q, want %q", catA, want)
			}
			if !slices.Equal(cat.Tokens, []string{"subject", "subject.IT", "subject.Science", "subject.Science.Physics"}) {
				t.Errorf("min_count 2: known categories %q", cat.Tokens)
			}
			if want := []string{"#oov", "#oov", "#oov", "#oov", "#oov"}; !slices.Equal(ngNYC, want) {
				t.Errorf("min_count 2: n-grams of New York City %q, want all buckets", ngNYC)
			}
		}
		if got := bagTokens(cat, 5); got != nil {
			t.Errorf("Lonely has categories %q", got)
		}
	}
}

// TestWikilinksStreaming reads a gzipped edge list without articles.tsv, given as a file path.
func TestWikilinksStreaming(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("# edge list\n")
	for i := range 2000 {
		b.WriteString(strings.Repeat("x", i%7+1) + "\t" + strings.Repeat("y", i%11+1) + "\n")
	}
	gzipFile(t, filepath.Join(dir, "links.tsv.gz"), []byte(b.String()))
	for _, path := range []string{dir, filepath.Join(dir, "links.tsv.gz")} {
		d := mustLoad(t, Settings{Path: path}, 1)
		// Pairs (i%7, i%11) over 2000 consecutive i cover all 77 combinations.
		if d.Queries != 18 || d.Report.Records != 2000 || d.Report.Pairs != 77 || d.Report.Duplicates != 2000-77 || d.Report.NoFeatures != 0 {
			t.Errorf("%s: %d pages, report\n%v", path, d.Queries, d.Report)
		}
		if d.Name != "links" && d.Name != filepath.Base(dir) {
			t.Errorf("name %q", d.Name)
		}
	}
}

// TestWikilinksMalformed checks the file:line errors of malformed lines.
func TestWikilinksMalformed(t *testing.T) {
	const articles = "# c\n\nA\nB\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"one column", map[string]string{"articles.tsv": articles, "links.tsv": "#\nA\tB\nA\n"},
			"links.tsv:3: expected 2 tab-separated column(s) (linkSource, linkTarget), got 1"},
		{"three columns", map[string]string{"articles.tsv": articles, "links.tsv": "A\tB\tC\n"},
			"links.tsv:1: expected 2 tab-separated column(s) (linkSource, linkTarget), got 3"},
		{"empty target", map[string]string{"articles.tsv": articles, "links.tsv": "A\tB\nB\t\n"},
			"links.tsv:2: column 2 is empty; expected linkSource, linkTarget"},
		{"article with tab", map[string]string{"articles.tsv": "A\nB\tC\n", "links.tsv": "A\tB\n"},
			"articles.tsv:2: expected 1 tab-separated column(s) (article), got 2"},
		{"category missing", map[string]string{"articles.tsv": articles, "links.tsv": "A\tB\n", "categories.tsv": "\nA\tsubject\nB\n"},
			"categories.tsv:3: expected 2 tab-separated column(s) (article, category), got 1"},
		// A links.tsv cut mid-line; the cut line has its two columns.
		{"torn last line", map[string]string{"articles.tsv": articles, "links.tsv": "A\tB\nB\tA\nA\tB_cu"},
			"links.tsv:3: the file ends without a line break in this line, which looks cut (its target page \"B_cu\" is not in articles.tsv); if the line is complete, end the file with a line break"},
		{"torn last line, one column", map[string]string{"links.tsv": "A\tB\nB\tA\nA"},
			"links.tsv:3: the file ends without a line break in this line, which looks cut (expected 2 tab-separated column(s) (linkSource, linkTarget), got 1); if the line is complete, end the file with a line break"},
		{"torn categories", map[string]string{"articles.tsv": articles, "links.tsv": "A\tB\n", "categories.tsv": "A\tsubject\r\nB\tsub"},
			"categories.tsv:2: the file ends without a line break in this line, which looks cut (its last value \"sub\" is shorter than the last value of every other row (7 or more characters); expected article, category); if the line is complete, end the file with a line break"},
		{"no links", map[string]string{"articles.tsv": articles}, "links.tsv: no such file (nor links.tsv.gz)"},
		{"only self-links", map[string]string{"articles.tsv": articles, "links.tsv": "A\tA\n"}, "links.tsv (1 lines): wikilinks: 1 records read, 0 pairs kept (0 train, 0 test); self-links: 1"},
	} {
		dir := writeFiles(t, c.files)
		_, err := Load(Settings{Path: dir}, 1)
		if err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ...%s", c.name, err, c.want)
		}
		var pe *ParseError
		if strings.Contains(c.want, ".tsv:") && !strings.Contains(c.want, "no such") && (!errors.As(err, &pe) || !strings.HasPrefix(err.Error(), dir)) {
			t.Errorf("%s: %T is not a *ParseError", c.name, err)
		}
	}
	if _, err := Load(Settings{Path: filepath.Join(t.TempDir(), "absent")}, 1); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing path: %v", err)
	}
}

// TestLinesTooLong checks the line length limit and corrupt gzip data.
func TestLinesTooLong(t *testing.T) {
	dir := writeFiles(t, map[string]string{"links.tsv": "A\tB\n" + strings.Repeat("x", maxLine+1) + "\n"})
	_, err := Load(Settings{Path: dir}, 1)
	if err == nil || !strings.HasSuffix(err.Error(), "links.tsv:2: line longer than 67108864 bytes") {
		t.Errorf("long line: %v", err)
	}
	dir = writeFiles(t, map[string]string{"links.tsv": "\x1f\x8b\x08\x00garbage"})
	if _, err = Load(Settings{Path: dir}, 1); err == nil || !strings.Contains(err.Error(), "links.tsv") {
		t.Errorf("corrupt gzip: %v", err)
	}
}

// BenchmarkLoadWikispeedia loads the embedded graph (gunzip, parse, features, split).
func BenchmarkLoadWikispeedia(b *testing.B) {
	for b.Loop() {
		if _, err := Load(Settings{}, 1); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*119882/b.Elapsed().Seconds(), "links/s")
}
