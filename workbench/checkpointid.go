package workbench

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// checkpointPath is where the run's training state is saved while it trains (see
// models.TrainResumable), so that a run killed mid-training resumes from its last checkpoint:
// checkpoint-<training hash>.bin in the run's folder. The name carries the training settings the
// checkpoint is of (the run's training hash, Config.trainHash, derived from the `affects`
// declarations like the folder's settings, so that it covers every setting that changes
// training: estimator, sampler, loss options with their resolved defaults, data), so that a
// checkpoint copied from another run, whose name it keeps, is never resumed.
func (r plannedRun) checkpointPath() string {
	return filepath.Join(r.dir, checkpointPrefix+r.trainHash+checkpointSuffix)
}

// The name of a checkpoint is checkpointPrefix, a training hash, checkpointSuffix.
const (
	checkpointPrefix = "checkpoint-"
	checkpointSuffix = ".bin"
)

// checkCheckpoint refuses a run whose folder holds a checkpoint of other training settings
// (another run's, or one that does not say whose it is), naming both identities: training from
// it would give a model of neither run's settings.
func (r plannedRun) checkCheckpoint() error {
	entries, err := os.ReadDir(r.dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		have, ok := strings.CutPrefix(name, checkpointPrefix)
		have, ok2 := strings.CutSuffix(have, checkpointSuffix)
		switch {
		case name == "checkpoint.bin":
			return fmt.Errorf("run %s: %s does not say which training settings it is of (this run's are %s): delete it to train the run from its start",
				r.ID, filepath.Join(r.dir, name), r.trainHash)
		case ok && ok2 && have != r.trainHash:
			return fmt.Errorf("run %s: %s is of training settings %s, this run's are %s: delete it to train the run from its start with these settings",
				r.ID, filepath.Join(r.dir, name), have, r.trainHash)
		}
	}
	return nil
}

// removeCheckpoint removes the run's checkpoint, once the run has finished.
func (r plannedRun) removeCheckpoint() error {
	if err := os.Remove(r.checkpointPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
