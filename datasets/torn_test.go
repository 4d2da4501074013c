package datasets

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestFinalLineWithoutBreak: over every loader, a final line without a line break is kept and
// reported when its structure says it is complete (its columns, values that parse, a last value
// as long as the other rows' and not a number cut short), and is an error naming file:line when
// it looks cut (a CSV cut inside its last timestamp).
func TestFinalLineWithoutBreak(t *testing.T) {
	const (
		ratings  = "userId,movieId,rating,timestamp\n1,2,4.0,1217675000\n5,6,3.5,1217675100\n"
		wikiArts = "A\nB\nC\n"
		arffHead = "@relation r\n@attribute f0 numeric\n@attribute f1 numeric\n@attribute L0 {0,1}\n@attribute L1 {0,1}\n@data\n"
	)
	csv := func(last string) map[string]string { return map[string]string{"ratings.csv": ratings + last} }
	for _, c := range []struct {
		name   string
		source Source
		files  map[string]string
		// want is "" when the data load with one line kept without its break (named by
		// kept, "file:line"), else the end of the error.
		want, kept string
	}{
		{"csv complete", SourceInteractions, csv("322,953,4.0,1217676000"), "", "ratings.csv:4"},
		{"csv cut in its timestamp", SourceInteractions, csv("322,953,4.0,1217676"),
			`ratings.csv:4: ` + tornMessage(`its last value "1217676" is shorter than the last value of every other row (10 or more characters)`), ""},
		{"csv cut after its columns' separator", SourceInteractions, csv("322,953,4.0,"),
			`ratings.csv:4: data.interactions.time: column 3: timestamp "": expected unix seconds`, ""},
		{"csv cut before its last column", SourceInteractions, csv("322,953,4.0"),
			"ratings.csv:4: expected 4 columns (userId, movieId, rating, timestamp), got 3", ""},
		{"csv cut in a rating", SourceInteractions, map[string]string{"ratings.csv": "userId,movieId,timestamp,rating\n1,2,1217675000,4\n1,3,1217675000,4\n3,4,1217676000,4."},
			`ratings.csv:4: ` + tornMessage(`its last value "4." ends like a number cut short`), ""},
		{"csv cut in a quoted field", SourceInteractions, csv(`3,4,5,"12176`),
			`ratings.csv:4: column 13: extraneous or missing " in quoted-field`, ""},
		{"tsv complete", SourceInteractions, map[string]string{"ratings.tsv": "userId\tmovieId\trating\ttimestamp\n1\t2\t4\t1217675000\n3\t4\t5\t1217676000"}, "", "ratings.tsv:3"},
		{"feature file cut", SourceInteractions, map[string]string{"ratings.csv": ratings + "3,4,5,1217676000\n", "movies.csv": "movieId,genres\n2,Comedy|Drama\n4,Dr"},
			`movies.csv:3: ` + tornMessage(`its last value "Dr" is shorter than the last value of every other row (12 or more characters)`), ""},
		{"feature file complete", SourceInteractions, map[string]string{"ratings.csv": ratings + "3,4,5,1217676000\n", "movies.csv": "movieId,genres\n2,Comedy|Drama\n4,Drama|Comedy"}, "", "movies.csv:3"},
		{"links complete", SourceWikilinks, map[string]string{"articles.tsv": wikiArts, "links.tsv": "A\tB\nB\tC\nC\tA"}, "", "links.tsv:3"},
		{"links cut in a page name", SourceWikilinks, map[string]string{"articles.tsv": "Alpha\nBeta\nGamma\n", "links.tsv": "Alpha\tBeta\nBeta\tGamma\nGamma\tAl"},
			`links.tsv:3: ` + tornMessage(`its last value "Al" is shorter than the last value of every other row (4 or more characters); expected linkSource, linkTarget`), ""},
		{"xmc text complete", SourceXMC, map[string]string{"train.txt": "2 2 3\n0 0:1\n1 0:1 1:0.5", "test.txt": "1 2 3\n2 1:1\n"}, "", "train.txt:3"},
		{"xmc text cut after a colon", SourceXMC, map[string]string{"train.txt": "2 2 3\n0 0:1\n1 0:1 1:", "test.txt": "1 2 3\n2 1:1\n"},
			`train.txt:3: ` + tornMessage(`feature 1: value "" is not a finite number`), ""},
		{"arff dense complete", SourceXMC, map[string]string{"mini.xml": `<labels><label name="L0"/><label name="L1"/></labels>`, "train.arff": arffHead + "1,0,1,0\n0,1,0,1", "test.arff": arffHead + "{0 1,3 1}\n"}, "", "train.arff:8"},
		{"arff dense cut", SourceXMC, map[string]string{"mini.xml": `<labels><label name="L0"/><label name="L1"/></labels>`, "train.arff": arffHead + "1,0,1,0\n0.5,1,0,", "test.arff": arffHead + "{0 1,3 1}\n"},
			`train.arff:8: ` + tornMessage(`attribute 3 (L1): value "" is not a finite number`), ""},
		{"arff sparse cut", SourceXMC, map[string]string{"mini.xml": `<labels><label name="L0"/><label name="L1"/></labels>`, "train.arff": arffHead + "{0 1,2 1}\n{1 1,3", "test.arff": arffHead + "{0 1,3 1}\n"},
			`train.arff:8: ` + tornMessage(`sparse row must end with '}'`), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, c.files)
			s := Settings{Source: c.source, Path: dir, Split: SplitSettings{TestFraction: 0.5}}
			if _, ok := c.files["movies.csv"]; ok {
				s.Interactions.ItemFeatures = []FeatureFile{{File: "movies.csv", Columns: []string{"genres"}}}
			}
			if _, ok := c.files["ratings.tsv"]; ok {
				s.Interactions.File = "ratings.tsv"
			}
			if c.source == SourceXMC {
				s.Split = SplitSettings{}
			}
			d, err := Load(s, 1)
			if c.want != "" {
				var pe *ParseError
				if err == nil || !errors.As(err, &pe) || err.Error() != filepath.Join(dir, c.want) {
					t.Errorf("error %v\nwant  %s", err, filepath.Join(dir, c.want))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := d.Report
			example := filepath.Join(dir, c.kept) + ": the last line has no line break (kept: its columns and last value look complete)"
			if r.Unterminated != 1 || !strings.Contains(r.Summary(), "last lines without a line break (kept): 1") || !strings.Contains(r.String(), example) {
				t.Errorf("unterminated %d, summary %q, report\n%s\nwant example %s", r.Unterminated, r.Summary(), r, example)
			}
		})
	}
}

// TestFinalLineBreakCounts: files that end with a line break, or with a sparse ARFF row's '}',
// count nothing.
func TestFinalLineBreakCounts(t *testing.T) {
	// A sparse ARFF row marks its own end with '}', as Delicious's last rows do without a line
	// break.
	dir := writeFiles(t, map[string]string{"mini.xml": `<labels><label name="L0"/><label name="L1"/></labels>`,
		"train.arff": "@attribute f0 numeric\n@attribute L0 {0,1}\n@attribute L1 {0,1}\n@data\n{0 1,1 1}\n{0 2,2 1}", "test.arff": "@attribute f0 numeric\n@attribute L0 {0,1}\n@attribute L1 {0,1}\n@data\n{0 1,2 1}"})
	for _, s := range []Settings{fixture(), {Source: SourceXMC, Path: dir}, {Path: "testdata/wiki", Split: SplitSettings{TestFraction: 0.5}}, {Source: SourceXMC, Path: "testdata/arff"}, {Source: SourceXMC, Path: "testdata/xmctext"}} {
		if d := mustLoad(t, s, 1); d.Report.Unterminated != 0 {
			t.Errorf("%s: %d last lines without a line break", s.Path, d.Report.Unterminated)
		}
	}
}
