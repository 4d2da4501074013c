package datasets

import (
	"bytes"
	"cmp"
	"embed"
	"fmt"
	"io/fs"
	"net/url"
	"slices"
	"strings"
	"unicode"
)

// wikispeedia is the SNAP Wikispeedia graph (West & Leskovec 2012; West, Pineau & Precup
// 2009), gzip-compressed; see wikispeedia/PROVENANCE.md for its origin and citation.
//
//go:embed wikispeedia/articles.tsv.gz wikispeedia/links.tsv.gz wikispeedia/categories.tsv.gz wikispeedia/PROVENANCE.md
var wikispeedia embed.FS

// Wikilinks file names (each may also be gzipped, name + ".gz").
const (
	articlesFile   = "articles.tsv"
	linksFile      = "links.tsv"
	categoriesFile = "categories.tsv"
)

// loadWikilinks reads a link graph in the Wikispeedia layout: query = source page, item =
// destination page, both with the page's id on either side.
func loadWikilinks(s Settings) (*Unsplit, error) {
	src, links, name, err := wikilinksSource(s)
	if err != nil {
		return nil, err
	}
	return readWikilinks(src, links, name, s)
}

// wikilinksSource returns the files of s.Path (the embedded Wikispeedia graph when it is
// empty), the name of its links file and the dataset's name.
func wikilinksSource(s Settings) (src files, links, name string, err error) {
	if s.Path == "" {
		sub, err := fs.Sub(wikispeedia, "wikispeedia")
		if err != nil {
			return files{}, "", "", err
		}
		return files{fsys: sub, dir: "embedded:wikispeedia"}, linksFile, "wikispeedia", nil
	}
	src, file, err := splitPath(s.Path)
	if err != nil {
		return files{}, "", "", err
	}
	return src, cmp.Or(file, linksFile), datasetName(s.Path), nil
}

// wikiGraph accumulates pages, links and categories while reading.
type wikiGraph struct {
	open     bool // no articles file: pages are added as they appear
	index    map[string]int32
	names    []string
	links    []uint64 // source<<32 | target
	cats     map[string]int32
	catNames []string
	pageCats [][]int32
	hasCats  bool // a categories file was read
	rep      Report
}

// page returns the id of the page named b, adding it when the page list is open.
func (g *wikiGraph) page(b []byte) (int32, bool) {
	if id, ok := g.index[string(b)]; ok {
		return id, true
	}
	if !g.open {
		return 0, false
	}
	return g.add(string(b)), true
}

func (g *wikiGraph) add(name string) int32 {
	id := int32(len(g.names))
	g.index[name] = id
	g.names = append(g.names, name)
	return id
}

// readWikilinks reads articles (optional), links and categories (optional) from src.
func readWikilinks(src files, links, name string, s Settings) (*Unsplit, error) {
	g := &wikiGraph{index: map[string]int32{}, cats: map[string]int32{}, rep: Report{Source: SourceWikilinks}}
	if src.find(articlesFile) != "" {
		if err := g.readArticles(src); err != nil {
			return nil, err
		}
	} else {
		g.open = true
	}
	if err := g.readLinks(src, links, s.Wikilinks.KeepSelfLinks); err != nil {
		return nil, err
	}
	if g.hasCats = src.find(categoriesFile) != ""; g.hasCats {
		if err := g.readCategories(src); err != nil {
			return nil, err
		}
	}
	return g.dataset(name, s), nil
}

// dataLines calls fn with the fields of every line of file that is neither empty nor a "#"
// comment, after checking that the line has want tab-separated non-empty fields and, for a
// final line without a line break, that it looks complete (see lastValues).
func dataLines(src files, file string, rep *Report, want string, fn func(l *lines, f [][]byte) error) error {
	l, err := src.open(file)
	if err != nil {
		return err
	}
	n := strings.Count(want, ",") + 1
	f := make([][]byte, 0, n)
	var last lastValues
	for l.next() {
		if len(l.text) == 0 || l.text[0] == '#' {
			continue
		}
		f = f[:0]
		for rest := l.text; ; {
			i := bytes.IndexByte(rest, '\t')
			if i < 0 {
				f = append(f, rest)
				break
			}
			f = append(f, rest[:i])
			rest = rest[i+1:]
		}
		if len(f) != n {
			l.done()
			if l.torn {
				return l.tornError(fmt.Sprintf("expected %d tab-separated column(s) (%s), got %d", n, want, len(f)))
			}
			return l.errorf("expected %d tab-separated column(s) (%s), got %d", n, want, len(f))
		}
		for i, c := range f {
			if len(c) == 0 {
				l.done()
				return l.errorf("column %d is empty; expected %s", i+1, want)
			}
		}
		if err := l.unterminated(&last, f[n-1], want, rep); err != nil {
			l.done()
			return err
		}
		if err := fn(l, f); err != nil {
			l.done()
			return err
		}
	}
	if err := l.done(); err != nil {
		return err
	}
	rep.Files = append(rep.Files, l.summary())
	return nil
}

func (g *wikiGraph) readArticles(src files) error {
	return dataLines(src, articlesFile, &g.rep, "article", func(l *lines, f [][]byte) error {
		if _, ok := g.index[string(f[0])]; ok {
			g.rep.count(&g.rep.Duplicates, "%s:%d: repeated article %q (dropped)", l.name, l.line, f[0])
			return nil
		}
		g.add(string(f[0]))
		return nil
	})
}

func (g *wikiGraph) readLinks(src files, file string, keepSelf bool) error {
	return dataLines(src, file, &g.rep, "linkSource, linkTarget", func(l *lines, f [][]byte) error {
		g.rep.Records++
		from, ok1 := g.page(f[0])
		to, ok2 := g.page(f[1])
		switch {
		case !ok2 && l.torn:
			return l.tornError(fmt.Sprintf("its target page %q is not in %s", f[1], articlesFile))
		case !ok1:
			g.rep.count(&g.rep.UnknownIDs, "%s:%d: unknown source page %q (dropped)", l.name, l.line, f[0])
		case !ok2:
			g.rep.count(&g.rep.UnknownIDs, "%s:%d: unknown target page %q (dropped)", l.name, l.line, f[1])
		case from == to && !keepSelf:
			g.rep.count(&g.rep.SelfLinks, "%s:%d: self-link of %q (dropped)", l.name, l.line, f[0])
		default:
			if from == to {
				g.rep.count(&g.rep.SelfLinks, "%s:%d: self-link of %q (kept)", l.name, l.line, f[0])
			}
			g.links = append(g.links, uint64(from)<<32|uint64(to))
		}
		return nil
	})
}

func (g *wikiGraph) readCategories(src files) error {
	return dataLines(src, categoriesFile, &g.rep, "article, category", func(l *lines, f [][]byte) error {
		p, ok := g.page(f[0])
		if !ok {
			g.rep.count(&g.rep.UnknownIDs, "%s:%d: category of unknown page %q (dropped)", l.name, l.line, f[0])
			return nil
		}
		c, ok := g.cats[string(f[1])]
		if !ok {
			c = int32(len(g.catNames))
			g.cats[string(f[1])] = c
			g.catNames = append(g.catNames, string(f[1]))
		}
		for int(p) >= len(g.pageCats) {
			g.pageCats = append(g.pageCats, nil)
		}
		if slices.Contains(g.pageCats[p], c) {
			g.rep.count(&g.rep.Duplicates, "%s:%d: repeated category %q of %q (dropped)", l.name, l.line, f[1], f[0])
			return nil
		}
		g.pageCats[p] = append(g.pageCats[p], c)
		return nil
	})
}

// dataset deduplicates the links and builds the features.
func (g *wikiGraph) dataset(name string, s Settings) *Unsplit {
	slices.Sort(g.links)
	for i := 1; i < len(g.links); i++ {
		if g.links[i] == g.links[i-1] {
			from, to := g.links[i]>>32, g.links[i]&(1<<32-1)
			g.rep.count(&g.rep.Duplicates, "repeated link %q -> %q (dropped)", g.names[from], g.names[to])
		}
	}
	uniq := slices.Compact(g.links)
	g.pageCats = append(g.pageCats, make([][]int32, len(g.names)-len(g.pageCats))...)
	pairs := make([]Interaction, len(uniq))
	for i, k := range uniq {
		pairs[i] = Interaction{Query: int32(k >> 32), Item: int32(k & (1<<32 - 1)), Reward: 1}
	}
	ids := newTokenBags("page_id", true)
	ngrams := newTokenBags("title_ngram", false)
	cats := newTokenBags("category", false)
	titles := make([]string, len(g.names))
	for p, n := range g.names {
		ids.add(n)
		ids.end()
		title, err := url.PathUnescape(n)
		if err != nil {
			g.rep.count(&g.rep.UndecodedNames, "page %q: %v (title n-grams from the raw name)", n, err)
			title = n
		}
		titles[p] = strings.ReplaceAll(title, "_", " ")
		addNgrams(ngrams, titles[p])
		ngrams.end()
		if g.hasCats && len(g.pageCats[p]) == 0 {
			g.rep.count(&g.rep.NoFeatures, "page %q has no category", n)
		}
		for _, c := range g.pageCats[p] {
			addPrefixes(cats, g.catNames[c])
		}
		cats.end()
	}
	feats := &Features{Fields: []Field{
		ids.field(s.MinCount, s.OOVBuckets),
		ngrams.field(s.MinCount, s.OOVBuckets),
		cats.field(s.MinCount, s.OOVBuckets),
	}}
	d := &Dataset{
		Name: name, Queries: len(g.names), Items: len(g.names),
		QueryNames: titles, ItemNames: titles,
		QueryFeatures: feats, ItemFeatures: feats,
		Report: g.rep,
	}
	return &Unsplit{Dataset: d, Pairs: pairs}
}

// addNgrams adds the lower-case word unigrams and bigrams of title ("a b" for a bigram).
func addNgrams(b *tokenBags, title string) {
	w := strings.FieldsFunc(strings.ToLower(title), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for i := range w {
		b.add(w[i])
		if i > 0 {
			b.add(w[i-1] + " " + w[i])
		}
	}
}

// addPrefixes adds the dot-separated path prefixes of a category: subject, subject.Science,
// subject.Science.Physics.
func addPrefixes(b *tokenBags, cat string) {
	for i := 0; i < len(cat); i++ {
		if cat[i] == '.' && i > 0 {
			b.add(cat[:i])
		}
	}
	b.add(cat)
}
