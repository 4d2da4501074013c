package datasets

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// mustLoad loads s with seed, with the sequence index (whose invariants Validate checks too), and
// checks the dataset's invariants.
func mustLoad(t testing.TB, s Settings, seed int64) *Dataset {
	t.Helper()
	d, err := LoadWith(s, seed, Options{Sequences: true})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if err := d.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	return d
}

// bagTokens returns entity e's bag in field f as tokens ("#oov" for a hash bucket), sorted.
func bagTokens(f *Field, e int) []string {
	ids, _ := f.Bag(e)
	var out []string
	for _, id := range ids {
		if int(id) < f.Known {
			out = append(out, f.Tokens[id])
		} else {
			out = append(out, "#oov")
		}
	}
	slices.Sort(out)
	return out
}

// writeFiles writes name -> content files into a new temporary directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// gzipFile writes content gzip-compressed to path.
func gzipFile(t *testing.T, path string, content []byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	if _, err := zw.Write(content); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// checkProvenance checks that every file a PROVENANCE.md lists with a sha256 and that fsys
// holds (plain or gzipped) has that sha256 once decompressed, and that the files in want
// are among them.
func checkProvenance(t *testing.T, fsys fs.FS, want ...string) {
	t.Helper()
	prov, err := fs.ReadFile(fsys, "PROVENANCE.md")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^([0-9a-f]{64})  (\S+)$`)
	checked := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(string(prov)))
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		src := files{fsys: fsys}
		if src.find(m[2]) == "" {
			continue
		}
		r, _, closer, err := src.reader(m[2])
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		if _, err := io.Copy(h, r); err != nil {
			t.Fatal(err)
		}
		closer()
		if got := hex.EncodeToString(h.Sum(nil)); got != m[1] {
			t.Errorf("%s: sha256 %s, PROVENANCE.md says %s", m[2], got, m[1])
		}
		checked[m[2]] = true
	}
	for _, w := range want {
		if !checked[w] {
			t.Errorf("%s: not shipped or not listed in PROVENANCE.md", w)
		}
	}
}

func mustResolve(t *testing.T, s Settings) Settings {
	t.Helper()
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	return s
}

// testQueries checks that no query has pairs in both train and test and returns the number
// of test queries.
func testQueries(t *testing.T, d *Dataset) int {
	t.Helper()
	test := map[int32]bool{}
	for _, p := range d.Test {
		test[p.Query] = true
	}
	for _, p := range d.Train {
		if test[p.Query] {
			t.Fatalf("query %d in train and test", p.Query)
		}
	}
	return len(test)
}
