package workbench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// cancelAt cancels a run's context when its progress shows a line holding mark: training asks
// its context before every step, so a run whose progress prints "step 25/" stops after step 25,
// as one killed there.
type cancelAt struct {
	mark   string
	cancel context.CancelFunc
	seen   strings.Builder
}

func (c *cancelAt) Write(b []byte) (int, error) {
	c.seen.Write(b)
	if strings.Contains(c.seen.String(), c.mark) {
		c.cancel()
	}
	return len(b), nil
}

// timeless is a metrics.json without what measures wall-clock time: the times, and the size of
// the last checkpoint, which records the time the earlier checkpoints took (compressed, its size
// can differ by a byte between two runs of the same parameters).
func timeless(t *testing.T, path string) []byte {
	t.Helper()
	var rec runRecord
	if err := readJSON(path, &rec); err != nil {
		t.Fatal(err)
	}
	rec.Train.Seconds, rec.Train.ExamplesPerSec, rec.EvalSeconds = 0, 0, 0
	rec.Train.Checkpoints.Seconds, rec.Train.Checkpoints.Bytes = 0, 0
	for i := range rec.Curve {
		rec.Curve[i].ExamplesPerSec = 0
	}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestKilledMidTrainingResumes: a run killed after step 25 of 112 (checkpoints every 10 steps)
// resumes from its checkpoint of step 20 and ends with a model.bin bit-identical to that of a
// run never interrupted, and the same metrics.json but for the times it measures; the
// checkpoint is removed once the run is finished.
func TestKilledMidTrainingResumes(t *testing.T) {
	const only = "^variant=logq,seed=1$"
	// A progress line at every point of the curve (every 5 steps), to kill the run at a step and
	// to see where training starts again.
	sets := []string{"train.checkpoint_every=10", "train.log_every=5", "train.log_seconds=1e-9"}
	args := func(out string) []string {
		return []string{"-config", smokeConfig, "-out", out, "-only", only, "-set", sets[0], "-set", sets[1], "-set", sets[2]}
	}
	whole, cut := t.TempDir(), t.TempDir()
	out, err := runCommand(t, args(whole)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "step 10/112") {
		t.Fatalf("no progress line at step 10:\n%s", out)
	}

	r := interruptAt(t, cut, sets, only, "step 25/112")

	out, err = runCommand(t, args(cut)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "resuming training from") {
		t.Errorf("the run did not resume:\n%s", out)
	}
	if strings.Contains(out, "step 20/112") || !strings.Contains(out, "step 25/112") {
		t.Errorf("the resumed run trained its first steps again:\n%s", out)
	}
	for _, dir := range []string{whole, cut} {
		if left, _ := filepath.Glob(filepath.Join(dir, "runs", r.ID, "checkpoint*")); len(left) > 0 {
			t.Errorf("%s: the checkpoint of a finished run is still there", dir)
		}
	}
	a := readFile(t, filepath.Join(whole, "runs", r.ID, "model.bin"))
	b := readFile(t, r.modelPath())
	if !bytes.Equal(a, b) {
		t.Error("model.bin of the resumed run differs from the uninterrupted one")
	}
	if x, y := timeless(t, filepath.Join(whole, "runs", r.ID, "metrics.json")), timeless(t, filepath.Join(r.dir, "metrics.json")); !bytes.Equal(x, y) {
		t.Errorf("metrics.json of the resumed run differs:\n%s\nvs uninterrupted\n%s", y, x)
	}
}

// interruptAt runs the run of the smoke config (with sets) matching only in the folder cut, in
// this process, and stops it once its progress shows mark, as a kill there would; it returns the
// run, which has a checkpoint and no model.bin.
func interruptAt(t *testing.T, cut string, sets []string, only, mark string) plannedRun {
	t.Helper()
	return interrupt(t, smokeConfig, cut, sets, only, mark)
}

// interrupt is interruptAt of the config file config.
func interrupt(t *testing.T, config, cut string, sets []string, only, mark string) plannedRun {
	t.Helper()
	r, cfg := configRun(t, config, cut, sets, only)
	if err := claimOutput(cut, cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	cache := &dataCache{sets: map[string]*cachedData{}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := runOne(ctx, r, nil, cache, &cancelAt{mark: mark, cancel: cancel})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("killed run: error %v, want context.Canceled", err)
	}
	if _, err := os.Stat(r.checkpointPath()); err != nil {
		t.Fatalf("no checkpoint at %q: %v", mark, err)
	}
	if _, err := os.Stat(r.modelPath()); err == nil {
		t.Fatal("a killed run saved its model")
	}
	return r
}

// configRun is the run of the config file config (with sets, results in out) matching only, and
// the resolved config of its grid.
func configRun(t *testing.T, config, out string, sets []string, only string) (plannedRun, *Config) {
	t.Helper()
	raw, cfg, err := loadConfig(config, sets)
	if err != nil {
		t.Fatal(err)
	}
	raw.Out, cfg.Out = out, out
	runs, err := plan(raw, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var r plannedRun
	for _, x := range runs {
		if regexp.MustCompile(only).MatchString(x.ID) {
			r = x
		}
	}
	return r, cfg
}

// TestCorruptCheckpointRetrained: a checkpoint that fails its checksum is treated like a missing
// one: a warning names it, and the run trains from the start, to the model of a run never
// interrupted.
func TestCorruptCheckpointRetrained(t *testing.T) {
	const only = "^variant=plain,seed=1$"
	sets := []string{"train.checkpoint_every=10", "train.log_every=5", "train.log_seconds=1e-9"}
	args := func(out string) []string {
		return []string{"-config", smokeConfig, "-out", out, "-only", only, "-set", sets[0], "-set", sets[1], "-set", sets[2]}
	}
	whole, cut := t.TempDir(), t.TempDir()
	if _, err := runCommand(t, args(whole)...); err != nil {
		t.Fatal(err)
	}
	r := interruptAt(t, cut, sets, only, "step 25/112")
	b := readFile(t, r.checkpointPath())
	b[len(b)/2] ^= 1 << 5
	if err := os.WriteFile(r.checkpointPath(), b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCommand(t, args(cut)...)
	if err != nil {
		t.Fatal(err)
	}
	want := r.ID + ": warning: " + r.checkpointPath() + ": corrupt checkpoint file: CRC-32C "
	if !strings.Contains(out, want) || !strings.Contains(out, "; training from the start\n") {
		t.Errorf("output does not warn %q:\n%s", want, out)
	}
	if strings.Contains(out, "resuming training from") || !strings.Contains(out, "step 5/112") {
		t.Errorf("the run did not train from the start:\n%s", out)
	}
	if !bytes.Equal(readFile(t, filepath.Join(whole, "runs", r.ID, "model.bin")), readFile(t, r.modelPath())) {
		t.Error("model.bin differs from the uninterrupted run's")
	}
}

// TestCorruptModelRetrained: a re-evaluation whose saved model fails its checksum trains the
// run again (to the same model) rather than evaluating a corrupt one, and says so.
func TestCorruptModelRetrained(t *testing.T) {
	dir := t.TempDir()
	const only = "^variant=plain,seed=1$"
	if _, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", only); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "runs", "variant=plain,seed=1", "model.bin")
	good := readFile(t, path)
	bad := bytes.Clone(good)
	bad[len(bad)/2] ^= 1 << 3
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", only, "-set", "eval.k=[5]")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "model.bin: corrupt model file") || !strings.Contains(out, "training it again") {
		t.Errorf("output does not report the corrupt model:\n%s", out)
	}
	now := readFile(t, path)
	if !bytes.Equal(now, good) {
		t.Error("the retrained model differs from the first training's")
	}
}

// TestDivergedMessage: a NaN or infinite loss stops the run with the step, the value and what
// to try, without the graph machine's internal text.
func TestDivergedMessage(t *testing.T) {
	for _, tt := range []struct{ set, try string }{
		{"train.clip=5", `a smaller train.learning_rate \(now 1e\+30\), a smaller train.clip \(now 5\) or a larger loss.temperature \(now 0.1\)`},
		{"train.learning_rate=1e30", `a smaller train.learning_rate \(now 1e\+30\), gradient clipping \(train.clip, e.g. 1\) or a larger loss.temperature \(now 0.1\)`},
		{"loss.temperature=1e-40", `a smaller train.learning_rate \(now 1e\+30\), gradient clipping \(train.clip, e.g. 1\) or a larger loss.temperature \(now 1e-40\)`},
	} {
		re := regexp.MustCompile(`^run variant=logq,seed=1: training diverged at step \d+ \(epoch \d+\): the (loss|gradient norm) is (NaN|[+-]Inf); try ` + tt.try + `$`)
		sets := overrideSets([]string{"train.learning_rate=1e30"}, tt.set)
		_, err := runCommand(t, setArgs(t.TempDir(), "^variant=logq,seed=1$", sets...)...)
		if err == nil || !re.MatchString(err.Error()) {
			t.Errorf("-set %s: error %v, want one matching %s", tt.set, err, re)
		}
	}
}

// TestKilledProcessResumes: the command in another process, killed (SIGKILL, no chance to clean
// up) while it trains (once its progress passes step 25), after its last step (checkpoint,
// curve or model being written, or evaluation), and while it evaluates (once model.bin is
// there), leaves a folder from which the next invocation resumes (training at its last
// checkpoint) and ends with the model.bin of a run never interrupted, byte for byte: a model
// file depends only on the parameters and the run, not on whether its process resumed. The
// state a kill while writing model.bin leaves (a partial temporary file beside the checkpoint)
// is made from the state after a kill during evaluation.
func TestKilledProcessResumes(t *testing.T) {
	args := func(out string) []string {
		return []string{"-config", smokeConfig, "-out", out, "-only", "^variant=plain,seed=2$",
			"-set", "train.checkpoint_every=10", "-set", "train.log_every=5", "-set", "train.log_seconds=1e-9"}
	}
	if out := os.Getenv("WORKBENCH_KILLED_CHILD_OUT"); out != "" {
		if err := Main(args(out), os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	whole := t.TempDir()
	if _, err := runCommand(t, args(whole)...); err != nil {
		t.Fatal(err)
	}
	want := readFile(t, filepath.Join(whole, "runs", "variant=plain,seed=2", "model.bin"))
	for _, tt := range []struct {
		name     string
		line     string // kill once the output shows it ("": once model.bin exists)
		writing  bool   // then make the state of a kill while model.bin is written
		resumeAt string // the step the next invocation resumes after ("": any)
	}{
		{"training", "step 25/112", false, "step 25/112"},
		{"after the last step", "step 112/112", false, ""},
		{"evaluation", "", false, ""},
		{"model writing", "", true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The kill comes at a moment of the child's own timing: a child that finished the run
			// before it was killed is tried again (in a new folder), a few times.
			var cut, runDir, model string
			for try := 0; ; try++ {
				cut = t.TempDir()
				runDir = filepath.Join(cut, "runs", "variant=plain,seed=2")
				model = filepath.Join(runDir, "model.bin")
				var cmd *exec.Cmd
				seen := false
				if tt.line != "" {
					cmd, seen = startChild(t, "TestKilledProcessResumes", "WORKBENCH_KILLED_CHILD_OUT="+cut, tt.line, nil)
				} else {
					cmd, _ = startChild(t, "TestKilledProcessResumes", "WORKBENCH_KILLED_CHILD_OUT="+cut, "step 100/112", nil)
					for deadline := time.Now().Add(time.Minute); !seen && time.Now().Before(deadline); {
						seen = exists(model)
					}
				}
				killed := seen && cmd.Process.Kill() == nil
				cmd.Wait()
				if !killed {
					t.Fatal("the child process ended before the kill point")
				}
				if !exists(filepath.Join(runDir, "metrics.json")) {
					break
				}
				if try == 4 {
					t.Fatal("in 5 tries, the child finished the run before it was killed")
				}
			}
			if tt.writing {
				b := readFile(t, model)
				if err := os.WriteFile(filepath.Join(runDir, ".model.bin.tmp123"), b[:len(b)/2], 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Remove(model); err != nil {
					t.Fatal(err)
				}
			}
			if tt.resumeAt != "" && exists(model) {
				t.Fatal("the killed process saved its model")
			}
			ckpts, _ := filepath.Glob(filepath.Join(runDir, checkpointPrefix+"*"+checkpointSuffix))
			resumable := len(ckpts) == 1
			if tt.resumeAt != "" && !resumable {
				t.Fatal("no checkpoint after the kill during training")
			}
			// A fresh process resumes, as after a restart (this one's history differs).
			resume := exec.Command(os.Args[0], "-test.run=^TestKilledProcessResumes$")
			resume.Env = append(os.Environ(), "WORKBENCH_KILLED_CHILD_OUT="+cut)
			b, err := resume.CombinedOutput()
			out := string(b)
			if err != nil {
				t.Fatalf("the resuming process: %v\n%s", err, out)
			}
			// A kill between the removal of the checkpoint (after evaluation) and the writing of
			// metrics.json leaves nothing to resume from: the run trains again, to the same bytes.
			if resumable && (!strings.Contains(out, "resuming training from") || strings.Contains(out, "step 5/112")) {
				t.Errorf("the run did not resume from its checkpoint:\n%s", out)
			}
			if tt.resumeAt != "" && !strings.Contains(out, tt.resumeAt) {
				t.Errorf("the run did not resume after %s:\n%s", tt.resumeAt, out)
			}
			if got := readFile(t, model); !bytes.Equal(want, got) {
				t.Errorf("model.bin of the resumed run differs from the uninterrupted one (%d and %d bytes)", len(got), len(want))
			}
			if tmps, _ := filepath.Glob(filepath.Join(runDir, ".*.tmp*")); len(tmps) > 0 {
				t.Errorf("temporary files left: %v", tmps)
			}
		})
	}
}

// startChild runs the test named test of this test binary as a child process, with env added to
// its environment, and returns it once its standard output has printed a line containing line
// (seen is false if the output ended first); the rest of its output is discarded. Its standard
// error goes to stderr (nil: discarded). The caller waits for it.
func startChild(t *testing.T, test, env, line string, stderr io.Writer) (cmd *exec.Cmd, seen bool) {
	t.Helper()
	cmd = exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env)
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for !seen && sc.Scan() {
		seen = strings.Contains(sc.Text(), line)
	}
	go io.Copy(io.Discard, stdout)
	return cmd, seen
}

// TestCheckpointCost: a run's checkpoints hold what resume needs and no dense copy of a mostly
// empty sketch: on the smoke config (2^20 sketch buckets, a model.bin of 54 KB) a checkpoint is
// at most the parameters and Adam's two moments (3 × model.bin), the batch order (4 bytes per
// training pair) and 64 KB for the rest (the compressed sketch, the header); it was 5.4 MB. The
// cost (count, size, time) is in the run's metrics.json and its log line.
func TestCheckpointCost(t *testing.T) {
	dir := t.TempDir()
	const id = "variant=logq,seed=1"
	out, err := runCommand(t, "-config", smokeConfig, "-out", dir, "-only", "^"+id+"$")
	if err != nil {
		t.Fatal(err)
	}
	var rec runRecord
	if err := readJSON(filepath.Join(dir, "runs", id, "metrics.json"), &rec); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "runs", id, "model.bin"))
	if err != nil {
		t.Fatal(err)
	}
	c := rec.Train.Checkpoints
	bound := 3*st.Size() + 4*int64(rec.Data.Train) + 64<<10
	if c.Writes != 2 || c.Bytes <= 0 || c.Bytes > bound || c.Seconds <= 0 {
		t.Errorf("checkpoints %+v, want 2 (one per epoch, the last after the last step) of at most %d bytes, taking some time", c, bound)
	}
	line := regexp.MustCompile(regexp.QuoteMeta(id) + `: 2 checkpoints of \d+\.\d KB, \d+\.\d{3} s writing them\n`)
	if !line.MatchString(out) {
		t.Errorf("output does not report the checkpoints' cost:\n%s", out)
	}
}
