package workbench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// folderFiles reads the folder-level files of a results folder.
func folderFiles(t *testing.T, out string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, f := range []string{"config.toml", "metrics.csv", "summary.md", "recall_at_10.png"} {
		files[f] = readFile(t, filepath.Join(out, f))
	}
	return files
}

// TestRunConfigReproducesItsRun: a run's config.toml, loaded as -config on its results folder,
// is a grid of that run alone, under its id: the run is found finished (nothing trained, no copy
// under another id), and the folder's report of the whole grid is kept, not replaced by one of
// one run.
func TestRunConfigReproducesItsRun(t *testing.T) {
	out := t.TempDir()
	if _, err := runCommand(t, "-config", smokeConfig, "-out", out, "-set", "seeds=[1]"); err != nil {
		t.Fatal(err)
	}
	before := folderFiles(t, out)
	stdout, err := runCommand(t, "-config", filepath.Join(out, "runs", "variant=plain,seed=1", "config.toml"), "-out", out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 run: 1 already finished, 0 to run",
		out + "'s config.toml, metrics.csv, summary.md and figures report a grid of 2 runs, 1 of which this grid of 1 run lacks: kept as they are"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	for f, b := range folderFiles(t, out) {
		if !bytes.Equal(b, before[f]) {
			t.Errorf("%s changed", f)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(out, "runs"))
	if len(entries) != 2 {
		t.Errorf("runs/ holds %d folders, want the grid's 2", len(entries))
	}
}

// TestNarrowedGrid: -set narrowing an axis that plots.labels names is no error (the labels of the
// values left out are for the file's grid); the folder's report of the wider grid is kept, and
// -report writes the narrowed grid's when asked.
func TestNarrowedGrid(t *testing.T) {
	out := t.TempDir()
	labels := `plots.labels={logq = "logQ", plain = "in-batch"}`
	if _, err := runCommand(t, "-config", smokeConfig, "-out", out, "-set", "seeds=[1]", "-set", labels); err != nil {
		t.Fatal(err)
	}
	before := folderFiles(t, out)
	narrow := []string{"-config", smokeConfig, "-out", out, "-set", "seeds=[1]", "-set", labels, "-set", "loss.variant=plain"}
	stdout, err := runCommand(t, narrow...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "kept as they are") {
		t.Errorf("output:\n%s", stdout)
	}
	if !bytes.Equal(readFile(t, filepath.Join(out, "metrics.csv")), before["metrics.csv"]) {
		t.Error("the narrowed grid replaced the folder's metrics.csv")
	}
	if _, err := runCommand(t, append(narrow, "-report")...); err != nil {
		t.Fatal(err)
	}
	if csv := string(readFile(t, filepath.Join(out, "metrics.csv"))); strings.Contains(csv, "variant=logq") {
		t.Error("-report of the narrowed grid kept the other cell")
	}
}

// TestDeletedSettingsTakenBack: a results folder whose training.settings was deleted is taken
// back by the config whose finished runs it holds, saying so; another config is refused, with
// the rule.
func TestDeletedSettingsTakenBack(t *testing.T) {
	out := t.TempDir()
	args := []string{"-config", smokeConfig, "-out", out, "-set", "seeds=[1]"}
	if _, err := runCommand(t, args...); err != nil {
		t.Fatal(err)
	}
	settings := readFile(t, filepath.Join(out, settingsFile))
	if err := os.Remove(filepath.Join(out, settingsFile)); err != nil {
		t.Fatal(err)
	}
	_, err := runCommand(t, append(args, "-set", "train.epochs=3")...)
	wantError(t, err, "is not a results folder of the workbench", "is taken back by a config of which it holds finished runs")
	stdout, err := runCommand(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "had no training.settings: written again from the 2 finished runs of this config it holds") ||
		!strings.Contains(stdout, "2 runs: 2 already finished, 0 to run") {
		t.Errorf("output:\n%s", stdout)
	}
	if !bytes.Equal(readFile(t, filepath.Join(out, settingsFile)), settings) {
		t.Error("the settings written again differ from those deleted")
	}
}

// TestSweptValueSelected: in a folder whose runs sweep a key that its training settings fix (a
// -set added the axis), a -set of one of the swept values is refused as another config's, saying
// how to select those runs; the list form (an axis of one value) finds them finished. A grid that
// renames the folder's runs (a new axis) replaces the report, naming the runs it leaves out.
func TestSweptValueSelected(t *testing.T) {
	out := t.TempDir()
	base := []string{"-config", smokeConfig, "-out", out, "-set", "seeds=[1]", "-set", "loss.variant=plain"}
	if _, err := runCommand(t, base...); err != nil {
		t.Fatal(err)
	}
	stdout, err := runCommand(t, append(base, "-set", "loss.temperature=[0.05, 0.1]")...)
	if err != nil {
		t.Fatal(err)
	}
	if want := out + "'s report is now of this grid of 2 runs; 1 run of its previous report that this grid lacks stay in runs/ (variant=plain,seed=1)"; !strings.Contains(stdout, want) {
		t.Errorf("output lacks %q:\n%s", want, stdout)
	}
	_, err = runCommand(t, append(base, "-set", "loss.temperature=0.05")...)
	wantError(t, err, "loss.temperature = 0.05 here, 0.1 in the folder",
		"(the folder's runs sweep loss.temperature as an ablation axis: -set 'loss.temperature=[value]' (a list: an axis of one value) selects the runs of a value)")
	stdout, err = runCommand(t, append(base, "-set", "loss.temperature=[0.05]")...)
	if err != nil || !strings.Contains(stdout, "1 run: 1 already finished, 0 to run") {
		t.Errorf("the list form: %v\n%s", err, stdout)
	}
}
