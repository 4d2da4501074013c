package workbench

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/internal/exampletest"
	"github.com/samplingbias/workbench/models"
)

// TestSelectionConfigErrors: every bad setting of model selection is one error naming its key
// (and the file's line where the file wrote it).
func TestSelectionConfigErrors(t *testing.T) {
	const valid = "[data]\nsource = \"synthetic\"\n[data.split]\nkind = \"leave_last_out\"\nvalidation = true\n"
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"validation split on a source without one", "[data.split]\nvalidation = true\n",
			[]string{"exp.toml:2:", "data.split.validation: only for kinds leave_last_out and temporal"}},
		{"validation split on a source without timestamps", "[data.split]\nkind = \"leave_last_out\"\nvalidation = true\n",
			[]string{"data.split.kind: leave_last_out needs timestamps, which source wikilinks does not have"}},
		{"early stopping without a validation split", "[data]\nsource = \"synthetic\"\n[train]\nvalidate_every = 1\n",
			[]string{"exp.toml:4:", "train.validate_every: selects on the validation set, which the data has not: set data.split.validation = true"}},
		{"select_la_tau without a validation split", "[eval]\nlogit_adjust = [0, 1]\nselect_la_tau = true\n",
			[]string{"exp.toml:3:", "eval.select_la_tau: selects on the validation set, which the data has not"}},
		{"select_la_tau of one strength", valid + "[eval]\nselect_la_tau = true\n",
			[]string{"eval.select_la_tau: selects one of the strengths of logit_adjust on the validation set, which lists 1"}},
		{"patience 0", valid + "[train]\nvalidate_every = 1\npatience = 0\n",
			[]string{"exp.toml:8:", "train.patience: must be a number of validations >= 1"}},
		{"negative patience", valid + "[train]\nvalidate_every = 1\npatience = -2\n", []string{"train.patience: must be a number of validations >= 1"}},
		{"patience without validation", valid + "[train]\npatience = 3\n",
			[]string{"train.patience: stops training on validation scores, which only validate_every gives"}},
		{"selection K not evaluated", valid + "[train]\nvalidate_every = 1\n[eval]\nk = [10, 50]\nselect_k = 20\n",
			[]string{"exp.toml:10:", "eval.select_k: 20 is not evaluated (k = [10 50])"}},
		{"selection metric not evaluated", valid + "[train]\nvalidate_every = 1\n[eval]\nselect_metric = \"sampled_ndcg\"\n",
			[]string{"eval.select_metric: unknown \"sampled_ndcg\""}},
		{"selection slice not evaluated", valid + "[train]\nvalidate_every = 1\n[eval]\nselect_slice = \"bin2\"\n",
			[]string{"eval.select_slice: bin2 is not evaluated under slices.method \"count\""}},
		{"selection metric without a selection", "[eval]\nselect_metric = \"recall\"\n",
			[]string{"exp.toml:2:", "eval.select_metric: names the validation metric of model selection, which only train.validate_every and eval.select_la_tau do"}},
		{"cut-off of mrr", valid + "[train]\nvalidate_every = 2\n[eval]\nselect_metric = \"mrr\"\nselect_k = 10\n",
			[]string{"eval.select_k: 10, but select_metric mrr has no cut-off"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := loadConfig(writeConfig(t, c.body), nil)
			wantError(t, err, c.want...)
		})
	}
}

// TestSelectionTrainingIdentity: a training that selects on validation depends on the
// evaluation settings its validation reads (the filter, the selection metric, the slices), so
// that changing one trains the run again; without validation they are evaluation settings
// alone.
func TestSelectionTrainingIdentity(t *testing.T) {
	const body = "[data]\nsource = \"synthetic\"\n[data.split]\nkind = \"leave_last_out\"\nvalidation = true\n[eval]\nlogit_adjust = [0, 1]\n"
	hash := func(sets ...string) string { return trainHashOf(t, body, sets...) }
	for _, c := range []struct {
		set       string
		retrained bool
	}{
		{"eval.filter=seen", true},
		{"eval.select_metric=recall", true},
		{"slices.method=rank", true},
		{"eval.bootstrap=10", false},
		{"eval.select_la_tau=true", false},
	} {
		base := hash("train.validate_every=1")
		if got := hash("train.validate_every=1", c.set); (got != base) != c.retrained {
			t.Errorf("with validation, %s changes the training hash: %v, want %v", c.set, got != base, c.retrained)
		}
		if c.set == "eval.select_metric=recall" {
			continue // a selection metric needs a selection
		}
		if hash(c.set) != hash() {
			t.Errorf("without validation, %s changes the training hash", c.set)
		}
	}
}

// TestSelectionSettingHint: in a folder whose runs select on validation, changing eval.k changes
// eval.select_k (the smallest eval.k unless written), a training setting of these runs: the
// refusal says so and how to keep the folder's value, with which the saved model is evaluated
// again, not retrained; a setting that selection does not read gives no such hint.
func TestSelectionSettingHint(t *testing.T) {
	dir := t.TempDir()
	const only = "^variant=logq,seed=1$"
	sets := overrideSets(selectionSets, "train.epochs=1")
	if _, err := runCommand(t, setArgs(dir, only, sets...)...); err != nil {
		t.Fatal(err)
	}
	_, err := runCommand(t, setArgs(dir, only, append(sets, "eval.k=[5, 20]")...)...)
	wantError(t, err, "eval.select_k = 5 here, 1 in the folder",
		"(the runs select their model on validation (train.validate_every), which reads eval.select_k: a training setting of theirs; eval.select_k is the smallest eval.k unless written: keep 1 in eval.k and write eval.select_k = 1 to keep the folder's)")
	out, err := runCommand(t, setArgs(dir, only, append(sets, "eval.k=[1, 5, 20]", "eval.select_k=1")...)...)
	if err != nil || !strings.Contains(out, "training unchanged, evaluating its saved model again") {
		t.Errorf("eval.select_k = 1 written: %v\n%s", err, out)
	}
	_, err = runCommand(t, setArgs(dir, only, append(sets, "train.learning_rate=0.5")...)...)
	if err == nil || strings.Contains(err.Error(), "select their model") {
		t.Errorf("a training setting selection does not read: %v", err)
	}
}

// TestUninformativeWarnings: a selection whose validations all score the same (a learning rate
// too small to move the model) says that it kept the first; a run with fewer steps than
// train.log_every says that its loss curve has one point. A run with neither says neither.
func TestUninformativeWarnings(t *testing.T) {
	const only = "^variant=logq,seed=1$"
	sets := overrideSets(selectionSets, "train.epochs=4")
	for _, c := range []struct {
		name  string
		sets  []string
		want  []string
		clean bool
	}{
		{"tied", []string{"train.learning_rate=1e-30"}, []string{"warning: all 3 validations scored ndcg@1 ", "so the selection kept the first"}, false},
		{"one point", []string{"train.log_every=1000"}, []string{"warning: the loss curve has one point: train.log_every = 1000 is not below the run's "}, false},
		{"neither", nil, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := runCommand(t, setArgs(t.TempDir(), only, overrideSets(sets, c.sets...)...)...)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if c.clean && strings.Contains(out, "warning") {
				t.Errorf("a warning:\n%s", out)
			}
		})
	}
}

// selectionSets switch the smoke config to a leave-last-out split with its validation pairs and
// six epochs validated after each, with early stopping after two validations without a better
// ndcg@1 (its validation score peaks at epoch 3 and ties it at epoch 4 for variant logq, seed 1).
var selectionSets = []string{"data.split.kind=leave_last_out", "data.split.validation=true", "train.epochs=6",
	"train.learning_rate=0.02", "train.validate_every=1", "train.patience=2"}

// overrideSets is sets with each of kvs (key=value) in place of the element of its key, or
// appended: the command refuses a key set twice.
func overrideSets(sets []string, kvs ...string) []string {
	out := slices.Clone(sets)
	for _, kv := range kvs {
		key, _, _ := strings.Cut(kv, "=")
		i := slices.IndexFunc(out, func(s string) bool { return strings.HasPrefix(s, key+"=") })
		if i < 0 {
			out = append(out, kv)
		} else {
			out[i] = kv
		}
	}
	return out
}

// setArgs are the command's arguments of a run of the smoke config in out with sets.
func setArgs(out, only string, sets ...string) []string {
	args := []string{"-config", smokeConfig, "-out", out, "-only", only}
	for _, s := range sets {
		args = append(args, "-set", s)
	}
	return args
}

// TestSelectedEpochIsTheModel: a run with early stopping records every validation, stops after
// patience validations without a better score, and saves as model.bin the parameters of its
// best validation (the first of equal scores): the bytes of the same run trained for that many
// epochs without validation. summary.md says which epoch each seed selected.
func TestSelectedEpochIsTheModel(t *testing.T) {
	const only = "^variant=logq,seed=1$"
	dir, ref := t.TempDir(), t.TempDir()
	if _, err := runCommand(t, setArgs(dir, only, selectionSets...)...); err != nil {
		t.Fatal(err)
	}
	var rec runRecord
	if err := readJSON(filepath.Join(dir, "runs", "variant=logq,seed=1", "metrics.json"), &rec); err != nil {
		t.Fatal(err)
	}
	v := rec.Train.Validation
	if v == nil {
		t.Fatal("metrics.json has no validation")
	}
	best := 0
	for i, p := range v.Curve {
		if p.Epoch != i+1 || p.Step != 56*(i+1) {
			t.Errorf("validation %d at epoch %d, step %d", i, p.Epoch, p.Step)
		}
		if p.Value > v.Curve[best].Value {
			best = i
		}
	}
	b := v.Curve[best]
	if v.Epoch != b.Epoch || v.Step != b.Step || v.Value != b.Value || v.Metric != "ndcg@1 (all)" {
		t.Errorf("selected %+v, the curve's first best is %+v", v, b)
	}
	if n := len(v.Curve); !v.EarlyStopped || n != best+3 || rec.Train.Steps != v.Curve[n-1].Step {
		t.Errorf("%d validations, best %d, early stopped %v, %d steps: patience 2 stops at the second validation without a better score",
			n, best+1, v.EarlyStopped, rec.Train.Steps)
	}
	if b.Epoch == 6 {
		t.Errorf("the best epoch is the last: the test no longer tells the selected model from the last one")
	}
	plain := overrideSets(selectionSets[:3], "train.learning_rate=0.02", "train.epochs="+strconv.Itoa(b.Epoch))
	if _, err := runCommand(t, setArgs(ref, only, plain...)...); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readFile(t, filepath.Join(dir, "runs", rec.ID, "model.bin")), readFile(t, filepath.Join(ref, "runs", rec.ID, "model.bin"))) {
		t.Errorf("model.bin is not the model of epoch %d", b.Epoch)
	}
	summary := string(readFile(t, filepath.Join(dir, "summary.md")))
	if want := "Model selection on the validation set by ndcg@1 (all), per row and seed: logq epoch " + strconv.Itoa(b.Epoch) + " (early stopping in 1 of 1);"; !strings.Contains(summary, want) {
		t.Errorf("summary.md lacks %q:\n%s", want, summary)
	}
}

// TestKilledDuringSelectionResumes: a run that selects on validation, killed between two
// validations after a checkpoint, resumes with its best parameters so far and its count of
// validations since, to the model.bin and metrics.json (but for the times) of a run never
// interrupted.
func TestKilledDuringSelectionResumes(t *testing.T) {
	const only = "^variant=logq,seed=1$"
	sets := append([]string{"train.checkpoint_every=10", "train.log_every=5", "train.log_seconds=1e-9"}, selectionSets...)
	whole, cut := t.TempDir(), t.TempDir()
	if _, err := runCommand(t, setArgs(whole, only, sets...)...); err != nil {
		t.Fatal(err)
	}
	r := interruptAt(t, cut, sets, only, "step 195/336")
	out, err := runCommand(t, setArgs(cut, only, sets...)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "resuming training from") || strings.Contains(out, "validation epoch 3:") || !strings.Contains(out, "validation epoch 4:") {
		t.Errorf("the run did not resume after its third validation:\n%s", out)
	}
	if !bytes.Equal(readFile(t, filepath.Join(whole, "runs", r.ID, "model.bin")), readFile(t, r.modelPath())) {
		t.Error("model.bin of the resumed run differs from the uninterrupted one")
	}
	if x, y := timeless(t, filepath.Join(whole, "runs", r.ID, "metrics.json")), timeless(t, filepath.Join(r.dir, "metrics.json")); !bytes.Equal(x, y) {
		t.Errorf("metrics.json of the resumed run differs:\n%s\nvs uninterrupted\n%s", y, x)
	}
}

// TestSelectLATauRecorded: with eval.select_la_tau the strength selected on the validation set
// is recorded with every candidate's validation metric, the test results are those of the
// saved model's ranking at that strength alone (an evaluation at it without selection gives the
// same numbers), and metrics.csv, which the figures are drawn from as well, holds them with the
// run's strength in selected_la_tau and no row at another one.
func TestSelectLATauRecorded(t *testing.T) {
	const only = "^variant=logq,seed=1$"
	dir := t.TempDir()
	// No candidate is 0: the results, at the selected strength in metrics.json, are the rows of
	// τ = 0 of the report (report.Selection).
	sets := append(selectionSets[:4:4], "eval.logit_adjust=[-0.25, 0.25, 2]", "eval.select_la_tau=true")
	if _, err := runCommand(t, setArgs(dir, only, sets...)...); err != nil {
		t.Fatal(err)
	}
	r, _ := configRun(t, smokeConfig, dir, sets, only)
	rec, err := r.finished()
	if err != nil || rec == nil {
		t.Fatalf("no record: %v", err)
	}
	sel := rec.LATau
	if sel == nil || len(sel.Validation) != 3 {
		t.Fatalf("selection %+v", sel)
	}
	var chosen models.TauScore
	for _, v := range sel.Validation {
		if v.Tau == sel.Tau {
			chosen = v
		}
	}
	for _, v := range sel.Validation {
		if v.Value > chosen.Value || v.Value == chosen.Value && math.Abs(v.Tau) < math.Abs(chosen.Tau) {
			t.Errorf("τ = %v is better on validation than the selected %v: %+v", v.Tau, sel.Tau, sel.Validation)
		}
	}

	ds, err := datasets.Load(r.cfg.Data, r.cfg.DataSeed)
	if err != nil {
		t.Fatal(err)
	}
	m, err := models.New(r.cfg.Model, ds, tensor.Float32, r.Seed)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Load(r.modelPath()); err != nil {
		t.Fatal(err)
	}
	s := evalSettings(r.cfg, r.Seed, ds.Items)
	s.Eval.LogitAdjust, s.Eval.SelectLATau = []float64{sel.Tau}, false
	want, err := models.Evaluate(context.Background(), m, ds, datasets.PartTest, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rec.Results, want.Results) || rec.Results[0].Tau != sel.Tau {
		t.Error("the run's results are not its model's at the selected strength")
	}

	rows := exampletest.ReadCSV(t, filepath.Join(dir, "metrics.csv"))
	kind, selected := slices.Index(rows[0], "kind"), slices.Index(rows[0], "selected_la_tau")
	if slices.Contains(rows[0], "la_tau") || selected < 0 {
		t.Errorf("metrics.csv has rows by strength, or no selected strength: %v", rows[0])
	}
	n := 0
	for _, row := range rows[1:] {
		if row[kind] != "run" {
			continue
		}
		n++
		if got := row[selected]; got != strconv.FormatFloat(sel.Tau, 'g', -1, 64) {
			t.Errorf("row %v: selected_la_tau %q, the run selected %v", row, got, sel.Tau)
		}
	}
	if n != len(rec.Results) {
		t.Errorf("%d rows of the run, %d results", n, len(rec.Results))
	}
	summary := string(readFile(t, filepath.Join(dir, "summary.md")))
	if want := "logq τ_LA " + strconv.FormatFloat(sel.Tau, 'g', -1, 64) + ";"; !strings.Contains(summary, want) {
		t.Errorf("summary.md lacks %q", want)
	}
}
