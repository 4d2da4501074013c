package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/internal/exampletest"
)

// TestRunsTheGrid builds the program and runs it: both cells of the grid train and are
// evaluated, each printed with its test pairs and its Recall@10 in its interval, and the
// results folder holds the report the command writes. Run again, it trains nothing: the same
// lines come from the finished runs.
func TestRunsTheGrid(t *testing.T) {
	bin, out := exampletest.Build(t), filepath.Join(t.TempDir(), "grid")
	first, err := exec.Command(bin, "-out", out).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, first)
	}
	line := regexp.MustCompile(`^variant=(plain|logq),seed=1: 400 test pairs, Recall@10 0\.\d{3} \[0\.\d{3}, 0\.\d{3}\]$`)
	lines := strings.Split(strings.TrimSpace(string(first)), "\n")
	if len(lines) != 2 || !line.MatchString(lines[0]) || !line.MatchString(lines[1]) {
		t.Errorf("output:\n%s", first)
	}
	for _, f := range []string{"config.toml", "metrics.csv", "summary.md", "recall_at_10.png",
		filepath.Join("runs", "variant=logq,seed=1", "model.bin")} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	again, err := exec.Command(bin, "-out", out).CombinedOutput()
	if err != nil || string(again) != string(first) {
		t.Errorf("run again: %v\n%s\nwant\n%s", err, again, first)
	}
}
