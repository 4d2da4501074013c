package workbench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStaleBaselinesEvaluatedAgain: a run evaluated under eval.filter records its sanity
// baselines filtered as its rankings are (a random baseline among them); a record made before
// that (no random baseline) is refused by -report and evaluated again, from its saved model, by
// the next run of the grid.
func TestStaleBaselinesEvaluatedAgain(t *testing.T) {
	out := t.TempDir()
	args := []string{"-config", smokeConfig, "-out", out, "-set", "seeds=[1]", "-set", "loss.variant=plain", "-set", `eval.filter="seen"`}
	if _, err := runCommand(t, args...); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(out, "runs", "variant=plain,seed=1", "metrics.json")
	var rec map[string]any
	if err := json.Unmarshal(readFile(t, path), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["random"] == nil || rec["most_popular"] == nil {
		t.Fatalf("the record has no random or most-popular baseline: %v, %v", rec["random"] != nil, rec["most_popular"] != nil)
	}
	delete(rec, "random") // as recorded before the baselines were filtered
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o666); err != nil {
		t.Fatal(err)
	}
	_, err = runCommand(t, append(args, "-report")...)
	wantError(t, err, "1 run in "+out+" evaluated before its sanity baselines were filtered as its rankings are (eval.filter): run the experiment, not -report, to evaluate them again from their saved models: variant=plain,seed=1")
	stdout, err := runCommand(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 run: 0 already finished, 1 to run", "training unchanged, evaluating its saved model again"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	rec = nil
	if err := json.Unmarshal(readFile(t, path), &rec); err != nil || rec["random"] == nil {
		t.Errorf("evaluated again without a random baseline (error %v)", err)
	}
}
