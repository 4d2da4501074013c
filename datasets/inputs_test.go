package datasets

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// copyWithNotes copies the files of directory dir into a new temporary directory and adds a
// README.md and a NOTES.txt, files no loader reads.
func copyWithNotes(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"README.md": "# notes\n", "NOTES.txt": "train on this\n"}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return writeFiles(t, files)
}

// TestListInputs: every source lists exactly the files its loader reads (the files of the
// loader's Report, in its order), never the README.md and NOTES.txt beside them; a path naming
// the train file of XMC data with split kind "files" finds the test file beside it.
func TestListInputs(t *testing.T) {
	wiki := copyWithNotes(t, "testdata/wiki")
	arff := copyWithNotes(t, "testdata/arff")
	text := copyWithNotes(t, "testdata/xmctext")
	ratings := fixture()
	ratings.Path = copyWithNotes(t, "testdata/ratings")
	for _, c := range []struct {
		name string
		s    Settings
		dir  string // Inputs.Dir
		want []string
	}{
		{"wikilinks folder", Settings{Path: wiki}, wiki, []string{"articles.tsv", "links.tsv", "categories.tsv"}},
		{"wikilinks links file", Settings{Path: filepath.Join(wiki, "links.tsv")}, wiki, []string{"articles.tsv", "links.tsv", "categories.tsv"}},
		{"embedded wikispeedia", Settings{}, "", []string{"articles.tsv.gz", "links.tsv.gz", "categories.tsv.gz"}},
		{"arff folder", Settings{Source: SourceXMC, Path: arff}, arff, []string{"mini.xml", "mini-train.arff", "mini-test.arff"}},
		{"arff train file, split files", Settings{Source: SourceXMC, Path: filepath.Join(arff, "mini-train.arff")}, arff, []string{"mini.xml", "mini-train.arff", "mini-test.arff"}},
		{"arff train file, split random", Settings{Source: SourceXMC, Path: filepath.Join(arff, "mini-train.arff"), Split: SplitSettings{Kind: SplitRandom, TestFraction: 0.5}}, arff, []string{"mini.xml", "mini-train.arff"}},
		{"xmc text folder", Settings{Source: SourceXMC, Path: text}, text, []string{"train.txt", "test.txt"}},
		{"xmc text train file, split files", Settings{Source: SourceXMC, Path: filepath.Join(text, "train.txt")}, text, []string{"train.txt", "test.txt"}},
		{"interactions", ratings, ratings.Path, []string{"items.csv", "ratings.tsv"}},
		{"synthetic", Settings{Source: SourceSynthetic}, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, err := ListInputs(c.s)
			if err != nil {
				t.Fatal(err)
			}
			if in.Dir != c.dir || !slices.Equal(in.Names, c.want) {
				t.Errorf("inputs %s %q, want %s %q", in.Dir, in.Names, c.dir, c.want)
			}
			if c.s.Source == SourceSynthetic {
				return
			}
			d, err := Load(c.s, 1)
			if err != nil {
				t.Fatal(err)
			}
			var read []string
			for _, f := range d.Report.Files {
				name, _, _ := strings.Cut(f, " (")
				read = append(read, filepath.Base(name))
			}
			if !slices.Equal(read, c.want) {
				t.Errorf("the loader read %q, Inputs lists %q", read, c.want)
			}
		})
	}
}

// TestListInputsMissing: a file the loader needs and cannot find is the loader's error.
func TestListInputsMissing(t *testing.T) {
	dir := writeFiles(t, map[string]string{"train.txt": "1 1 1\n0 0:1\n"})
	_, errInputs := ListInputs(Settings{Source: SourceXMC, Path: filepath.Join(dir, "train.txt")})
	_, errLoad := Load(Settings{Source: SourceXMC, Path: filepath.Join(dir, "train.txt")}, 1)
	if errInputs == nil || errLoad == nil || errInputs.Error() != errLoad.Error() {
		t.Errorf("ListInputs: %v; Load: %v; want one error", errInputs, errLoad)
	}
}

// TestXMCTrainFileIsNotTheTestFile: one file matching both *train* and *test* is not read as
// both.
func TestXMCTrainFileIsNotTheTestFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{"train_test.txt": "1 1 1\n0 0:1\n"})
	want := "xmc.test: " + filepath.Join(dir, "train_test.txt") + " is the train file too (set xmc.train and xmc.test)"
	if _, err := ListInputs(Settings{Source: SourceXMC, Path: dir}); err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}
