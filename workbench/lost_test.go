package workbench

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStaleTemporaryFilesRemoved: temporary files of atomic writes left by a killed process are
// removed by the next run of the folder (8 were once left and never cleaned); one being
// written by another process now (newer than this invocation) is left alone.
func TestStaleTemporaryFilesRemoved(t *testing.T) {
	dir := t.TempDir()
	_, cfg, err := loadConfig(smokeConfig, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := claimFolder(dir, cfg, axisKeyList(cfg.Ablation), io.Discard); err != nil { // a folder of ours
		t.Fatal(err)
	}
	runDir := filepath.Join(dir, "runs", "variant=plain,seed=1")
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	stale := []string{filepath.Join(dir, ".metrics.csv.tmp123"), filepath.Join(dir, ".recall_at_10.png.tmp9"), filepath.Join(runDir, ".model.bin.tmp456")}
	fresh := filepath.Join(dir, ".summary.md.tmp77")
	for _, f := range append(stale, fresh) {
		if err := os.WriteFile(f, []byte("torn"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(f, old, old); err != nil {
			t.Fatal(err)
		}
	}
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(fresh, future, future); err != nil {
		t.Fatal(err)
	}
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", "variant=plain,seed=1"); err != nil {
		t.Fatal(err)
	}
	for _, f := range stale {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s is still there", f)
		}
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("another process's temporary file was removed: %v", err)
	}
}

// TestFailedReevaluationKeepsFolderFiles: a re-evaluation that fails part-way leaves the
// folder's metrics.csv as it was, rather than one holding only the runs re-evaluated so far.
func TestFailedReevaluationKeepsFolderFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", "seed=1$"); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, filepath.Join(dir, "metrics.csv"))
	// The second run to re-evaluate fails: its config.toml cannot be replaced.
	cfgPath := filepath.Join(dir, "runs", "variant=logq,seed=1", "config.toml")
	if err := os.Remove(cfgPath); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(cfgPath, "blocker"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", "seed=1$", "-jobs", "1", "-set", "eval.k=[5]")
	wantError(t, err, "run variant=logq,seed=1: ", "config.toml")
	if !strings.Contains(out, "[1/2] variant=plain,seed=1 finished") {
		t.Fatalf("the first run was not re-evaluated:\n%s", out)
	}
	after := readFile(t, filepath.Join(dir, "metrics.csv"))
	if !bytes.Equal(before, after) {
		t.Errorf("metrics.csv changed after a failed re-evaluation:\n%s\nwas\n%s", after, before)
	}
}

// TestFirstErrorReported: when a run fails and writing the folder-level files then fails too
// (a full disk fails both), the run's error is the one reported, and a line says that the
// folder's report is incomplete, and why.
func TestFirstErrorReported(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", "seed=1$"); err != nil {
		t.Fatal(err)
	}
	// The folder-level files will be written (no metrics.csv to keep), and summary.md fails.
	for _, f := range []string{"metrics.csv", "summary.md"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "summary.md", "blocker"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The first run to do fails: its config.toml cannot be written.
	if err := os.MkdirAll(filepath.Join(dir, "runs", "variant=plain,seed=2", "config.toml", "blocker"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-jobs", "1")
	wantError(t, err, "run variant=plain,seed=2: ", "config.toml")
	if strings.Contains(err.Error(), "summary.md") {
		t.Errorf("a later error replaced the first: %v", err)
	}
	if want := dir + "'s report of the 2 runs finished is incomplete: "; !strings.Contains(out, want) || !strings.Contains(out, "summary.md") {
		t.Errorf("output\n%s\nwant a line %q naming summary.md", out, want)
	}
}
