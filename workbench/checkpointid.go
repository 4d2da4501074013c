package workbench

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// checkpointIdentityPath is the file beside the run's checkpoint that names the training
// settings the checkpoint is for: the run's training hash (Config.trainHash), derived from the
// `affects` declarations like the folder guard's settings, so that it covers every setting that
// changes training (estimator, sampler, loss options with their resolved defaults, data), not
// only those the models package knows of.
func (r plannedRun) checkpointIdentityPath() string {
	return filepath.Join(r.dir, "checkpoint.identity")
}

// checkCheckpoint refuses a checkpoint in the run's folder that is not of this run's training
// settings, naming both identities; when there is none, it records the identity of the
// checkpoints training is about to write.
func (r plannedRun) checkCheckpoint() error {
	b, err := os.ReadFile(r.checkpointIdentityPath())
	switch {
	case !exists(r.checkpointPath()):
		return writeBytes(r.checkpointIdentityPath(), []byte(r.trainHash+"\n"))
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("run %s: %s does not say which training settings it is of (this run's are %s): delete it to train the run from its start",
			r.ID, r.checkpointPath(), r.trainHash)
	case err != nil:
		return err
	}
	if have := strings.TrimSpace(string(b)); have != r.trainHash {
		return fmt.Errorf("run %s: %s is of training settings %s, this run's are %s: delete it to train the run from its start with these settings",
			r.ID, r.checkpointPath(), have, r.trainHash)
	}
	return nil
}

// removeCheckpoint removes the run's checkpoint and its identity, once the run has finished.
func (r plannedRun) removeCheckpoint() error {
	for _, p := range []string{r.checkpointPath(), r.checkpointIdentityPath()} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
