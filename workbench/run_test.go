package workbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

const smokeConfig = "../configs/smoke.toml"

// smokeRunIDs are the runs of configs/smoke.toml.
var smokeRunIDs = []string{"variant=plain,seed=1", "variant=plain,seed=2", "variant=logq,seed=1", "variant=logq,seed=2"}

func runCommand(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := Main(args, &out, io.Discard)
	return out.String(), err
}

// testOptions are the options of a scheduler test: jobs at a time, claims owned by a new owner.
func testOptions(t *testing.T, jobs int) options {
	t.Helper()
	me, err := newOwner()
	if err != nil {
		t.Fatal(err)
	}
	return options{jobs: jobs, me: me, claims: defaultClaimTimes}
}

func TestSmokeEndToEnd(t *testing.T) {
	dir := t.TempDir()
	out, err := runCommand(t, "-config", smokeConfig, "-out", dir)
	if err != nil {
		t.Fatal(err)
	}
	// The data report is printed once, when the dataset is loaded.
	if line := "data synthetic: synthetic: 8000 records read, 8000 pairs kept (7200 train, 800 test)"; strings.Count(out, line) != 1 {
		t.Errorf("output does not print %q once:\n%s", line, out)
	}
	for _, f := range []string{"config.toml", "metrics.csv", "summary.md", "recall_at_1.png", "recall_at_10.png", "loss_curves.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	for _, id := range smokeRunIDs {
		for _, f := range []string{"config.toml", "metrics.json", "curve.csv", "model.bin"} {
			if _, err := os.Stat(filepath.Join(dir, "runs", id, f)); err != nil {
				t.Error(err)
			}
		}
	}
	csv := readFile(t, filepath.Join(dir, "metrics.csv"))
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if lines[0] != "run,kind,seed,slice,metric,k,value,loss.variant" {
		t.Errorf("metrics.csv header %q", lines[0])
	}
	// 4 runs × (4 slices × (recall@1, recall@10, ndcg@1, ndcg@10, mrr, strat_recall@1,
	// strat_recall@10, and the calibration of the synthetic data's softmax losses: ece, ece_rel,
	// mass_ratio and the same of P̂, but for the mass ratio of all pairs, 1 by construction) + the
	// exposure metrics arp, aplt, coverage, gini, novelty at 1 and 10), then per seed (2) the
	// most_popular baseline's 4 × 5 rows and the random baseline's 4 slices × recall@1, recall@10.
	if got, want := len(lines)-1, 4*(4*(7+6)-1+5*2)+2*(4*5+4*2); got != want {
		t.Errorf("metrics.csv has %d rows, want %d", got, want)
	}
	summary := readFile(t, filepath.Join(dir, "summary.md"))
	for _, want := range []string{"## Recall@10", "| plain |", "| logq |", "Slice sizes", "head 100 /", "**", "## Sanity baselines", "| most_popular |"} {
		if !strings.Contains(string(summary), want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	f, err := os.Open(filepath.Join(dir, "recall_at_10.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("recall_at_10.png: %v", err)
	}
}

// TestResume: an experiment interrupted after some runs (simulated by -only, and by a run whose
// metrics.json was never written) and run again produces the same metrics.csv as one run
// without interruption, and reruns only what did not finish.
func TestResume(t *testing.T) {
	whole, cut := t.TempDir(), t.TempDir()
	if _, err := runCommand(t, "-config", smokeConfig, "-out", whole); err != nil {
		t.Fatal(err)
	}
	if _, err := runCommand(t, "-config", smokeConfig, "-out", cut, "-only", "^variant=plain"); err != nil {
		t.Fatal(err)
	}
	torn := filepath.Join(cut, "runs", "variant=plain,seed=2", "metrics.json")
	if err := os.Remove(torn); err != nil {
		t.Fatal(err)
	}
	out, err := runCommand(t, "-config", smokeConfig, "-out", cut)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "4 runs: 1 already finished, 3 to run") {
		t.Errorf("resumed output:\n%s", out)
	}
	a := readFile(t, filepath.Join(whole, "metrics.csv"))
	b := readFile(t, filepath.Join(cut, "metrics.csv"))
	if !bytes.Equal(a, b) {
		t.Errorf("resumed metrics.csv differs from the uninterrupted one:\n%s\nvs\n%s", a, b)
	}
	out, err = runCommand(t, "-config", smokeConfig, "-out", cut, "-force", "-only", "seed=1$")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "4 runs, 2 selected by -only (2 left out, 2 of them finished): 0 already finished, 2 to run") {
		t.Errorf("-force output:\n%s", out)
	}
}

func TestConfigHashMismatch(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", "variant=plain,seed=1"); err != nil {
		t.Fatal(err)
	}
	_, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-set", "train.epochs=1")
	if err == nil || !strings.Contains(err.Error(), "holds the results of a different config") {
		t.Fatalf("error %v, want a config-hash refusal", err)
	}
	// The refused run left the earlier results as they were.
	if _, err := os.Stat(filepath.Join(dir, "runs", "variant=plain,seed=1", "metrics.json")); err != nil {
		t.Error(err)
	}
}

// TestScheduleInterrupted: cancelling stops the schedule between runs; finished runs keep their
// metrics.json and the next invocation runs only the rest.
func TestScheduleInterrupted(t *testing.T) {
	dir := t.TempDir()
	var runs []plannedRun
	for i := range 4 {
		id := fmt.Sprintf("x=%d", i)
		runs = append(runs, plannedRun{cell: cell{ID: id, Group: id}, cfg: &Config{}, hash: "h", dir: filepath.Join(dir, id)})
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	fake := func(ctx context.Context, r plannedRun, _ io.Writer) (*runRecord, error) {
		calls++
		if calls == 2 {
			cancel()
			return nil, ctx.Err()
		}
		return &runRecord{}, nil
	}
	o := testOptions(t, 1)
	err := schedule(ctx, runs, o, io.Discard, fake, nil)
	if err == nil || !strings.Contains(err.Error(), "interrupted after 1 of 4 runs") {
		t.Fatalf("error %v", err)
	}
	recs, err := records(runs)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].ID != "x=0" {
		t.Fatalf("finished records %+v", recs)
	}
	calls = 0
	if err := schedule(context.Background(), runs, o, io.Discard, func(context.Context, plannedRun, io.Writer) (*runRecord, error) {
		calls++
		return &runRecord{}, nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	if calls != 3 {
		t.Errorf("resume ran %d runs, want 3", calls)
	}
}

// TestScheduleLongestFirst: with two jobs the longest runs start first (the grid's order
// breaking ties); with one, the grid's order is kept.
func TestScheduleLongestFirst(t *testing.T) {
	length := map[string]float64{"x=0": 1, "x=1": 4, "x=2": 2, "x=3": 4}
	for _, tc := range []struct {
		jobs int
		want [][]string // the runs started, in groups whose order within is free
	}{
		{2, [][]string{{"x=1", "x=3"}, {"x=0", "x=2"}}},
		{1, [][]string{{"x=0"}, {"x=1"}, {"x=2"}, {"x=3"}}},
	} {
		dir := t.TempDir()
		var runs []plannedRun
		for i := range 4 {
			id := fmt.Sprintf("x=%d", i)
			runs = append(runs, plannedRun{cell: cell{ID: id, Group: id}, cfg: &Config{}, hash: "h", dir: filepath.Join(dir, id)})
		}
		// The first runs wait until every job has started one, so that none finishes before the
		// others have started.
		var mu sync.Mutex
		all := sync.NewCond(&mu)
		var started []string
		err := schedule(context.Background(), runs, testOptions(t, tc.jobs), io.Discard, func(_ context.Context, r plannedRun, _ io.Writer) (*runRecord, error) {
			mu.Lock()
			defer mu.Unlock()
			started = append(started, r.ID)
			all.Broadcast()
			for len(started) < tc.jobs {
				all.Wait()
			}
			return &runRecord{}, nil
		}, func(r plannedRun) float64 { return length[r.ID] })
		if err != nil {
			t.Fatal(err)
		}
		var got [][]string
		for _, g := range tc.want {
			part := slices.Clone(started[:len(g)])
			started = started[len(g):]
			slices.Sort(part)
			got = append(got, part)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%d jobs: runs started %v, want %v", tc.jobs, got, tc.want)
		}
	}
}

func TestScheduleFailure(t *testing.T) {
	runs := []plannedRun{{cell: cell{ID: "a"}, cfg: &Config{}, dir: filepath.Join(t.TempDir(), "a")}}
	err := schedule(context.Background(), runs, testOptions(t, 2), io.Discard, func(context.Context, plannedRun, io.Writer) (*runRecord, error) {
		return nil, errors.New("loss is NaN at step 7")
	}, nil)
	if err == nil || err.Error() != "run a: loss is NaN at step 7" {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat(filepath.Join(runs[0].dir, "metrics.json")); !os.IsNotExist(err) {
		t.Errorf("a failed run wrote metrics.json: %v", err)
	}
}

func TestRunFlagErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "-config FILE is required"},
		{[]string{"-config", smokeConfig, "extra"}, "unexpected argument \"extra\""},
		{[]string{"-config", smokeConfig, "-only", "("}, "-only:"},
		{[]string{"-config", smokeConfig, "-jobs", "-1"}, "-jobs must be >= 0"},
		{[]string{"-config", smokeConfig, "-set", `out="a"`, "-out", "b"}, `-out b and -set out="a" both name the output folder: give one`},
		{[]string{"-config", smokeConfig, "-set", "loss.temperature=0.1", "-set", "train.epochs=2", "-set", " loss.temperature =0.2"},
			"-set  loss.temperature =0.2: loss.temperature is also set by -set loss.temperature=0.1: write it once"},
	} {
		if _, err := runCommand(t, tt.args...); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want %q", tt.args, err, tt.want)
		}
	}
}

// TestFlagSetNamedAfterProgram: the usage of the flags names the program that calls Main (here
// the test binary), not "experiments": a program of one's own is not named after the command.
func TestFlagSetNamedAfterProgram(t *testing.T) {
	var stderr bytes.Buffer
	if err := Main([]string{"-h"}, io.Discard, &stderr); err != nil {
		t.Fatal(err)
	}
	want := "Usage of " + filepath.Base(os.Args[0]) + ":"
	if !strings.HasPrefix(stderr.String(), want) || strings.Contains(stderr.String(), "Usage of experiments") {
		t.Errorf("usage begins %.40q, want %q", stderr.String(), want)
	}
}

// TestPlotsOnlyChangeRedraws: changing only [plots] keeps the finished runs and redraws.
func TestPlotsOnlyChangeRedraws(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", "seed=1$"); err != nil {
		t.Fatal(err)
	}
	out, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", "seed=1$", "-set", "plots.dpi=120")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "4 runs, 2 selected by -only (2 left out, 0 of them finished): 2 already finished, 0 to run") {
		t.Errorf("output:\n%s", out)
	}
}

// TestParallelJobsSameResults: runs in parallel (-jobs 2) give the metrics of runs one at a time.
func TestParallelJobsSameResults(t *testing.T) {
	one, two := t.TempDir(), t.TempDir()
	serial, err := runCommand(t, "-config", smokeConfig, "-out", one, "-jobs", "1")
	if err != nil {
		t.Fatal(err)
	}
	out, err := runCommand(t, "-config", smokeConfig, "-out", two, "-jobs", "2")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "2 at a time") || !strings.Contains(out, "variant=logq,seed=2: ") {
		t.Errorf("parallel output lacks the schedule or the prefixed progress lines:\n%s", out)
	}
	// A run's own lines name it once, whether the scheduler prefixes its lines or not.
	noteLine := regexp.MustCompile(`(?m)^variant=\w+,seed=\d: \d+ checkpoints of `)
	for jobs, o := range []string{serial, out} {
		if n := len(noteLine.FindAllString(o, -1)); n != 4 {
			t.Errorf("-jobs %d: %d of the 4 runs' checkpoint lines name their run once at the start:\n%s", jobs+1, n, o)
		}
	}
	a, _ := os.ReadFile(filepath.Join(one, "metrics.csv"))
	b, _ := os.ReadFile(filepath.Join(two, "metrics.csv"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("metrics.csv differs between -jobs 1 and -jobs 2")
	}
}

// TestEvalChangeReevaluates: changing only [eval] evaluates the saved models again, without
// retraining, and reports only the new evaluation.
func TestEvalChangeReevaluates(t *testing.T) {
	dir := t.TempDir()
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", "seed=1$"); err != nil {
		t.Fatal(err)
	}
	curve := filepath.Join(dir, "runs", "variant=logq,seed=1", "curve.csv")
	before, err := os.Stat(curve)
	if err != nil {
		t.Fatal(err)
	}
	out, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", "seed=1$", "-set", "eval.k=[5]")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(out, "training unchanged, evaluating its saved model again") != 2 {
		t.Errorf("output:\n%s", out)
	}
	after, err := os.Stat(curve)
	if err != nil {
		t.Fatal(err)
	}
	if !after.ModTime().Equal(before.ModTime()) {
		t.Error("the run was retrained: its curve.csv was rewritten")
	}
	b := readFile(t, filepath.Join(dir, "metrics.csv"))
	csv := string(b)
	if !strings.Contains(csv, ",recall,5,") || strings.Contains(csv, ",recall,10,") {
		t.Errorf("metrics.csv does not hold the new evaluation alone:\n%s", csv)
	}
	// A change of training is still refused.
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-set", "model.embedding_dim=8"); err == nil {
		t.Error("a different training config was accepted into the folder")
	}
}

// TestProfiles: -cpuprofile and -memprofile write a CPU and an allocation profile of the command
// (gzip-compressed protobuf, as runtime/pprof writes them), and an unwritable path is an error
// naming the flag before anything runs.
func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	if _, err := runCommand(t, "-config", smokeConfig, "-out", filepath.Join(dir, "out"), "-only", "variant=plain,seed=1", "-cpuprofile", cpu, "-memprofile", mem); err != nil {
		t.Fatal(err)
	}
	for _, prof := range []string{cpu, mem} {
		b, err := os.ReadFile(prof)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 100 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%s: %d bytes, not a gzip-compressed profile", filepath.Base(prof), len(b))
		}
	}
	for _, flag := range []string{"-cpuprofile", "-memprofile"} {
		out := filepath.Join(dir, "out"+flag)
		_, err := runCommand(t, "-config", smokeConfig, "-out", out, flag, filepath.Join(dir, "no", "such", "x.prof"))
		if err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("error %v, want one naming %s", err, flag)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: the runs were started", flag)
		}
	}
}
