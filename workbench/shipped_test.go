package workbench

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestShippedConfigsPass: every shipped retrieval config loads, plans its grid and passes the
// checks made before training (its report's baseline, contrasts, labels and figures), which
// -list runs: a config whose report names a cell by an id its runs no longer have fails here
// rather than after a download and a load. The frequency simulation has no list of runs; it
// loads.
func TestShippedConfigsPass(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "configs", "*.toml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no shipped configs: %v", err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			g, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if g.Config().Experiment != ExperimentRetrieval {
				return
			}
			out, err := runCommand(t, "-config", path, "-out", t.TempDir(), "-list")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, " run") {
				t.Errorf("-list printed no count of runs:\n%s", out)
			}
		})
	}
}
