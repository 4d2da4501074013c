package workbench

import (
	"bytes"
	"encoding/csv"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/samplingbias/workbench/report"
)

// mlStore is an MLflow file store as read back by the reader below, written from the layout of
// MLflow's FileStore (mlflow/store/tracking/file_store.py): experiments under the root, each a
// folder named by its id with a meta.yaml, its runs folders named by their id with a meta.yaml
// and folders params/, metrics/, tags/ (one file per name, "/" in a name a subfolder) and
// artifacts/; .trash/ holds deleted experiments.
type mlStore struct {
	experiments map[string]mlExperiment
}

type mlExperiment struct {
	meta map[string]string
	runs map[string]mlRun
}

type mlRun struct {
	meta         map[string]string
	params, tags map[string]string
	metrics      map[string][]mlValue
	artifacts    string // the folder of artifact_uri
}

type mlValue struct {
	timestamp int64
	value     float64
	step      int64
}

// readYAMLMap reads a meta.yaml of MLflow's: one "key: value" per line, values plain, 'quoted'
// (a doubled quote is one quote), [] or null.
func readYAMLMap(t *testing.T, path string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(readFile(t, path))), "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("%s: line %q is no key: value", path, line)
		}
		if strings.HasPrefix(v, "'") {
			if !strings.HasSuffix(v, "'") || len(v) < 2 {
				t.Fatalf("%s: %s: unterminated quote %s", path, k, v)
			}
			v = strings.ReplaceAll(v[1:len(v)-1], "''", "'")
		}
		if _, dup := out[k]; dup {
			t.Fatalf("%s: %s twice", path, k)
		}
		out[k] = v
	}
	return out
}

// readNamed reads the files under dir as name -> content, a name's "/" a subfolder.
func readNamed(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = string(readFile(t, path))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// readStore reads the MLflow store at root.
func readStore(t *testing.T, root string) mlStore {
	t.Helper()
	st := mlStore{experiments: map[string]mlExperiment{}}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == ".trash" {
			continue
		}
		dir := filepath.Join(root, e.Name())
		ex := mlExperiment{meta: readYAMLMap(t, filepath.Join(dir, "meta.yaml")), runs: map[string]mlRun{}}
		runs, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if !r.IsDir() || r.Name() == "tags" {
				continue
			}
			rd := filepath.Join(dir, r.Name())
			run := mlRun{meta: readYAMLMap(t, filepath.Join(rd, "meta.yaml")), params: readNamed(t, filepath.Join(rd, "params")),
				tags: readNamed(t, filepath.Join(rd, "tags")), metrics: map[string][]mlValue{}}
			for name, text := range readNamed(t, filepath.Join(rd, "metrics")) {
				for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
					f := strings.Split(line, " ")
					if len(f) != 2 && len(f) != 3 {
						t.Fatalf("run %s, metric %s: line %q has %d fields, want 2 or 3", r.Name(), name, line, len(f))
					}
					var v mlValue
					var errs [3]error
					v.timestamp, errs[0] = strconv.ParseInt(f[0], 10, 64)
					v.value, errs[1] = strconv.ParseFloat(f[1], 64)
					if len(f) == 3 {
						v.step, errs[2] = strconv.ParseInt(f[2], 10, 64)
					}
					for _, err := range errs {
						if err != nil {
							t.Fatalf("run %s, metric %s: line %q: %v", r.Name(), name, line, err)
						}
					}
					run.metrics[name] = append(run.metrics[name], v)
				}
			}
			u, err := url.Parse(run.meta["artifact_uri"])
			if err != nil || u.Scheme != "file" {
				t.Fatalf("run %s: artifact_uri %q is no file URI (%v)", r.Name(), run.meta["artifact_uri"], err)
			}
			run.artifacts = u.Path
			ex.runs[r.Name()] = run
		}
		st.experiments[e.Name()] = ex
	}
	return st
}

// TestMLflowTree reads the MLflow tree of a report (report.mlflow = true) back with a reader
// written from MLflow's file-store layout and checks it against the folder's own files: the
// experiment named after the folder, one finished run per workbench run with its seed and axis
// values as params and every row of its metrics.csv as a metric of the documented name (at the
// value metrics.csv has), its curve.csv as the train_loss metric by step and its config.toml as
// an artifact, under a parent run holding summary.md and the figures; the report writes the same
// ids again, and report.mlflow = false removes the tree, while a tree the report did not write
// is never replaced.
func TestMLflowTree(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "smoke-mlflow")
	args := []string{"-config", smokeConfig, "-out", dir, "-set", "report.mlflow=true", "-set", "eval.logit_adjust=[0, 1]"}
	if _, err := runCommand(t, args...); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(dir)
	root := filepath.Join(abs, report.MLflowDir)
	st := readStore(t, root)
	if fi, err := os.Stat(filepath.Join(root, ".trash")); err != nil || !fi.IsDir() {
		t.Errorf("no .trash folder: %v", err)
	}
	if d, ok := st.experiments["0"]; !ok || d.meta["name"] != "Default" {
		t.Errorf("no Default experiment 0: %v", st.experiments)
	}
	var ex mlExperiment
	var expID string
	for id, e := range st.experiments {
		if id == "0" {
			continue
		}
		if expID != "" {
			t.Fatalf("two experiments %s and %s", expID, id)
		}
		ex, expID = e, id
	}
	if ex.meta["experiment_id"] != expID || ex.meta["name"] != "smoke-mlflow" || ex.meta["lifecycle_stage"] != "active" ||
		ex.meta["artifact_location"] != "file://"+filepath.ToSlash(filepath.Join(root, expID)) {
		t.Errorf("experiment meta.yaml %v", ex.meta)
	}

	// The runs, by workbench run id; the parent run.
	byRun := map[string]mlRun{}
	var parentID string
	for id, r := range ex.runs {
		m := r.meta
		if m["run_id"] != id || m["run_uuid"] != id || m["experiment_id"] != expID || m["status"] != "3" ||
			m["lifecycle_stage"] != "active" || m["run_name"] != r.tags["mlflow.runName"] {
			t.Errorf("run %s: meta.yaml %v, tags %v", id, m, r.tags)
		}
		start, err1 := strconv.ParseInt(m["start_time"], 10, 64)
		end, err2 := strconv.ParseInt(m["end_time"], 10, 64)
		if err1 != nil || err2 != nil || start > end || start <= 0 {
			t.Errorf("run %s: start_time %s, end_time %s", id, m["start_time"], m["end_time"])
		}
		if r.artifacts != filepath.ToSlash(filepath.Join(root, expID, id, "artifacts")) {
			t.Errorf("run %s: artifact_uri %s", id, m["artifact_uri"])
		}
		if r.tags["mlflow.parentRunId"] == "" {
			if parentID != "" {
				t.Errorf("two parent runs %s and %s", parentID, id)
			}
			parentID = id
			continue
		}
		byRun[r.tags["workbench.run_id"]] = r
	}
	for id, r := range byRun {
		if r.tags["mlflow.parentRunId"] != parentID {
			t.Errorf("run %s: parent %s, want %s", id, r.tags["mlflow.parentRunId"], parentID)
		}
	}
	parentFiles := readNamed(t, ex.runs[parentID].artifacts)
	for _, name := range []string{"summary.md", "metrics.csv", "recall_at_10.png", "tradeoff_at_10.png"} {
		if parentFiles[name] != string(readFile(t, filepath.Join(dir, name))) {
			t.Errorf("the parent run's artifact %s is not the folder's", name)
		}
	}

	// Every row of metrics.csv of kind run is its run's metric, named as documented.
	rows, err := csv.NewReader(bytes.NewReader(readFile(t, filepath.Join(dir, "metrics.csv")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	seen := map[string]int{}
	for _, row := range rows[1:] {
		if row[col["kind"]] != "run" {
			continue
		}
		id := row[col["run"]]
		r, ok := byRun[id]
		if !ok {
			t.Fatalf("run %s of metrics.csv has no MLflow run", id)
		}
		name := row[col["metric"]]
		if k := row[col["k"]]; k != "0" {
			name += "_at_" + k
		}
		name += "." + row[col["slice"]]
		if tau := row[col["la_tau"]]; tau != "0" {
			name += ".la_tau_" + tau
		}
		// metrics.csv writes 8 significant digits, MLflow's metric the value in full.
		vs := r.metrics[name]
		if want := row[col["value"]]; len(vs) != 1 || vs[0].step != 0 || strconv.FormatFloat(vs[0].value, 'g', 8, 64) != want {
			t.Errorf("run %s, metric %s: %v, want one value %s at step 0", id, name, vs, want)
		}
		seen[id]++
		if r.params["loss.variant"] != row[col["loss.variant"]] || r.params["seed"] != row[col["seed"]] {
			t.Errorf("run %s: params loss.variant %q, seed %q; metrics.csv has %q, %q", id, r.params["loss.variant"], r.params["seed"],
				row[col["loss.variant"]], row[col["seed"]])
		}
	}
	if len(byRun) != 4 {
		t.Errorf("%d MLflow runs, want the 4 runs of the grid", len(byRun))
	}
	for id, r := range byRun {
		if n := len(r.metrics) - 1; n != seen[id] { // all but train_loss
			t.Errorf("run %s: %d metrics, metrics.csv has %d rows", id, n, seen[id])
		}
		if r.params["train.batch_size"] != "128" || r.params["model.hidden"] != "[32, 16]" {
			t.Errorf("run %s: settings train.batch_size %q, model.hidden %q; the config has 128, [32, 16]", id, r.params["train.batch_size"], r.params["model.hidden"])
		}
		runDir := filepath.Join(dir, "runs", id)
		if got := readNamed(t, r.artifacts)["config.toml"]; got != string(readFile(t, filepath.Join(runDir, "config.toml"))) {
			t.Errorf("run %s: its config.toml artifact is not runs/%s/config.toml", id, id)
		}
		curve, err := csv.NewReader(bytes.NewReader(readFile(t, filepath.Join(runDir, "curve.csv")))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		loss := r.metrics["train_loss"]
		if len(loss) != len(curve)-1 || len(loss) == 0 {
			t.Fatalf("run %s: train_loss has %d values, curve.csv %d rows", id, len(loss), len(curve)-1)
		}
		for i, row := range curve[1:] {
			step, _ := strconv.ParseInt(row[0], 10, 64)
			if v := strconv.FormatFloat(loss[i].value, 'g', 8, 64); loss[i].step != step || v != row[2] {
				t.Errorf("run %s: train_loss value %d is %s at step %d; curve.csv: %s at step %d", id, i, v, loss[i].step, row[2], step)
			}
		}
	}

	// The report again: the same ids, no temporary tree left.
	if _, err := runCommand(t, append(args, "-report")...); err != nil {
		t.Fatal(err)
	}
	again := readStore(t, root)
	for id := range ex.runs {
		if _, ok := again.experiments[expID].runs[id]; !ok {
			t.Errorf("run %s is gone from the rewritten tree", id)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(abs, ".mlruns*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	// Switched off: the report's tree is removed.
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-set", "eval.logit_adjust=[0, 1]", "-report"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root); err == nil {
		t.Errorf("%s is still there with report.mlflow off", root)
	}
	// A tree the report did not write is never replaced.
	if err := os.MkdirAll(filepath.Join(root, "0"), 0o777); err != nil {
		t.Fatal(err)
	}
	_, err = runCommand(t, append(args, "-report")...)
	if err == nil || !strings.Contains(err.Error(), "was not written by a report of the workbench") {
		t.Errorf("a foreign mlruns: error %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "0")); err != nil {
		t.Errorf("the foreign tree was touched: %v", err)
	}
}
