package datasets

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// head returns the first n lines of a file of src (gunzipped), for seed corpora.
func head(t testing.TB, src files, name string, n int) []byte {
	t.Helper()
	l, err := src.open(name)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 0; i < n && l.next(); i++ {
		b.Write(l.text)
		b.WriteByte('\n')
	}
	if err := l.done(); err != nil {
		t.Fatal(err)
	}
	return []byte(b.String())
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkLoaded finishes a loader's result and checks that a successful load is a valid
// dataset and that a ParseError has a line.
func checkLoaded(t *testing.T, l *Unsplit, err error, s Settings) {
	t.Helper()
	if err == nil {
		_, err = l.Split(s.Split, 1)
		if err == nil {
			if verr := l.Dataset.Validate(); verr != nil {
				t.Fatalf("invalid dataset: %v", verr)
			}
			_ = l.Dataset.Report.String()
			return
		}
	}
	var pe *ParseError
	if errors.As(err, &pe) && pe.Line < 1 {
		t.Fatalf("ParseError without a line: %v", err)
	}
}

func FuzzWikilinks(f *testing.F) {
	sub, err := fs.Sub(wikispeedia, "wikispeedia")
	if err != nil {
		f.Fatal(err)
	}
	wiki := files{fsys: sub}
	f.Add(head(f, wiki, "articles.tsv", 40), head(f, wiki, "links.tsv", 60), head(f, wiki, "categories.tsv", 40))
	f.Add([]byte{}, head(f, wiki, "links.tsv", 60), head(f, wiki, "categories.tsv", 40))
	f.Add(readFile(f, "testdata/wiki/articles.tsv"), readFile(f, "testdata/wiki/links.tsv"), readFile(f, "testdata/wiki/categories.tsv"))
	f.Add([]byte{}, []byte("a\tb\nb\tc\nc\ta\na\ta\n"), []byte("a\tx.y.z\n"))
	f.Add([]byte("A\n"), []byte("A\tB\tC\n"), []byte("\t\n"))
	f.Add([]byte("%zz\n%41\n"), []byte("%zz\t%41\n%41\t%zz\n"), []byte("%zz\t.a..b.\n"))
	f.Fuzz(func(t *testing.T, articles, links, categories []byte) {
		m := fstest.MapFS{"links.tsv": {Data: links}, "categories.tsv": {Data: categories}}
		if len(articles) > 0 {
			m["articles.tsv"] = &fstest.MapFile{Data: articles}
		}
		s := mustResolve(t, Settings{Path: "fuzz", MinCount: 1, OOVBuckets: 3, Split: SplitSettings{TestFraction: 0.5}})
		l, err := readWikilinks(files{fsys: m}, linksFile, "fuzz", s)
		checkLoaded(t, l, err, s)
	})
}

func FuzzARFF(f *testing.F) {
	f.Add(readFile(f, "testdata/arff/mini-train.arff"), readFile(f, "testdata/arff/mini-test.arff"), readFile(f, "testdata/arff/mini.xml"), uint8(0))
	f.Add(readFile(f, "testdata/arff/mini-train.arff"), readFile(f, "testdata/arff/mini-test.arff"), []byte{}, uint8(2))
	// Delicious's first rows, with the header cut to the attributes they use (and 5 labels).
	f.Add([]byte("@relation delicious_train\n\n@attribute _qacct {0,1}\n@attribute accessing {0,1}\n@attribute TAG_.imported {0,1}\n@attribute TAG_.net {0,1}\n@attribute TAG_2.0 {0,1}\n@attribute TAG_m\\'usica {0,1}\n@attribute TAG_youtube {0,1}\n\n@data\n{0 1,1 1,3 1,6 1}\n{1 1,2 1,4 1,5 1}\n"),
		[]byte("@relation delicious_test \n\n@attribute _qacct {0,1}\n@attribute accessing {0,1}\n@attribute TAG_.imported {0,1}\n@attribute TAG_.net {0,1}\n@attribute TAG_2.0 {0,1}\n@attribute TAG_m\\'usica {0,1}\n@attribute TAG_youtube {0,1}\n\n@data\n{0 1,5 1}\n"),
		[]byte("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<labels xmlns=\"http://mulan.sourceforge.net/labels\">\n<label name=\"TAG_.imported\"></label>\n<label name=\"TAG_.net\"></label>\n<label name=\"TAG_2.0\"></label>\n<label name=\"TAG_m\\'usica\"></label>\n<label name=\"TAG_youtube\"></label>\n</labels>\n"),
		uint8(0))
	f.Add([]byte("@relation r\n@attribute a numeric\n@attribute L {0,1}\n@data\n1,1\n{0 2,1 1}\n"), []byte("@data\n"), []byte(`<labels><label name="L"/></labels>`), uint8(0))
	f.Add([]byte("@attribute \"a\\\"b\" real\n@attribute L {0,1}\n@data\n{1 1,1 1,0 -1e-3}\n{}\n"), []byte("@attribute 'a\"b' real\n@attribute L {0,1}\n@data\n?,1\n"), []byte{}, uint8(1))
	f.Fuzz(func(t *testing.T, train, test, xml []byte, labels uint8) {
		m := fstest.MapFS{"f-train.arff": {Data: train}, "f-test.arff": {Data: test}}
		if len(xml) > 0 { // an empty one stands for none, which xmc.labels set allows
			m["f.xml"] = &fstest.MapFile{Data: xml}
		}
		s := mustResolve(t, Settings{Source: "xmc", Path: "fuzz", XMC: XMCSettings{Labels: int(labels % 8)}})
		l, err := readXMC(files{fsys: m}, "", "fuzz", s, 1<<12)
		checkLoaded(t, l, err, s)
	})
}

func FuzzXMCText(f *testing.F) {
	f.Add(readFile(f, "testdata/xmctext/train.txt"), readFile(f, "testdata/xmctext/test.txt"))
	f.Add([]byte("2 3 4\n0,1 0:1 2:1.5e2\n\n"), []byte("1 3 4\n3 1:1\n"))
	f.Add([]byte("2 1 1\n0\t0:1\r\n0\n"), []byte("1 1 1\n0,0 0:-1 0:2\n"))
	f.Add([]byte("1 2147483647 4096\n4095 2147483646:1\n"), []byte("1 2147483647 4096\n0\n"))
	f.Fuzz(func(t *testing.T, train, test []byte) {
		m := fstest.MapFS{"train.txt": {Data: train}, "test.txt": {Data: test}}
		s := mustResolve(t, Settings{Source: "xmc", Path: "fuzz"})
		l, err := readXMC(files{fsys: m}, "", "fuzz", s, 1<<12)
		checkLoaded(t, l, err, s)
	})
}

func FuzzCSVInteractions(f *testing.F) {
	ratings := head(f, dirFiles("../data/movielens-latest-small"), "ratings.csv", 50)
	movies := head(f, dirFiles("../data/movielens-latest-small"), "movies.csv", 50)
	f.Add(ratings, movies)
	f.Add([]byte("userId,movieId,rating,timestamp\n1,2,3.5,10\n1,2,4,5\n2,9,1,-86401\n"), []byte("movieId,title,genres\n2,\"a, \"\"b\"\"\",x|y||\n2,dup,z\n"))
	f.Add([]byte("\ufeffuserId,movieId,rating,timestamp\r\n1,2,3,4.5\r\n1,3,3,100000\r\n"), []byte("movieId,genres\n"))
	f.Add([]byte("userId,movieId,rating,timestamp\n1,2,3,9223372036854775807\n1,3,3,-9223372036854775808\n"), []byte("movieId,genres\n"))
	f.Fuzz(func(t *testing.T, ratings, movies []byte) {
		m := fstest.MapFS{"ratings.csv": {Data: ratings}, "movies.csv": {Data: movies}}
		s := mustResolve(t, Settings{Source: "interactions", Path: "fuzz", Split: SplitSettings{TestFraction: 0.5},
			Interactions: InteractionsSettings{ItemFeatures: []FeatureFile{{File: "movies.csv", Columns: []string{"genres"}}}}})
		l, err := readInteractionData(files{fsys: m}, "", "fuzz", s)
		checkLoaded(t, l, err, s)
	})
}
