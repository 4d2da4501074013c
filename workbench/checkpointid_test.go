package workbench

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestCheckpointOfOtherSettingsRefused: a run killed mid-training leaves a checkpoint; run again
// with an estimator setting changed (a section the models package's own identity does not
// cover), the checkpoint is refused naming both training identities, while the unchanged
// config resumes from it.
func TestCheckpointOfOtherSettingsRefused(t *testing.T) {
	sets := []string{"loss.variant=logq", "seeds=[1]", "train.checkpoint_every=10", "train.log_every=5", "train.log_seconds=1e-9"}
	out := t.TempDir()
	load := func(extra ...string) plannedRun {
		t.Helper()
		raw, cfg, err := loadConfig(smokeConfig, append(append([]string(nil), sets...), extra...))
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
