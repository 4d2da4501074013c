package workbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFreqSimEndToEnd(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCommand(t, "-config", "../configs/freq_sim.toml", "-out", dir,
		"-set", "freq_sim.steps_per_phase=300", "-set", "freq_sim.alphas=[0.05, 0.1]"); err != nil {
		t.Fatal(err)
	}
	b := readFile(t, filepath.Join(dir, "tv.csv"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "alpha,hashes,workers,seed,step,tv" {
		t.Errorf("tv.csv header %q", lines[0])
	}
	// 2 alphas × 3 hashes × 3 workers × 3 seeds × 600 steps.
	if got, want := len(lines)-1, 2*3*3*3*600; got != want {
		t.Errorf("tv.csv has %d rows, want %d", got, want)
	}
	if !strings.HasPrefix(lines[1], "0.05,1,1,1,1,") {
		t.Errorf("first row %q", lines[1])
	}
	summary := readFile(t, filepath.Join(dir, "summary.md"))
	// One worker loses no update.
	if !strings.Contains(string(summary), "| 0.05 | 4 | 1 |") || !strings.Contains(string(summary), "| 0.0% |\n| 0.05 | 4 | 2 |") {
		t.Errorf("summary.md has no rows per worker count, or one worker lost updates:\n%s", summary)
	}
	for _, f := range []string{"config.toml", "summary.md", "tv_by_alpha.png", "tv_by_hashes.png", "tv_by_workers.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
