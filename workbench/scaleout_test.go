package workbench

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/samplers"
)

// runEnv runs the command with the environment env.
func runEnv(env map[string]string, args ...string) (string, error) {
	var out bytes.Buffer
	err := MainEnv(args, &out, io.Discard, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	return out.String(), err
}

// readFile returns the contents of the file at path, failing the test if it cannot be read.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// trainedIDs are the runs an invocation's output says it ran.
var trainedRe = regexp.MustCompile(`(?m)^\[\d+/\d+\] (\S+) finished in`)

func trainedIDs(out string) []string {
	var ids []string
	for _, m := range trainedRe.FindAllStringSubmatch(out, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

func TestList(t *testing.T) {
	out, err := runCommand(t, "-config", smokeConfig, "-list")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(smokeRunIDs, "\n") + "\n# 4 runs\n"; out != want {
		t.Errorf("-list printed\n%s\nwant\n%s", out, want)
	}
	out, err = runCommand(t, "-config", smokeConfig, "-list", "-shard", "1/3")
	if err != nil {
		t.Fatal(err)
	}
	if want := smokeRunIDs[1] + "\n# 1 of the grid's 4 runs in shard 1/3 (from -shard)\n"; out != want {
		t.Errorf("-list -shard 1/3 printed\n%s\nwant\n%s", out, want)
	}
}

func TestScaleOutFlagErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"-shard", "4/4"}, nil, "-shard 4/4: want n >= 1 and 0 <= i < n"},
		{[]string{"-shard", "0/2", "-shard-count", "2"}, nil, "not both"},
		{[]string{"-report", "-shard", "0/2"}, nil, "-report covers the whole grid"},
		{[]string{"-report", "-list"}, nil, "not both"},
		{[]string{"-report", "-force"}, nil, "-report writes the whole grid's report from its finished runs and trains nothing: -force does not apply"},
		{[]string{"-report", "-jobs", "0", "-only", "logq"}, nil, "trains nothing: -only and -jobs do not apply"},
		{[]string{"-list", "-force", "-jobs", "2"}, nil, "-list prints the runs and trains nothing: -force and -jobs do not apply"},
		{nil, map[string]string{"JOB_COMPLETION_INDEX": "1"}, "give -shard-count n"},
		{[]string{"-shard-count", "3"}, map[string]string{"JOB_COMPLETION_INDEX": "3"}, "out of range for 3 tasks"},
		{[]string{"-shard-count", "3"}, nil, "no job-array index variable is set"},
	} {
		args := append([]string{"-config", smokeConfig, "-out", t.TempDir()}, tt.args...)
		if _, err := runEnv(tt.env, args...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v %v: error %v, want %q", tt.args, tt.env, err, tt.want)
		}
	}
}

// TestShardsConcurrentThenReport: the Kubernetes Indexed Job path without Kubernetes: n
// invocations with JOB_COMPLETION_INDEX = 0..n-1, concurrently on one folder, each train only
// their shard's runs and write no folder-level file; the report step then writes the metrics.csv
// of one unsharded invocation, byte for byte.
func TestShardsConcurrentThenReport(t *testing.T) {
	whole, shared := t.TempDir(), t.TempDir()
	if _, err := runCommand(t, "-config", smokeConfig, "-out", whole); err != nil {
		t.Fatal(err)
	}
	const n = 3
	outs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := map[string]string{"JOB_COMPLETION_INDEX": fmt.Sprint(i)}
			outs[i], errs[i] = runEnv(env, "-config", smokeConfig, "-out", shared, "-shard-count", fmt.Sprint(n))
		}()
	}
	wg.Wait()
	var all []string
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("shard %d: %v", i, errs[i])
		}
		ids := trainedIDs(outs[i])
		for _, id := range ids {
			if p := slices.Index(smokeRunIDs, id); p%n != i {
				t.Errorf("shard %d/%d trained %s, at position %d of the grid", i, n, id, p)
			}
		}
		all = append(all, ids...)
	}
	slices.Sort(all)
	want := slices.Clone(smokeRunIDs)
	slices.Sort(want)
	if !slices.Equal(all, want) {
		t.Errorf("the shards trained %v, want every run once: %v", all, want)
	}
	for _, f := range []string{"metrics.csv", "summary.md", "config.toml", "recall_at_10.png"} {
		if _, err := os.Stat(filepath.Join(shared, f)); !os.IsNotExist(err) {
			t.Errorf("a shard wrote the folder-level %s (%v)", f, err)
		}
	}
	out, err := runCommand(t, "-config", smokeConfig, "-out", shared, "-report")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "report: 4 of 4 runs finished\n") {
		t.Errorf("report output:\n%s", out)
	}
	if a, b := readFile(t, filepath.Join(whole, "metrics.csv")), readFile(t, filepath.Join(shared, "metrics.csv")); !bytes.Equal(a, b) {
		t.Errorf("the report's metrics.csv differs from one invocation's:\n%s\nvs\n%s", b, a)
	}
	for _, f := range []string{"summary.md", "config.toml", "recall_at_10.png", "loss_curves.png"} {
		if _, err := os.Stat(filepath.Join(shared, f)); err != nil {
			t.Errorf("the report did not write %s: %v", f, err)
		}
	}
}

// TestTwoProcessesNeverTrainTheSameRun: unsharded invocations started together on one folder
// share the grid through the run claims: every run is trained exactly once.
func TestTwoProcessesNeverTrainTheSameRun(t *testing.T) {
	for try := range 2 {
		dir := t.TempDir()
		outs := make([]string, 2)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outs[i], errs[i] = runCommand(t, "-config", smokeConfig, "-out", dir)
			}()
		}
		wg.Wait()
		var all []string
		for i := range 2 {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			all = append(all, trainedIDs(outs[i])...)
		}
		slices.Sort(all)
		want := slices.Clone(smokeRunIDs)
		slices.Sort(want)
		if !slices.Equal(all, want) {
			t.Errorf("try %d: trained %v, want each run once: %v\n%s\n---\n%s", try, all, want, outs[0], outs[1])
		}
		for _, id := range smokeRunIDs {
			if _, err := os.Stat(filepath.Join(dir, "runs", id, "claim.json")); !os.IsNotExist(err) {
				t.Errorf("run %s kept its claim: %v", id, err)
			}
		}
	}
}

// TestReport: the report names the missing runs, writes what is there, and refuses runs of
// another config and folders of other training settings.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-report"); err == nil || !strings.Contains(err.Error(), "no experiment has run in this folder") {
		t.Errorf("report of an empty folder: %v", err)
	}
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-shard", "0/2"); err != nil {
		t.Fatal(err)
	}
	running := owner{Host: "node7", PID: 42, Token: "t", Started: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	if err := writeJSON(filepath.Join(dir, "runs", "variant=logq,seed=2", "claim.json"), running); err != nil {
		t.Fatal(err)
	}
	out, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-report")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "report: 2 of 4 runs finished; missing 2: variant=plain,seed=2, variant=logq,seed=2 (claimed by process 42 on node7 since 2026-11-22T10:00:00Z)\n") {
		t.Errorf("report output:\n%s", out)
	}
	csv := string(readFile(t, filepath.Join(dir, "metrics.csv")))
	if !strings.Contains(csv, `"variant=logq,seed=1",`) || strings.Contains(csv, `seed=2"`) {
		t.Errorf("metrics.csv does not hold the two finished runs alone:\n%s", csv)
	}
	_, err = runCommand(t, "-config", smokeConfig, "-out", dir, "-report", "-set", "eval.k=[5]")
	if err == nil || !strings.Contains(err.Error(), "2 runs in "+dir+" hold results of another config: variant=plain,seed=1 (evaluated with other [eval]") {
		t.Errorf("report with another [eval]: %v", err)
	}
	_, err = runCommand(t, "-config", smokeConfig, "-out", dir, "-report", "-set", "model.embedding_dim=8")
	if err == nil || !strings.Contains(err.Error(), "model.embedding_dim = 8 here, 16 in the folder") {
		t.Errorf("report with another training config: %v", err)
	}
}

// TestFolderGuard: more seeds in a finished folder run only the new runs and keep the old ones
// byte for byte; a changed training setting is refused, named with both values.
func TestFolderGuard(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-set", "seeds=[1]"); err != nil {
		t.Fatal(err)
	}
	before := map[string][]byte{}
	for _, id := range []string{"variant=plain,seed=1", "variant=logq,seed=1"} {
		before[id] = readFile(t, filepath.Join(dir, "runs", id, "metrics.json"))
	}
	out, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-set", "seeds=[1, 2, 3]")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "6 runs: 2 already finished, 4 to run") {
		t.Errorf("output:\n%s", out)
	}
	for id, b := range before {
		if !bytes.Equal(b, readFile(t, filepath.Join(dir, "runs", id, "metrics.json"))) {
			t.Errorf("%s was rewritten", id)
		}
	}
	// A new value of an axis is a new cell; a new axis too.
	out, err = runCommand(t, "-config", smokeConfig, "-out", dir, "-set", "seeds=[1]", "-set", "loss.variant=plain")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	_, err = runCommand(t, "-config", smokeConfig, "-out", dir, "-set", "train.batch_size=64")
	if err == nil || !strings.Contains(err.Error(), "train.batch_size = 64 here, 128 in the folder") {
		t.Errorf("a changed training setting: %v", err)
	}
}

// TestSameConfigFromAnotherDirectory: a config whose data path is relative to it, run by a
// relative path from two working directories and by its absolute path, is one config: the
// second and third invocations find every run finished, and so do a copy of the experiment
// elsewhere and the same data touched or with notes beside them. Rewriting the data is refused,
// naming the file.
func TestSameConfigFromAnotherDirectory(t *testing.T) {
	root := t.TempDir()
	exp := filepath.Join(root, "exp")
	if err := os.MkdirAll(filepath.Join(exp, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	var csv strings.Builder
	csv.WriteString("userId,movieId,rating,timestamp\n")
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		fmt.Fprintf(&csv, "%d,%d,%d,%d\n", r.IntN(100), int(r.ExpFloat64()*20)%80, 1+r.IntN(5), 1000000+i)
	}
	data := filepath.Join(exp, "data", "ratings.csv")
	if err := os.WriteFile(data, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := `
[data]
source = "interactions"
path = "data/ratings.csv"
[model]
embedding_dim = 8
hidden = [16]
[train]
batch_size = 64
epochs = 1
[eval]
k = [10]
bootstrap = 10
`
	if err := os.WriteFile(filepath.Join(exp, "exp.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "results")
	t.Chdir(root)
	if o, err := runCommand(t, "-config", "exp/exp.toml", "-out", out); err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	t.Chdir(exp)
	for _, path := range []string{"exp.toml", filepath.Join(exp, "exp.toml")} {
		o, err := runCommand(t, "-config", path, "-out", out)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !strings.Contains(o, "1 run: 1 already finished, 0 to run") {
			t.Errorf("%s: output\n%s", path, o)
		}
	}
	// Touching the data, a file beside it that the loader does not read, and a copy of the
	// experiment elsewhere keep the results: the runs are finished and -report finds them all.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(data, later, later); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(exp, "data", "NOTES.txt"), []byte("MovieLens-like\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(root, "copy")
	if err := os.CopyFS(copied, os.DirFS(exp)); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"exp.toml", filepath.Join(copied, "exp.toml")} {
		o, err := runCommand(t, "-config", path, "-out", out)
		if err != nil || !strings.Contains(o, "1 run: 1 already finished, 0 to run") {
			t.Errorf("%s after touching the data and adding notes: %v\n%s", path, err, o)
		}
		if o, err := runCommand(t, "-config", path, "-out", out, "-report"); err != nil || !strings.Contains(o, "report: 1 of 1 runs finished") {
			t.Errorf("%s -report: %v\n%s", path, err, o)
		}
	}
	changed := strings.Replace(csv.String(), "\n1,", "\n2,", 1)
	if changed == csv.String() {
		t.Fatal("no row of user 1 to change")
	}
	if err := os.WriteFile(data, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := runCommand(t, "-config", "exp.toml", "-out", out)
	if err == nil || !strings.Contains(err.Error(), "data file ratings.csv: other content at the same size") {
		t.Errorf("rewritten data: %v", err)
	}
}

// TestTimeLeft: the time left counts runs by their length, so that after a 1-epoch run of a
// sweep over 1, 2 and 4 epochs it is six times the time taken, not twice (with training alone),
// and adds each run's evaluation. A run's length counts the rows its towers compute per step:
// the full softmax's item rows are the corpus.
func TestTimeLeft(t *testing.T) {
	_, cfg, err := loadConfig(smokeConfig, nil)
	if err != nil {
		t.Fatal(err)
	}
	cache := &dataCache{sets: map[string]*cachedData{}}
	var runs []plannedRun
	for _, epochs := range []int{1, 2, 4} {
		c, _ := cfg.clone()
		c.Train.Epochs = epochs
		runs = append(runs, plannedRun{cfg: c})
	}
	if _, err := cache.load(cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	work := make([]float64, len(runs))
	for i, r := range runs {
		work[i] = cache.work(r)
	}
	// configs/smoke.toml: 8000 interactions, 10% to test, batches of 128: 56.25 steps an epoch
	// (the fraction is harmless: only ratios matter) of 128 queries and 128 items.
	if work[0] != 56.25*256 || work[1] != 2*work[0] || work[2] != 4*work[0] {
		t.Fatalf("work %v, want 56.25 × 256, then twice and four times that", work)
	}
	full, _ := cfg.clone()
	full.Loss.Variant, full.Sampler.Kind, full.Train.Epochs = losses.VariantFull, samplers.KindFull, 1
	if err := full.resolveSampler(); err != nil {
		t.Fatal(err)
	}
	if got, want := cache.work(plannedRun{cfg: full}), 56.25*float64(128+cfg.Data.Synthetic.Items); got != want {
		t.Errorf("full softmax: work %v, want 56.25 × (128 + %d items) = %v", got, cfg.Data.Synthetic.Items, want)
	}
	// Lengths are taken when the time left is printed: before the data is loaded they are
	// guesses, and the ratio must hold whichever scale they have.
	none := []*runRecord{{here: trainedHere{fraction: 1}}, {}, {}}
	for _, scale := range []float64{1, 1000} {
		length := func(r plannedRun) float64 { return scale * cache.work(r) }
		states := []runState{runDone, runPending, runPending}
		if got := timeLeft(10*time.Second, runs, states, none, length); got != 60*time.Second {
			t.Errorf("scale %g: time left %v, want 1m0s", scale, got)
		}
		states = []runState{runDone, runSkipped, runPending}
		if got := timeLeft(10*time.Second, runs, states, none, length); got != 40*time.Second {
			t.Errorf("scale %g: time left with a run skipped %v, want 40s", scale, got)
		}
		if got := timeLeft(10*time.Second, runs, []runState{runPending, runPending, runPending}, none, length); got != 0 {
			t.Errorf("time left before any run %v, want 0", got)
		}
	}
	// With times recorded: the 1-epoch run trained 6 s and evaluated 2 s; the pending 2- and
	// 4-epoch runs then take 12 + 2 and 24 + 2 s of work, 40 s against the done run's 8 s: five
	// times the 10 s elapsed.
	timed := []*runRecord{{here: trainedHere{fraction: 1, seconds: 6}, EvalSeconds: 2}, nil, nil}
	if got := timeLeft(10*time.Second, runs, []runState{runDone, runPending, runPending}, timed, cache.work); got != 50*time.Second {
		t.Errorf("time left with recorded times %v, want 50s", got)
	}
	// A run resumed from its checkpoint at three quarters trained its last quarter here, in
	// 1.5 s: that is 6 s for a whole epoch, and the pending runs' 12 + 2 and 24 + 2 s of work
	// are 40 s against the 1.5 + 2 s done, not against 6 + 2 s of which 4.5 were another
	// process's.
	resumed := []*runRecord{{here: trainedHere{fraction: 0.25, seconds: 1.5}, EvalSeconds: 2}, nil, nil}
	elapsed := 10 * time.Second
	want := time.Duration(float64(elapsed) * 40 / 3.5)
	if got := timeLeft(elapsed, runs, []runState{runDone, runPending, runPending}, resumed, cache.work); got != want {
		t.Errorf("time left after a resumed run %v, want %v", got, want)
	}
}

// TestKilledProcessClaimTakenOver: a process of the built command killed while training leaves
// its run's claim; the next invocation on this host takes the claim of the dead process over at
// once and trains that run, instead of skipping it as held.
func TestKilledProcessClaimTakenOver(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the command")
	}
	exe := filepath.Join(t.TempDir(), "experiments")
	if b, err := exec.Command("go", "build", "-o", exe, "../experiments").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	dir := t.TempDir()
	cmd := exec.Command(exe, "-config", smokeConfig, "-out", dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var claimed []string
	for deadline := time.Now().Add(60 * time.Second); len(claimed) == 0 && time.Now().Before(deadline); {
		claimed, _ = filepath.Glob(filepath.Join(dir, "runs", "*", "claim.json"))
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if len(claimed) == 0 {
		t.Fatal("the command claimed no run within 60 s")
	}
	var held owner
	if err := readJSON(claimed[0], &held); err != nil {
		t.Fatalf("the killed process's claim: %v", err)
	}
	if held.PID != cmd.Process.Pid {
		t.Fatalf("claim of pid %d, the killed process was %d", held.PID, cmd.Process.Pid)
	}
	id := filepath.Base(filepath.Dir(claimed[0]))
	out, err := runCommand(t, "-config", smokeConfig, "-out", dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "skipped") || !slices.Contains(trainedIDs(out), id) {
		t.Errorf("the run %s of the killed process was not taken over:\n%s", id, out)
	}
}
