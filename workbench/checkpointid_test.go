package workbench

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// checkpointedRun is the logq run of the smoke config at seed 1, with a checkpoint every 10 steps
// and a progress line every 5, in the results folder out, with the overrides extra.
func checkpointedRun(t *testing.T, out string, extra ...string) plannedRun {
	t.Helper()
	sets := []string{"loss.variant=logq", "seeds=[1]", "train.checkpoint_every=10", "train.log_every=5", "train.log_seconds=1e-9"}
	raw, cfg, err := loadConfig(smokeConfig, append(sets, extra...))
	if err != nil {
		t.Fatal(err)
	}
	raw.Out, cfg.Out = out, out
	runs, err := plan(raw, cfg)
	if err != nil || len(runs) != 1 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	return runs[0]
}

// TestCheckpointOfOtherSettingsRefused: a run killed mid-training leaves a checkpoint; run again
// with an estimator setting changed (a section the models package's own identity does not
// cover), the checkpoint is refused naming both training identities, while the unchanged
// config resumes from it.
func TestCheckpointOfOtherSettingsRefused(t *testing.T) {
	out := t.TempDir()
	load := func(extra ...string) plannedRun { return checkpointedRun(t, out, extra...) }
	r := load()
	cache := &dataCache{sets: map[string]*cachedData{}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := runOne(ctx, r, nil, cache, &cancelAt{mark: "step 25/112", cancel: cancel}); !errors.Is(err, context.Canceled) {
		t.Fatalf("killed run: error %v, want context.Canceled", err)
	}
	other := load("estimator.alpha=0.05")
	if other.trainHash == r.trainHash {
		t.Fatal("estimator.alpha does not change the training hash")
	}
	_, err := runOne(context.Background(), other, nil, cache, &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "is of training settings "+r.trainHash+", this run's are "+other.trainHash) {
		t.Fatalf("error %v, want the checkpoint refused naming %s and %s", err, r.trainHash, other.trainHash)
	}
	var progress strings.Builder
	if _, err := runOne(context.Background(), r, nil, cache, &progress); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(progress.String(), "resuming training from") {
		t.Errorf("the unchanged run did not resume:\n%s", progress.String())
	}
	if exists(r.checkpointPath()) {
		t.Error("the finished run's checkpoint is still there")
	}
}
