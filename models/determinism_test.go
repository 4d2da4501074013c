package models

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"gorgonia.org/tensor"

	"github.com/samplingbias/workbench/losses"
)

// modelBytesChild is the environment variable that makes TestModelBytesChild act: "fresh" trains
// the run of modelBytesRun and saves it, "resumed" resumes the run from the checkpoint written
// after its last step, in a process that has read a checkpoint and written none, and saves it.
const modelBytesChild = "MODELS_TEST_MODEL_BYTES"

// modelBytesRun trains the small run of TestModelBytesIndependentOfProcess, resuming from ck
// when it is not empty, and saves it to path.
func modelBytesRun(t *testing.T, ck, path string) {
	t.Helper()
	ds := idDataset(200, 100, 1000, 7)
	m := must(New(Settings{EmbeddingDim: 8, Hidden: []int{16, 8}}, ds, tensor.Float32, 1))
	ts := TrainSettings{BatchSize: 50, Steps: 3, LogEvery: 1}
	if ck != "" {
		ts.CheckpointEvery = 1
	}
	ls := losses.Settings{Variant: losses.VariantPlain}
	if _, err := TrainResumable(context.Background(), m, ds, nil, ls, uniformSampler(8), ts, 5, ck, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
}

// TestModelBytesChild is the child process of TestModelBytesIndependentOfProcess; without its
// environment variable it does nothing.
func TestModelBytesChild(t *testing.T) {
	dir := os.Getenv(modelBytesChild + "_DIR")
	switch os.Getenv(modelBytesChild) {
	case "fresh":
		modelBytesRun(t, "", filepath.Join(dir, "fresh.bin"))
	case "resumed":
		modelBytesRun(t, filepath.Join(dir, "checkpoint.bin"), filepath.Join(dir, "resumed.bin"))
	}
}

// TestModelBytesIndependentOfProcess: a model file's bytes depend only on the model, not on what
// the process did before writing it. A run saved by a process that trained it from the start,
// and by one that only resumed it from the checkpoint written after its last step (so that it
// read a checkpoint before anything else), give the same bytes. (With gob headers they did not:
// gob numbers types in the order a process first meets them, and writes those numbers.)
func TestModelBytesIndependentOfProcess(t *testing.T) {
	if os.Getenv(modelBytesChild) != "" {
		return
	}
	dir := t.TempDir()
	modelBytesRun(t, filepath.Join(dir, "checkpoint.bin"), filepath.Join(dir, "parent.bin"))
	for _, mode := range []string{"fresh", "resumed"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestModelBytesChild$")
		cmd.Env = append(os.Environ(), modelBytesChild+"="+mode, modelBytesChild+"_DIR="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s child: %v\n%s", mode, err, out)
		}
	}
	parent, err := os.ReadFile(filepath.Join(dir, "parent.bin"))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"fresh", "resumed"} {
		b, err := os.ReadFile(filepath.Join(dir, mode+".bin"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, parent) {
			t.Errorf("the model saved by the %s process differs from the parent's (%d and %d bytes)", mode, len(b), len(parent))
		}
	}
}
