package workbench

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/samplingbias/workbench/samplers"
)

// schemaVersion is the version of the identities a results folder holds: the canonical encoding
// behind its training.settings, its runs' config and training hashes (metrics.json), their
// ids and their checkpoints' names. training.settings states it ("# schema: N"); a folder of an
// earlier version is migrated to this one once, by the first command that uses it (see
// migrateFolder), and never read in an earlier version's terms again. The versions:
//
//  1. training.settings without a version line. The canonical encoding named the sampler's kind
//     and negatives by the keys they had before the [sampler] section (loss.sampler,
//     loss.negatives) and left out sampler.kind = "full" and the default declaration
//     (declare = "law"); a run could be held under the id of an earlier version (keys by their
//     last component unless two axes shared it, empty values kept); a checkpoint was
//     checkpoint.bin beside checkpoint.identity, which named its training hash.
//  2. training.settings begins with its version; the encoding names every key as the config
//     does; a run is under its id; a checkpoint's name carries its training hash
//     (checkpoint-<hash>.bin).
//  3. a leaf setting is governed by its own field's affects tag where it has one, rather than
//     by its section's: train.log_seconds, eval.log_seconds and eval.workers (how often progress
//     prints, how many goroutines evaluate) are in no identity, so that changing them, or
//     evaluating on a machine of another number of cores (eval.workers defaults to it), neither
//     refuses a folder nor trains or evaluates a run again.
//
// A folder written before training.settings existed (its config.toml began with a TOML hash),
// or whose data were identified by location and modification times rather than content, cannot
// be migrated: its identities cannot be recomputed, and it is refused, naming why.
const schemaVersion = 3

// version1Keys writes canonical lines as schema version 1 did: the sampler's kind and negatives
// under loss.sampler and loss.negatives, without sampler.kind = "full" and without the default
// declarations.
func version1Keys(kvs []keyValue) []keyValue {
	out := make([]keyValue, 0, len(kvs))
	for _, kv := range kvs {
		switch {
		case kv.Key == "sampler.kind" && kv.Value == strconv.Quote(string(samplers.KindFull)):
			continue
		case strings.HasPrefix(kv.Key, "sampler.") && strings.HasSuffix(kv.Key, ".declare") &&
			kv.Value == strconv.Quote(string(samplers.DeclareLaw)):
			continue
		case kv.Key == "sampler.kind":
			kv.Key = "loss.sampler"
		case kv.Key == "sampler.negatives":
			kv.Key = "loss.negatives"
		}
		out = append(out, kv)
	}
	return out
}

// tomlHashPrefix began the config.toml of results folders written before training.settings
// existed, whose hashes were of a TOML encoding that nothing can recompute.
const tomlHashPrefix = "# workbench training hash: "

// refusePremigration refuses a folder written before training.settings existed.
func refusePremigration(out string) error {
	if _, err := os.Stat(filepath.Join(out, settingsFile)); err == nil {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(out, "config.toml"))
	if err == nil && strings.HasPrefix(string(b), tomlHashPrefix) {
		return fmt.Errorf("%s holds the results of an early version of the workbench, whose config hashes cannot be recomputed: choose another -out or remove the folder", out)
	}
	return nil
}

// migrateFolder brings the results folder out, whose settings have (read from its
// training.settings) are of an earlier schema version, to schemaVersion, for the config cfg with
// ablation axes axes, and says what it did on w. The folder's settings must be cfg's in the
// folder's version, leaving out those the current version hashes nowhere (else the folder is
// another config's, and is refused as checkFolder refuses one); then every run in runs/ is
// re-identified from its own config.toml: its record's hashes, its folder's name (its id) and
// its checkpoint's name are rewritten in the current version where the run's config gives, in
// the folder's version, the hashes the record holds. A run whose config does not (edited or
// damaged) is left as it is: it is not finished for any config, and -force trains it again. training.settings is rewritten last, so that a migration
// stopped half-way is done again (each step is idempotent).
func migrateFolder(out string, cfg *Config, axes []string, have folderSettings, w io.Writer) error {
	mine, err := newFolderSettingsAt(cfg, axes, have.version)
	if err != nil {
		return err
	}
	if diff := mine.hashed().differences(have.hashed()); len(diff) > 0 {
		return fmt.Errorf("%s holds the results of a different config (training settings %s, schema version %d): %s; choose another -out or remove the folder",
			out, filepath.Join(out, settingsFile), have.version, strings.Join(diff, "; "))
	}
	entries, err := os.ReadDir(filepath.Join(out, "runs"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var migrated, renamed int
	var left []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name, why, err := migrateRun(filepath.Join(out, "runs"), e.Name(), have, cfg.Data.Path)
		switch {
		case err != nil:
			return fmt.Errorf("migrating %s: %w", filepath.Join(out, "runs", e.Name()), err)
		case why != "":
			left = append(left, e.Name()+" ("+why+")")
		default:
			migrated++
			if name != e.Name() {
				renamed++
			}
		}
	}
	current, err := newFolderSettings(cfg, axes)
	if err != nil {
		return err
	}
	current.axes = have.axes
	if err := writeBytes(filepath.Join(out, settingsFile), current.encode()); err != nil {
		return err
	}
	fmt.Fprintf(w, "migrated %s from schema version %d to %d: %d runs re-identified (%d renamed to their ids)", out, have.version, schemaVersion, migrated, renamed)
	if len(left) > 0 {
		fmt.Fprintf(w, "; left as they were, not finished for any config: %s", strings.Join(left, ", "))
	}
	fmt.Fprintln(w)
	return nil
}

// migrateRun migrates the run in runs/dir of a folder of settings have (see migrateFolder). It
// returns the run's folder name after the migration, or why the run was left as it was.
//
// A run's config.toml names its data relative to the run's folder. In a folder moved away from
// its data it names nothing, and the data of the config migrating the folder, data (a path,
// "" for none), stand in for them: the run's hashes, of the data's content, then say whether
// they are the run's data.
func migrateRun(runs, dir string, have folderSettings, data string) (name, why string, err error) {
	path := filepath.Join(runs, dir)
	one, why := runConfig(path, nil)
	if why != "" && data != "" {
		if c, w := runConfig(path, []string{pathKey + "=" + strconv.Quote(data)}); w == "" {
			one, why = c, ""
		}
	}
	if why != "" {
		return dir, why, nil
	}
	oldTrain, err := one.hashAt(have.version, affectsTraining, affectsGrid)
	if err != nil {
		return dir, fmt.Sprintf("its training settings cannot be identified: %v", err), nil
	}
	oldHash, err := one.hashAt(have.version, affectsTraining, affectsEvaluation, affectsGrid)
	if err != nil {
		return "", "", err
	}
	train, err := one.trainHash()
	if err != nil {
		return "", "", err
	}
	hash, err := one.hash()
	if err != nil {
		return "", "", err
	}
	if err := migrateCheckpoint(path, oldTrain, train); err != nil {
		return "", "", err
	}
	var rec runRecord
	switch err := readJSON(filepath.Join(path, "metrics.json"), &rec); {
	case errors.Is(err, fs.ErrNotExist):
		return dir, "", nil // not finished: its checkpoint, if any, is migrated
	case err != nil:
		return dir, "its metrics.json is unreadable", nil
	case rec.TrainHash != oldTrain && rec.TrainHash != train:
		return dir, "its metrics.json is of other training settings than its config.toml", nil
	}
	rec.TrainHash = train
	if rec.ConfigHash == oldHash {
		rec.ConfigHash = hash
	}
	id, group := recordID(rec, have.axes)
	rec.ID, rec.Group = id, group
	if err := writeJSON(filepath.Join(path, "metrics.json"), &rec); err != nil {
		return "", "", err
	}
	if id == dir {
		return dir, "", nil
	}
	switch _, err := os.Lstat(filepath.Join(runs, id)); {
	case err == nil:
		return dir, "a run of its id " + id + " is there too", nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", "", err
	}
	if err := os.Rename(path, filepath.Join(runs, id)); err != nil {
		return "", "", err
	}
	return id, "", nil
}

// runConfig is the resolved config of the run in folder path, from its config.toml with sets
// (-set values), or why it is none.
func runConfig(path string, sets []string) (*Config, string) {
	raw, cfg, err := loadConfig(filepath.Join(path, "config.toml"), sets)
	if err != nil {
		return nil, fmt.Sprintf("its config.toml does not load: %v", err)
	}
	planned, err := plan(raw, cfg)
	if err != nil || len(planned) != 1 {
		return nil, fmt.Sprintf("its config.toml is no run's: %v", err)
	}
	return planned[0].cfg, ""
}

// migrateCheckpoint renames the checkpoint of version 1 in the run folder path, checkpoint.bin
// beside checkpoint.identity naming the training hash oldTrain, to the name of the current
// version, of training hash train. A checkpoint of other settings is left: training refuses it.
func migrateCheckpoint(path, oldTrain, train string) error {
	id := filepath.Join(path, "checkpoint.identity")
	b, err := os.ReadFile(id)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if strings.TrimSpace(string(b)) != oldTrain {
		return nil
	}
	old := filepath.Join(path, "checkpoint.bin")
	if exists(old) {
		if err := os.Rename(old, filepath.Join(path, checkpointPrefix+train+checkpointSuffix)); err != nil {
			return err
		}
	}
	return os.Remove(id)
}

// recordID is the id and group a run's record gives it in the current version: its axis
// values, in the order of the folder's axes (then the others, sorted), named as the grid names
// them (see runID).
func recordID(rec runRecord, axes []string) (id, group string) {
	var keys []string
	for _, k := range axes {
		if _, ok := rec.Axes[k]; ok {
			keys = append(keys, k)
		}
	}
	var rest []string
	for k := range rec.Axes {
		if !slices.Contains(keys, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	keys = append(keys, rest...)
	group = runID(idNames(keys), keys, rec.Axes)
	return withSeed(group, rec.Seed), group
}
