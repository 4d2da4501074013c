package report

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/samplingbias/workbench/metrics"
)

// MLflowDir is the folder of the MLflow tracking tree a report writes beside metrics.csv with
// report.mlflow = true: `mlflow ui --backend-store-uri <folder>/mlruns` (or `mlflow ui` run in
// the folder) shows the grid as an experiment.
const MLflowDir = "mlruns"

// The MLflow tree follows the layout of MLflow's FileStore (mlflow/mlflow,
// mlflow/store/tracking/file_store.py, and the entities it persists: mlflow/entities/
// experiment.py, run_info.py, run_status.py; the tag names of mlflow/utils/mlflow_tags.py):
//
//	mlruns/.trash/                              the deleted experiments (none)
//	mlruns/<experiment id>/meta.yaml            experiment_id, name, artifact_location,
//	                                            lifecycle_stage, creation_time, last_update_time
//	mlruns/<experiment id>/<run id>/meta.yaml   run_id, run_uuid, run_name, experiment_id,
//	                                            user_id, status (3: FINISHED), start_time,
//	                                            end_time (ms since the epoch), artifact_uri,
//	                                            lifecycle_stage, source_type (4: LOCAL), ...
//	                    <run id>/params/<name>  the value, no newline
//	                    <run id>/metrics/<name> one "<timestamp ms> <value> <step>" line per value
//	                    <run id>/tags/<name>    the value, no newline
//	                    <run id>/artifacts/     files
//
// with the experiment "0" ("Default") that MLflow creates in every store. Names of params,
// metrics and tags may hold letters, digits, "_", "-", ".", " " and "/" (mlflow/utils/
// validation.py); a "/" makes a subfolder. MLflow itself writes artifact locations as absolute
// file URIs, and so does the report: a folder moved elsewhere shows its artifacts once a report
// (-report) has written the tree again there.
const (
	mlflowDefaultExperiment = "0"
	mlflowStatusFinished    = 3 // RunStatus.FINISHED
	mlflowSourceLocal       = 4 // SourceType.LOCAL
)

// mlflowName is what MLflow accepts as the name of a param, metric or tag.
var mlflowName = regexp.MustCompile(`^[A-Za-z0-9_\-. /]+$`)

// mlflowRun is one run of the MLflow tree: its meta.yaml's fields, params, metrics, tags and
// the files copied to its artifacts.
type mlflowRun struct {
	id, name     string
	start, end   int64 // ms since the epoch
	params, tags map[string]string
	metrics      map[string][]mlflowPoint
	artifacts    []string // paths of the files to copy
}

// mlflowPoint is one value of a metric: its timestamp, value and step.
type mlflowPoint struct {
	timestamp int64
	value     float64
	step      int64
}

// mlflowMetric names result r as an MLflow metric: the metric and its K, the slice, then the
// test set unless natural and the strength of post-hoc logit adjustment unless 0, joined by
// dots: "recall_at_10.tail", "mrr.all", "ndcg_at_10.bin3.debiased", "recall_at_10.head.la_tau_-0.5".
func mlflowMetric(r metrics.Result) string {
	name := string(r.Metric)
	if r.K > 0 {
		name += "_at_" + strconv.Itoa(r.K)
	}
	name += "." + r.Slice.String()
	if r.Test != metrics.TestNatural {
		name += "." + r.Test.String()
	}
	if r.Tau != 0 {
		name += ".la_tau_" + strconv.FormatFloat(r.Tau, 'g', -1, 64)
	}
	return name
}

// mlflowTrainLoss is the metric of a run's training-loss curve, one value per logged step.
const mlflowTrainLoss = "train_loss"

// mlflowID is a run id of the experiment named experiment: 32 hex digits, as MLflow's, derived
// from the names so that the report writes every run under the same id each time.
func mlflowID(experiment, name string) string {
	h := sha256.Sum256([]byte(experiment + "\x00" + name))
	return hex.EncodeToString(h[:16])
}

// mlflowExperimentID is the experiment id of the experiment named name: a positive decimal
// number, as MLflow's, derived from the name.
func mlflowExperimentID(name string) string {
	h := sha256.Sum256([]byte(name))
	return strconv.FormatUint(binary.BigEndian.Uint64(h[:8])>>2+1, 10)
}

// mlflowRuns are the MLflow runs of a report of in, written in dir: one per workbench run, with
// its settings and seed as params, its results and training-loss curve as metrics, its id,
// cell and seed as tags and its files as artifacts, under a parent run, the report, whose
// artifacts are the report's files (written, names in dir).
func mlflowRuns(experiment string, in Input, dir string, written []string) ([]mlflowRun, error) {
	parent := mlflowRun{id: mlflowID(experiment, ""), name: experiment + " (report)", params: map[string]string{},
		metrics: map[string][]mlflowPoint{}, start: math.MaxInt64}
	parent.tags = map[string]string{
		"mlflow.runName":      parent.name,
		"mlflow.source.type":  "LOCAL",
		"mlflow.source.name":  "workbench",
		"mlflow.note.content": fmt.Sprintf("The report of %d runs (summary.md, metrics.csv and the figures are its artifacts); each run is a child of this one.", len(in.Runs)),
	}
	for i, k := range in.Axes {
		parent.params[fmt.Sprintf("axis%d", i+1)] = k
	}
	for _, name := range written {
		parent.artifacts = append(parent.artifacts, filepath.Join(dir, name))
	}
	runs := []mlflowRun{}
	for _, r := range in.Runs {
		end := r.Finished.UnixMilli()
		mr := mlflowRun{id: mlflowID(experiment, r.ID), name: r.ID, end: end, start: end - int64(math.Round(r.Seconds*1000)),
			params: map[string]string{"seed": strconv.FormatInt(r.Seed, 10)}, metrics: map[string][]mlflowPoint{},
			artifacts: r.Files}
		mr.start = min(mr.start, end)
		for k, v := range r.Params {
			mr.params[k] = v
		}
		for k, v := range r.Axes {
			mr.params[k] = v
		}
		mr.tags = map[string]string{
			"mlflow.runName":        r.ID,
			"mlflow.parentRunId":    parent.id,
			"mlflow.source.type":    "LOCAL",
			"mlflow.source.name":    "workbench",
			"workbench.run_id":      r.ID,
			"workbench.cell":        r.Group,
			"workbench.seed":        strconv.FormatInt(r.Seed, 10),
			"workbench.loss_family": r.LossFamily,
		}
		for _, res := range r.Results {
			name := mlflowMetric(res)
			mr.metrics[name] = append(mr.metrics[name], mlflowPoint{end, res.Value, 0})
		}
		for _, p := range r.Curve {
			mr.metrics[mlflowTrainLoss] = append(mr.metrics[mlflowTrainLoss], mlflowPoint{end, p.Loss, int64(p.Step)})
		}
		for _, m := range []map[string]string{mr.params, mr.tags} {
			for k := range m {
				if !mlflowName.MatchString(k) {
					return nil, fmt.Errorf("report.mlflow: run %s: %q is not a name MLflow accepts (letters, digits, _ - . / and spaces)", r.ID, k)
				}
			}
		}
		for k := range mr.metrics {
			if !mlflowName.MatchString(k) {
				return nil, fmt.Errorf("report.mlflow: run %s: metric %q is not a name MLflow accepts", r.ID, k)
			}
		}
		parent.start, parent.end = min(parent.start, mr.start), max(parent.end, mr.end)
		runs = append(runs, mr)
	}
	return append([]mlflowRun{parent}, runs...), nil
}

// writeMLflow writes the MLflow tree of the report of in in dir/MLflowDir, the experiment named
// after dir, whose parent run holds the report's files (names in dir) as artifacts. It replaces
// the tree an earlier report wrote: the new one is built beside it and renamed into place.
func writeMLflow(dir string, in Input, files []string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	final := filepath.Join(abs, MLflowDir)
	experiment := filepath.Base(abs)
	runs, err := mlflowRuns(experiment, in, dir, files)
	if err != nil {
		return err
	}
	tmp, err := mkdirTemp(abs, "."+MLflowDir+".tmp")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // nothing is left of it once renamed
	who := "unknown"
	if u, err := user.Current(); err == nil && u.Username != "" {
		who = u.Username
	}
	expID := mlflowExperimentID(experiment)
	w := mlflowWriter{root: tmp, uri: final}
	w.mkdir(".trash")
	w.experiment(mlflowDefaultExperiment, "Default", runs[0].start, runs[0].end)
	w.experiment(expID, experiment, runs[0].start, runs[0].end)
	for _, r := range runs {
		w.run(expID, r, who)
	}
	if w.err != nil {
		return fmt.Errorf("report.mlflow: %w", w.err)
	}
	old := ""
	if _, err := os.Lstat(final); err == nil {
		old = tmp + ".old"
		if err := os.Rename(final, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return err
		}
	}
	// The trees of processes killed while writing them.
	leftovers, _ := filepath.Glob(filepath.Join(abs, "."+MLflowDir+".tmp*"))
	for _, l := range leftovers {
		os.RemoveAll(l)
	}
	return nil
}

// mkdirTemp creates a new folder prefix<random> in dir, with the mode the umask leaves (unlike
// os.MkdirTemp's 0700), as the results folder's other folders have.
func mkdirTemp(dir, prefix string) (string, error) {
	for range 10000 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		err := os.Mkdir(name, 0o777)
		if !errors.Is(err, fs.ErrExist) {
			return name, err
		}
	}
	return "", &fs.PathError{Op: "mkdirtemp", Path: filepath.Join(dir, prefix+"*"), Err: fs.ErrExist}
}

// mlflowWriter writes the files of an MLflow tree under root, which will be renamed to the
// path of the file URI uri; the first error stops it.
type mlflowWriter struct {
	root, uri string
	err       error
}

// fileURI is the file URI of the tree's path rel, as MLflow writes artifact locations.
func (w *mlflowWriter) fileURI(rel string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(w.uri, rel))}).String()
}

// mkdir creates the folder rel of the tree.
func (w *mlflowWriter) mkdir(rel string) {
	if w.err == nil {
		w.err = os.MkdirAll(filepath.Join(w.root, filepath.FromSlash(rel)), 0o777)
	}
}

// write writes the file rel of the tree.
func (w *mlflowWriter) write(rel, content string) {
	w.mkdir(filepath.Dir(rel))
	if w.err == nil {
		w.err = os.WriteFile(filepath.Join(w.root, filepath.FromSlash(rel)), []byte(content), 0o666)
	}
}

// experiment writes the meta.yaml of the experiment id named name.
func (w *mlflowWriter) experiment(id, name string, created, updated int64) {
	w.write(id+"/meta.yaml", yamlMap([][2]string{
		{"artifact_location", yamlString(w.fileURI(id))},
		{"creation_time", strconv.FormatInt(created, 10)},
		{"experiment_id", yamlString(id)},
		{"last_update_time", strconv.FormatInt(updated, 10)},
		{"lifecycle_stage", "active"},
		{"name", yamlString(name)},
	}))
}

// run writes run r of the experiment expID, started by user who.
func (w *mlflowWriter) run(expID string, r mlflowRun, who string) {
	base := expID + "/" + r.id
	w.write(base+"/meta.yaml", yamlMap([][2]string{
		{"artifact_uri", yamlString(w.fileURI(base + "/artifacts"))},
		{"deleted_time", "null"},
		{"end_time", strconv.FormatInt(r.end, 10)},
		{"entry_point_name", "''"},
		{"experiment_id", yamlString(expID)},
		{"lifecycle_stage", "active"},
		{"run_id", yamlString(r.id)},
		{"run_name", yamlString(r.name)},
		{"run_uuid", yamlString(r.id)},
		{"source_name", "''"},
		{"source_type", strconv.Itoa(mlflowSourceLocal)},
		{"source_version", "''"},
		{"start_time", strconv.FormatInt(r.start, 10)},
		{"status", strconv.Itoa(mlflowStatusFinished)},
		{"tags", "[]"},
		{"user_id", yamlString(who)},
	}))
	for _, sub := range []string{"params", "metrics", "tags", "artifacts"} {
		w.mkdir(base + "/" + sub)
	}
	for _, k := range sortedKeys(r.params) {
		w.write(base+"/params/"+k, r.params[k])
	}
	for _, k := range sortedKeys(r.tags) {
		w.write(base+"/tags/"+k, r.tags[k])
	}
	for _, k := range sortedKeys(r.metrics) {
		var b strings.Builder
		for _, p := range r.metrics[k] {
			fmt.Fprintf(&b, "%d %s %d\n", p.timestamp, strconv.FormatFloat(p.value, 'g', -1, 64), p.step)
		}
		w.write(base+"/metrics/"+k, b.String())
	}
	for _, path := range r.artifacts {
		w.copy(path, base+"/artifacts/"+filepath.Base(path))
	}
}

// copy copies the file at path to the tree's rel; a file that does not exist is left out.
func (w *mlflowWriter) copy(path, rel string) {
	if w.err != nil {
		return
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		w.err = err
		return
	}
	w.write(rel, string(b))
}

// yamlMap writes the entries of a YAML mapping, one "key: value" line each, in order.
func yamlMap(entries [][2]string) string {
	var b strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&b, "%s: %s\n", e[0], e[1])
	}
	return b.String()
}

// yamlString quotes s as a YAML single-quoted scalar (a quote doubled), which any YAML reader
// takes as the string s itself, whatever it holds.
func yamlString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
