package workbench

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// schema1Folder copies testdata/schema1/folder, the results of testdata/schema1/grid.toml as
// the workbench wrote them at schema version 1 (training.settings without a version, the
// sampler named by its keys before the [sampler] section) with the plain run's folder under the
// id of a version before it ("variant=plain,logq_probability=,seed=1", empty values kept), into
// a temporary folder, and returns its path.
func schema1Folder(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "results")
	if err := os.CopyFS(out, os.DirFS(filepath.Join("testdata", "schema1", "folder"))); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSchema1FolderMigratedOnceThenReused: a results folder written by the previous schema
// version is migrated by the first command that uses it (its runs' hashes recomputed from their
// config.toml, the run under an earlier id renamed to its id, training.settings rewritten with
// its version), saying so; nothing is trained again (the saved models are evaluated again where
// the evaluation settings grew since), the models are the same files, and a second
// command finds a folder of the current version.
func TestSchema1FolderMigratedOnceThenReused(t *testing.T) {
	out := schema1Folder(t)
	legacy := filepath.Join(out, "runs", "variant=plain,logq_probability=,seed=1")
	model := readFile(t, filepath.Join(legacy, "model.bin"))
	args := []string{"-config", filepath.Join("testdata", "schema1", "grid.toml"), "-out", out}
	first, err := runCommand(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	// The fixture's runs were evaluated before the top lists' exposure metrics were on by
	// default: their saved models are evaluated again, never trained.
	for _, want := range []string{
		"migrated " + out + " from schema version 1 to 3: 2 runs re-identified (1 renamed to their ids)\n",
		"variant=plain,seed=1: training unchanged, evaluating its saved model again",
		"variant=logq,logq_probability=inclusion,seed=1: training unchanged, evaluating its saved model again",
	} {
		if !strings.Contains(first, want) {
			t.Errorf("first command's output lacks %q:\n%s", want, first)
		}
	}
	if exists(legacy) {
		t.Error("the run under its earlier id was not renamed")
	}
	renamed := filepath.Join(out, "runs", "variant=plain,seed=1")
	if got := readFile(t, filepath.Join(renamed, "model.bin")); !bytes.Equal(got, model) {
		t.Error("the migrated run's model.bin changed")
	}
	settings := string(readFile(t, filepath.Join(out, settingsFile)))
	if !strings.HasPrefix(settings, "# schema: 3\n") || strings.Contains(settings, "loss.sampler") ||
		!strings.Contains(settings, `sampler.kind = "in_batch"`) {
		t.Errorf("training.settings after the migration:\n%s", settings)
	}
	var rec runRecord
	if err := readJSON(filepath.Join(renamed, "metrics.json"), &rec); err != nil || rec.ID != "variant=plain,seed=1" {
		t.Errorf("the renamed run's record: id %q, %v", rec.ID, err)
	}
	second, err := runCommand(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(second, "migrated") || !strings.Contains(second, "2 runs: 2 already finished, 0 to run") {
		t.Errorf("second command:\n%s", second)
	}
	if !bytes.Equal(readFile(t, filepath.Join(out, settingsFile)), []byte(settings)) {
		t.Error("the second command rewrote training.settings")
	}
}

// TestSchema1FolderOfAnotherConfig: a folder of the previous version is compared with a config
// in that version's terms: another config's is refused, naming the setting, and left as it was.
func TestSchema1FolderOfAnotherConfig(t *testing.T) {
	out := schema1Folder(t)
	before := readFile(t, filepath.Join(out, settingsFile))
	_, err := runCommand(t, "-config", filepath.Join("testdata", "schema1", "grid.toml"), "-out", out, "-set", "train.epochs=2")
	wantError(t, err, out+" holds the results of a different config", "schema version 1", "train.epochs = 2 here, 1 in the folder")
	if !bytes.Equal(readFile(t, filepath.Join(out, settingsFile)), before) {
		t.Error("a refused config migrated the folder")
	}
}

// TestSchema2FolderHowItRuns: a folder of schema version 2, whose identities held
// train.log_seconds, eval.log_seconds and eval.workers, is migrated by a config that changes all
// three: nothing is trained or evaluated again, training.settings no longer holds them, and a
// later command with other values again finds every run finished.
func TestSchema2FolderHowItRuns(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results")
	if err := os.CopyFS(out, os.DirFS(filepath.Join("testdata", "schema2", "folder"))); err != nil {
		t.Fatal(err)
	}
	grid := filepath.Join("testdata", "schema2", "grid.toml")
	if !strings.Contains(string(readFile(t, filepath.Join(out, settingsFile))), "train.log_seconds = 10") {
		t.Fatal("the fixture's training.settings does not hold train.log_seconds")
	}
	first, err := runCommand(t, "-config", grid, "-out", out, "-set", "train.log_seconds=2", "-set", "eval.log_seconds=3", "-set", "eval.workers=1")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"migrated " + out + " from schema version 2 to 3: 2 runs re-identified (0 renamed to their ids)\n",
		"2 runs: 2 already finished, 0 to run",
	} {
		if !strings.Contains(first, want) {
			t.Errorf("first command's output lacks %q:\n%s", want, first)
		}
	}
	if strings.Contains(first, "evaluating its saved model again") {
		t.Errorf("a run was evaluated again:\n%s", first)
	}
	if settings := string(readFile(t, filepath.Join(out, settingsFile))); !strings.HasPrefix(settings, "# schema: 3\n") || strings.Contains(settings, "log_seconds") {
		t.Errorf("training.settings after the migration:\n%s", settings)
	}
	second, err := runCommand(t, "-config", grid, "-out", out, "-set", "train.log_seconds=7", "-set", "eval.workers=3")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(second, "migrated") || !strings.Contains(second, "2 runs: 2 already finished, 0 to run") {
		t.Errorf("second command:\n%s", second)
	}
}

// TestSchema2FolderMovedFromItsData: a folder of schema version 2 moved away from its data (its
// runs' config.toml name the data relative to where the folder was, where there is nothing
// now) is migrated with the data of the config that uses it, whose content the runs' hashes
// identify: nothing is trained again. Other data in their place (one line changed) leave the
// run as it was.
func TestSchema2FolderMovedFromItsData(t *testing.T) {
	fixture := filepath.Join("testdata", "schema2", "moved")
	copyFolder := func(t *testing.T) string {
		out := filepath.Join(t.TempDir(), "moved", "results")
		if err := os.CopyFS(out, os.DirFS(filepath.Join(fixture, "folder"))); err != nil {
			t.Fatal(err)
		}
		return out
	}
	t.Run("same-data", func(t *testing.T) {
		out := copyFolder(t)
		got, err := runCommand(t, "-config", filepath.Join(fixture, "grid.toml"), "-out", out)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got, "migrated "+out+" from schema version 2 to 3: 1 runs re-identified (0 renamed to their ids)\n") ||
			!strings.Contains(got, "1 run: 1 already finished, 0 to run") {
			t.Errorf("output:\n%s", got)
		}
	})
	t.Run("other-data", func(t *testing.T) {
		out := copyFolder(t)
		other := filepath.Join(t.TempDir(), "ratings.csv")
		write(t, other, strings.Replace(string(readFile(t, filepath.Join(fixture, "ratings.csv"))), "\n0,", "\n1,", 1))
		have := parseFolderSettings(readFile(t, filepath.Join(out, settingsFile)))
		name, why, err := migrateRun(filepath.Join(out, "runs"), "seed=1", have, other)
		if err != nil || name != "seed=1" || why != "its metrics.json is of other training settings than its config.toml" {
			t.Errorf("migrateRun with other data: %q, %q, %v", name, why, err)
		}
	})
}

// TestMigrateCheckpoint: a checkpoint of version 1 (checkpoint.bin beside checkpoint.identity)
// is renamed to carry the run's training hash when the identity is the run's; one of other
// settings is left for training to refuse.
func TestMigrateCheckpoint(t *testing.T) {
	for _, tc := range []struct {
		identity string
		want     []string
	}{
		{"old\n", []string{"checkpoint-new.bin"}},
		{"other\n", []string{"checkpoint.bin", "checkpoint.identity"}},
	} {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "checkpoint.bin"), "state")
		write(t, filepath.Join(dir, "checkpoint.identity"), tc.identity)
		if err := migrateCheckpoint(dir, "old", "new"); err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(dir)
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("identity %q: the folder holds %v, want %v", tc.identity, got, tc.want)
		}
	}
}

// TestShowcasesLoad: the config.toml of every shipped showcase under results/showcase loads as a
// config of the current version and plans its grid (the showcases are reports of the current
// version, kept without their runs).
func TestShowcasesLoad(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "results", "showcase", "*", "config.toml"))
	if err != nil || len(files) < 4 {
		t.Fatalf("showcases: %v, %v", files, err)
	}
	for _, f := range files {
		g, err := Load(f, "out="+strconv.Quote(t.TempDir()))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if g.Config().Experiment != ExperimentRetrieval {
			continue
		}
		if runs, err := g.Runs(); err != nil || len(runs) == 0 {
			t.Errorf("%s: %d runs, %v", f, len(runs), err)
		}
	}
}
