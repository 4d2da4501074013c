package workbench

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/samplingbias/workbench/datasets"
)

// wikiFolder writes a small wikilinks data folder (articles, links, and a README the loader
// never reads) into dir and returns dir.
func wikiFolder(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"articles.tsv": "A\nB\nC\n",
		"links.tsv":    "A\tB\nB\tC\nC\tA\n",
		"README.md":    "# a data folder\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDataIdentity: the data's identity is the content of the files the loader reads. Another
// spelling of the path, touching every file, copying the folder elsewhere, extracting identical
// bytes again, or adding or changing a file the loader does not read keep it; a changed byte, a
// changed size or a file read or no longer read change it, and the difference names the file
// and what changed.
func TestDataIdentity(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	base := wikiFolder(t, filepath.Join(root, "base"))
	want, err := dataIdentity(datasets.Settings{Path: base})
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	for _, c := range []struct {
		name string
		// change changes a fresh copy of the folder, dir, and returns the data path to use.
		change func(t *testing.T, dir string) string
		diff   string // "" when the identity is unchanged, else the difference expected
	}{
		{"the folder itself", func(t *testing.T, dir string) string { return dir }, ""},
		{"the links file", func(t *testing.T, dir string) string { return filepath.Join(dir, "links.tsv") }, ""},
		{"a relative path", func(t *testing.T, dir string) string {
			t.Chdir(filepath.Dir(dir))
			return filepath.Join(".", filepath.Base(dir))
		}, ""},
		{"a symbolic link", func(t *testing.T, dir string) string {
			link := dir + ".link"
			if err := os.Symlink(dir, link); err != nil {
				t.Fatal(err)
			}
			return link
		}, ""},
		{"every file touched", func(t *testing.T, dir string) string {
			for _, n := range []string{"articles.tsv", "links.tsv", "README.md"} {
				if err := os.Chtimes(filepath.Join(dir, n), later, later); err != nil {
					t.Fatal(err)
				}
			}
			return dir
		}, ""},
		{"identical bytes extracted again", func(t *testing.T, dir string) string {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			return wikiFolder(t, dir)
		}, ""},
		{"a README changed, notes added", func(t *testing.T, dir string) string {
			write(t, filepath.Join(dir, "README.md"), "# other words\n")
			write(t, filepath.Join(dir, "NOTES.txt"), "trained on 1 May\n")
			return dir
		}, ""},
		{"a byte changed", func(t *testing.T, dir string) string {
			write(t, filepath.Join(dir, "links.tsv"), "A\tC\nB\tC\nC\tA\n")
			return dir
		}, "data file links.tsv: other content at the same size (12 bytes)"},
		{"a link added", func(t *testing.T, dir string) string {
			write(t, filepath.Join(dir, "links.tsv"), "A\tB\nB\tC\nC\tA\nA\tC\n")
			return dir
		}, "data file links.tsv: 16 bytes here, 12 bytes for the folder's runs"},
		{"the articles file removed", func(t *testing.T, dir string) string {
			if err := os.Remove(filepath.Join(dir, "articles.tsv")); err != nil {
				t.Fatal(err)
			}
			return dir
		}, "data file articles.tsv: read for the folder's runs, not here"},
		{"a categories file added", func(t *testing.T, dir string) string {
			write(t, filepath.Join(dir, "categories.tsv"), "A\tx\n")
			return dir
		}, "data file categories.tsv: read here, not for the folder's runs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "copy")
			copyFolder(t, base, dir)
			got, err := dataIdentity(datasets.Settings{Path: c.change(t, dir)})
			if err != nil {
				t.Fatal(err)
			}
			diff := dataDifferences(folderSettings{values: map[string]string{dataContentKey: got}},
				folderSettings{values: map[string]string{dataContentKey: want}})
			if (got == want) != (c.diff == "") || strings.Join(diff, "; ") != c.diff {
				t.Errorf("identity %s\nwant %s\ndifference %q, want %q", got, want, diff, c.diff)
			}
		})
	}
	if _, err := withDataIdentity(nil, datasets.Settings{Path: filepath.Join(root, "missing")}); err == nil || !strings.HasPrefix(err.Error(), "data.path: ") {
		t.Errorf("missing data: %v", err)
	}
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyFolder copies the regular files of from into a new folder to, keeping nothing else
// (modification times are the copy's).
func copyFolder(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(to, e.Name()), string(b))
	}
}

// TestDataIdentityEmbeddedAndSynthetic: the embedded Wikispeedia graph is identified by the
// SHA-256 of its three files as they are in the repository (computed here from the files
// themselves, not by dataIdentity's code), its provenance note left out; synthetic data,
// determined by their settings and the seed, read no file and add nothing.
func TestDataIdentityEmbeddedAndSynthetic(t *testing.T) {
	var want []string
	for _, n := range []string{"articles.tsv.gz", "links.tsv.gz", "categories.tsv.gz"} {
		b, err := os.ReadFile(filepath.Join("..", "datasets", "wikispeedia", n))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		want = append(want, n+": "+strconv.Itoa(len(b))+" bytes sha256:"+hex.EncodeToString(sum[:]))
	}
	got, err := dataIdentity(datasets.Settings{})
	if err != nil || got != "{"+strings.Join(want, "; ")+"}" {
		t.Errorf("embedded: %s, %v\nwant {%s}", got, err, strings.Join(want, "; "))
	}
	if got, err := dataIdentity(datasets.Settings{Source: datasets.SourceSynthetic}); got != "" || err != nil {
		t.Errorf("synthetic: %q, %v", got, err)
	}
}

// TestDataHashCache: a file's hash is read from the cache while its path, size and
// modification time are the entry's (an entry planted with another hash is believed, which
// shows that the file is not read again), and computed again when its time changes, when the
// entry is corrupt, or when there is none; a file modified within the last seconds is not
// cached. Processes hashing one file at once agree (run with -race).
func TestDataHashCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	file := filepath.Join(dir, "links.tsv")
	write(t, file, "A\tB\n")
	real := sha256.Sum256([]byte("A\tB\n"))
	entry := dataHashCache(file)
	if !strings.HasPrefix(entry, filepath.Join(os.Getenv("XDG_CACHE_HOME"), "samplingbias-workbench", "data-hashes")+string(filepath.Separator)) {
		t.Fatalf("cache entry %s is not in the user's cache directory", entry)
	}
	hash := func() string {
		t.Helper()
		_, sum, err := cachedHash(file)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	if hash() != hex.EncodeToString(real[:]) {
		t.Fatal("wrong hash")
	}
	if _, err := os.Stat(entry); err == nil {
		t.Error("a file modified just now was cached")
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(file, old, old); err != nil {
		t.Fatal(err)
	}
	if hash(); exists(entry) {
		t.Error("a file whose status changed just now (its times set) was cached")
	}
	time.Sleep(racyWindow + 100*time.Millisecond) // the file's status-change time ages
	var wg sync.WaitGroup
	sums := make([]string, 8)
	for i := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if _, sums[i], err = cachedHash(file); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if distinct := slices.Compact(slices.Clone(sums)); len(distinct) != 1 || distinct[0] != hex.EncodeToString(real[:]) {
		t.Errorf("concurrent hashes %q", sums)
	}
	b, err := os.ReadFile(entry)
	if err != nil {
		t.Fatalf("no cache entry: %v", err)
	}
	planted := strings.Repeat("ab", sha256.Size)
	stamp, _, _ := strings.Cut(string(b), "\nsha256 ")
	write(t, entry, stamp+"\nsha256 "+planted)
	if got := hash(); got != planted {
		t.Errorf("the cache entry was not used: %s", got)
	}
	older := old.Add(-time.Minute)
	if err := os.Chtimes(file, older, older); err != nil {
		t.Fatal(err)
	}
	if got := hash(); got != hex.EncodeToString(real[:]) {
		t.Errorf("an entry of another modification time was used: %s", got)
	}
	write(t, entry, "garbage")
	if got := hash(); got != hex.EncodeToString(real[:]) {
		t.Errorf("a corrupt entry was used: %s", got)
	}
}

// TestDataHashCacheSameSizeEdit: an edit of a data file that keeps its size and sets its
// modification time back (as cp -p and rsync -t do) is seen: the file is hashed again.
func TestDataHashCacheSameSizeEdit(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	file := filepath.Join(t.TempDir(), "links.tsv")
	write(t, file, "A\tB\n")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(file, old, old); err != nil {
		t.Fatal(err)
	}
	time.Sleep(racyWindow + 100*time.Millisecond)
	if _, _, err := cachedHash(file); err != nil || !exists(dataHashCache(file)) {
		t.Fatalf("not cached: %v", err)
	}
	write(t, file, "A\tC\n")
	if err := os.Chtimes(file, old, old); err != nil {
		t.Fatal(err)
	}
	_, sum, err := cachedHash(file)
	want := sha256.Sum256([]byte("A\tC\n"))
	if err != nil || sum != hex.EncodeToString(want[:]) {
		t.Errorf("after a same-size edit with its time set back: hash %s, %v; want the new content's", sum, err)
	}
}

// TestDataDifferencesLegacy: a folder whose settings identify the data by location and times
// (an earlier version) is refused in one line that says how to proceed; data under an ablation
// axis are not compared here.
func TestDataDifferencesLegacy(t *testing.T) {
	here := folderSettings{values: map[string]string{dataContentKey: "{links.tsv: 4 bytes sha256:00}"}}
	folder := folderSettings{values: map[string]string{legacyDataKey: `"/data/wiki" {links.tsv: 4 bytes, modified 1}`}}
	diff := here.differences(folder)
	if len(diff) != 1 || !strings.Contains(diff[0], "earlier versions") || !strings.Contains(diff[0], "choose another -out, or remove the folder") {
		t.Errorf("legacy folder: %q", diff)
	}
	embedded := folderSettings{values: map[string]string{}}
	if diff := here.differences(embedded); len(diff) != 1 || !strings.Contains(diff[0], "by the module's version") {
		t.Errorf("legacy folder of the embedded graph: %q", diff)
	}
	synthetic := folderSettings{values: map[string]string{"data.source": `"synthetic"`}}
	if diff := dataDifferences(here, synthetic); len(diff) != 1 || strings.Contains(diff[0], "earlier versions") {
		t.Errorf("a folder of synthetic data: %q", diff)
	}
	for _, axis := range []string{"data.path", "data", "data.interactions.file", "data.xmc"} {
		here.axes = []string{axis}
		if diff := dataDifferences(here, folder); diff != nil {
			t.Errorf("data under the axis %s: %q", axis, diff)
		}
	}
	here.axes = []string{"data.min_count"}
	if diff := dataDifferences(here, folder); len(diff) != 1 {
		t.Errorf("an axis that chooses no file: %q", diff)
	}
}

// TestResumeIgnoresOtherFiles: a run killed mid-training with a checkpoint resumes from it
// after a README and notes appear beside its data and the data file is touched, and -report
// then finds the run: neither the folder's claim, nor the checkpoint, nor the report depends on
// files the loader does not read or on modification times.
func TestResumeIgnoresOtherFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	var csv strings.Builder
	csv.WriteString("userId,movieId,rating,timestamp\n")
	for i := range 2000 {
		fmt.Fprintf(&csv, "%d,%d,%d,%d\n", i%97, (i*i)%61, 1+i%5, 1000000+i)
	}
	data := filepath.Join(dir, "data", "ratings.csv")
	write(t, data, csv.String())
	config := filepath.Join(dir, "exp.toml")
	write(t, config, "[data]\nsource = \"interactions\"\npath = \"data/ratings.csv\"\n[model]\nembedding_dim = 8\nhidden = [16]\n[train]\nbatch_size = 64\nepochs = 1\n[eval]\nk = [10]\nbootstrap = 10\n")
	sets := []string{"train.checkpoint_every=5", "train.log_every=5", "train.log_seconds=1e-9"}
	out := filepath.Join(dir, "results")
	interrupt(t, config, out, sets, "", "step 10/")
	write(t, filepath.Join(dir, "data", "README.md"), "# ratings\n")
	write(t, filepath.Join(dir, "data", "NOTES.txt"), "collected in May\n")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(data, later, later); err != nil {
		t.Fatal(err)
	}
	args := []string{"-config", config, "-out", out, "-set", sets[0], "-set", sets[1], "-set", sets[2]}
	o, err := runCommand(t, args...)
	if err != nil || !strings.Contains(o, "resuming training from") || strings.Contains(o, "step 5/") {
		t.Errorf("the run did not resume from its checkpoint: %v\n%s", err, o)
	}
	if o, err := runCommand(t, append(args, "-report")...); err != nil || !strings.Contains(o, "report: 1 of 1 runs finished") {
		t.Errorf("-report: %v\n%s", err, o)
	}
}

// TestPathAxisRelativeToConfig: the values of an ablation axis over data.path that the config
// file writes are relative to the file, as its data.path is (they were taken relative to the
// working directory); the values of a -set that writes the axis are relative to the working
// directory, as any -set data.path is. The run ids keep the values as written.
func TestPathAxisRelativeToConfig(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "exp")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.csv", "b.csv"} {
		write(t, filepath.Join(dir, f), "userId,movieId,rating,timestamp\n1,10,5,1000\n1,11,4,2000\n2,10,3,3000\n2,12,5,4000\n3,11,4,5000\n3,12,2,6000\n")
	}
	path := filepath.Join(dir, "grid.toml")
	write(t, path, "[data]\nsource = \"interactions\"\n[[ablation]]\nkey = \"data.path\"\nvalues = [\"a.csv\", \"b.csv\"]\n")
	raw, cfg, err := loadConfig(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := plan(raw, cfg)
	if err != nil {
		t.Fatalf("the file's axis over data.path, relative to the file: %v", err)
	}
	if len(runs) != 2 || runs[0].ID != "path=a.csv,seed=1" || runs[0].cfg.Data.Path != filepath.Join(dir, "a.csv") {
		t.Errorf("runs %d, first %q with data.path %q", len(runs), runs[0].ID, runs[0].cfg.Data.Path)
	}
	// A -set's values are relative to the working directory: these name nothing there.
	raw, cfg, err = loadConfig(path, []string{`data.path=["a.csv", "b.csv"]`})
	if err == nil {
		_, err = plan(raw, cfg)
	}
	wantError(t, err, "a.csv")
	raw, cfg, err = loadConfig(path, []string{`data.path=["` + filepath.Join(dir, "b.csv") + `"]`})
	if err == nil {
		_, err = plan(raw, cfg)
	}
	if err != nil {
		t.Errorf("a -set of the axis with a path from the working directory: %v", err)
	}
}
