package workbench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestForceNeverReplacesAnotherGridsRun: config B (axis estimator.alpha) finishes
// runs/alpha=0.5,seed=1; config A (axis loss.options.alpha) shares the folder, since they differ
// in their axes only, and its run with -force is its own folder: B's model and config are
// untouched. A run of another grid under a run's own id is refused even with -force.
func TestForceNeverReplacesAnotherGridsRun(t *testing.T) {
	out := t.TempDir()
	common := []string{"-config", smokeConfig, "-out", out, "-set", "seeds=[1]", "-set", "loss.variant=tempered_plain"}
	b := append(common[:len(common):len(common)], "-set", "estimator.alpha=[0.5]")
	if _, err := runCommand(t, b...); err != nil {
		t.Fatal(err)
	}
	bDir := filepath.Join(out, "runs", "variant=tempered_plain,alpha=0.5,seed=1")
	model, conf := readFile(t, filepath.Join(bDir, "model.bin")), readFile(t, filepath.Join(bDir, "config.toml"))
	a := append(common[:len(common):len(common)], "-set", "loss.options.alpha=[0.5]", "-force")
	if _, err := runCommand(t, a...); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readFile(t, filepath.Join(bDir, "model.bin")), model) || !bytes.Equal(readFile(t, filepath.Join(bDir, "config.toml")), conf) {
		t.Error("config A's -force run replaced config B's run")
	}
	if !exists(filepath.Join(out, "runs", "variant=tempered_plain,loss.options.alpha=0.5,seed=1", "model.bin")) {
		t.Error("config A's run is not in its own folder")
	}
	// A third grid whose run has B's id (its other axis value is empty, so left out of the id).
	c := append(common[:len(common):len(common)], "-set", "estimator.alpha=[0.5]", "-set", `loss.correct_at=[""]`, "-force")
	_, err := runCommand(t, c...)
	wantError(t, err, "run variant=tempered_plain,alpha=0.5,seed=1: "+bDir+" holds a run of another grid (axes estimator.alpha=0.5, loss.variant=tempered_plain; this run's estimator.alpha=0.5, loss.correct_at=, loss.variant=tempered_plain), which -force does not replace")
	if !bytes.Equal(readFile(t, filepath.Join(bDir, "model.bin")), model) {
		t.Error("a refused run replaced config B's run")
	}
}

// TestTornRecordRedone: a run whose metrics.json is torn, or JSON without a run's identity, is
// not finished: -report names it as unreadable and leaves it out, the grid runs it again, saying
// so, and so does -force -only on it; other commands are not stopped by it.
func TestTornRecordRedone(t *testing.T) {
	for _, tt := range []struct {
		name string
		tear func(b []byte) []byte
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }},
		{"empty object", func([]byte) []byte { return []byte("{}") }},
		{"null", func([]byte) []byte { return []byte("null") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			args := []string{"-config", smokeConfig, "-out", out, "-set", "seeds=[1]"}
			if _, err := runCommand(t, args...); err != nil {
				t.Fatal(err)
			}
			rec := filepath.Join(out, "runs", "variant=logq,seed=1", "metrics.json")
			tear := func() {
				t.Helper()
				if err := os.WriteFile(rec, tt.tear(readFile(t, rec)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			tear()
			stdout, err := runCommand(t, append(args, "-report")...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stdout, rec+" is unreadable") || !strings.Contains(stdout, "report: 1 of 2 runs finished; missing 1: variant=logq,seed=1\n") {
				t.Errorf("-report on a torn record:\n%s", stdout)
			}
			stdout, err = runCommand(t, append(args, "-force", "-only", "variant=logq,seed=1")...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stdout, rec+" is unreadable") || !strings.Contains(stdout, "[1/1] variant=logq,seed=1 finished") {
				t.Errorf("-force -only on a torn record:\n%s", stdout)
			}
			tear()
			stdout, err = runCommand(t, args...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stdout, "2 runs: 1 already finished, 1 to run") {
				t.Errorf("a torn record counted as finished:\n%s", stdout)
			}
		})
	}
}

// TestCopiedCheckpointRefused: a checkpoint copied from another run into a run's folder, beside
// the run's own, is not resumed: the run is refused, naming both training identities.
func TestCopiedCheckpointRefused(t *testing.T) {
	out := t.TempDir()
	load := func(extra ...string) plannedRun { return checkpointedRun(t, out, extra...) }
	cache := &dataCache{sets: map[string]*cachedData{}}
	kill := func(r plannedRun) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if _, err := runOne(ctx, r, nil, cache, &cancelAt{mark: "step 25/112", cancel: cancel}); !errors.Is(err, context.Canceled) {
			t.Fatalf("killed run: error %v, want context.Canceled", err)
		}
	}
	mine, other := load(), load("estimator.alpha=0.05")
	other.dir = filepath.Join(t.TempDir(), "other")
	kill(mine)
	kill(other)
	copied := filepath.Join(mine.dir, filepath.Base(other.checkpointPath()))
	write(t, copied, string(readFile(t, other.checkpointPath())))
	_, err := runOne(context.Background(), mine, nil, cache, &strings.Builder{})
	wantError(t, err, copied+" is of training settings "+other.trainHash+", this run's are "+mine.trainHash)
}

// TestSymlinkedRunFolderRefused: a run folder, or the runs folder, that is a symbolic link to
// elsewhere is refused before anything is written through it.
func TestSymlinkedRunFolderRefused(t *testing.T) {
	for _, link := range []string{"runs", filepath.Join("runs", "variant=plain,seed=1")} {
		t.Run(link, func(t *testing.T) {
			out, elsewhere := t.TempDir(), t.TempDir()
			if err := os.MkdirAll(filepath.Dir(filepath.Join(out, link)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(elsewhere, filepath.Join(out, link)); err != nil {
				t.Fatal(err)
			}
			_, err := runCommand(t, "-config", smokeConfig, "-out", out, "-set", "seeds=[1]")
			wantError(t, err, filepath.Join(out, link)+" is a symbolic link")
			if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
				t.Errorf("%d files were written through the link", len(entries))
			}
		})
	}
}

// TestLongRunIDRefused: a run whose id is longer than a folder's name may be is refused when the
// grid is planned, before any run starts.
func TestLongRunIDRefused(t *testing.T) {
	long := strings.Repeat("x", 250)
	_, err := loadAndPlan(t, "[loss]\nvariant = \"tempered_plain\"\n", "loss.options.names=[[\""+long+"\"], [\"y\"]]")
	wantError(t, err, "its id is 2", "bytes, longer than a folder's name may be (255)")
}
