package workbench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/samplingbias/workbench/internal/atomicfile"
	"github.com/samplingbias/workbench/internal/schema"
)

// writeAtomic writes path atomically (see package atomicfile), creating its directory.
func writeAtomic(path string, write func(w io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	return atomicfile.Write(path, write)
}

// removeStale removes the temporary files of atomic writes (".name.tmp*") in dir that were last
// modified before since: those of a process killed while writing. A run's folder is cleaned when
// the run starts (the run is this process's, so since is then); the experiment's folder before
// its folder-level files are written, of files older than this invocation, so that another
// process writing there now keeps its own.
func removeStale(dir string, since time.Time) {
	entries, _ := os.ReadDir(dir) // a missing folder has nothing to clean
	for _, e := range entries {
		if ok, _ := filepath.Match(".*.tmp*", e.Name()); !ok || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(since) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// noLinks refuses a run folder dir (out/runs/<id>) when it, or the runs folder holding it, is a
// symbolic link: the workbench writes a run's files only into folders of the results folder
// itself, so that a link (planted by another member of a group sharing the folder, or left by a
// copy) never redirects them, nor makes a run elsewhere look finished here.
func noLinks(dir string) error {
	for _, p := range []string{filepath.Dir(dir), dir} {
		fi, err := os.Lstat(p)
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link: a run's files are written only into folders of the results folder itself; replace the link by a folder", p)
		}
	}
	return nil
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// writeBytes writes b to path atomically.
func writeBytes(path string, b []byte) error {
	return writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// writeJSON writes v to path atomically as indented JSON.
func writeJSON(path string, v any) error {
	return writeAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

// readJSON reads path into v; a missing file is reported with fs.ErrNotExist.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

// settingsFile is the folder's claim: the training settings of the runs it holds.
const settingsFile = "training.settings"

// claimOutput claims out for cfg (see claimFolder, with no ablation axes) and writes the resolved
// config to out/config.toml.
func claimOutput(out string, cfg *Config, w io.Writer) error {
	if err := claimFolder(out, cfg, nil, w); err != nil {
		return err
	}
	return writeFolderConfig(out, cfg)
}

// writeFolderConfig writes the experiment's config to out/config.toml (see encodeFor): a
// folder-level file, written by an unsharded run or the report step. The freq_sim experiment
// writes its resolved config; the retrieval one the config as written with its -set values,
// whose grid it reproduces (each run's resolved config is in the run's folder).
func writeFolderConfig(out string, cfg *Config) error {
	body, err := cfg.encodeFor(out)
	if err != nil {
		return err
	}
	return writeBytes(filepath.Join(out, "config.toml"), body)
}

// folderSettings are the training settings a folder is claimed for: cfg's canonical training
// settings without its ablation axes (each run's own settings are in its record), in a schema
// version's encoding.
type folderSettings struct {
	version int
	axes    []string
	values  map[string]string
	lines   []keyValue
	// cfg is the resolved config the settings are of, nil for those read from a folder.
	cfg *Config
}

// newFolderSettings are cfg's folder settings in the current schema version.
func newFolderSettings(cfg *Config, axes []string) (folderSettings, error) {
	return newFolderSettingsAt(cfg, axes, schemaVersion)
}

// newFolderSettingsAt are cfg's folder settings in schema version.
func newFolderSettingsAt(cfg *Config, axes []string, version int) (folderSettings, error) {
	kvs, err := cfg.canonicalAt(version, affectsTraining)
	if err != nil {
		return folderSettings{}, err
	}
	f := folderSettings{version: version, axes: axes, values: map[string]string{}, cfg: cfg}
	for _, kv := range kvs {
		if !underAxis(kv.Key, axes) {
			f.values[kv.Key] = kv.Value
			f.lines = append(f.lines, kv)
		}
	}
	return f, nil
}

const (
	versionPrefix = "# schema:"
	axesPrefix    = "# axes:"
)

func (f folderSettings) encode() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d\n", versionPrefix, f.version)
	b.WriteString("# The training settings of the runs in this folder, written once by the first process\n")
	b.WriteString("# that used it. A config is refused here when one of its training settings that is not\n")
	b.WriteString("# an ablation axis (of either config) differs; more seeds or grid cells are welcome.\n")
	fmt.Fprintf(&b, "%s %s\n", axesPrefix, strings.Join(f.axes, " "))
	for _, kv := range f.lines {
		fmt.Fprintf(&b, "%s = %s\n", kv.Key, kv.Value)
	}
	return []byte(b.String())
}

// parseFolderSettings reads a training.settings file; one without a version line is of version 1.
func parseFolderSettings(b []byte) folderSettings {
	f := folderSettings{version: 1, values: map[string]string{}}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, versionPrefix); ok {
			if v, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
				f.version = v
			}
			continue
		}
		if rest, ok := strings.CutPrefix(line, axesPrefix); ok {
			f.axes = strings.Fields(rest)
			continue
		}
		if k, v, ok := strings.Cut(line, " = "); ok && !strings.HasPrefix(line, "#") {
			f.values[k] = v
		}
	}
	return f
}

// hashed is f without the settings that the current schema version leaves out of every identity
// (their field's affects tag is "nothing"), which a folder of an earlier version may hold: a
// difference in them does not make the folder another config's.
func (f folderSettings) hashed() folderSettings {
	values := make(map[string]string, len(f.values))
	for k, v := range f.values {
		if affects(configSchema().Affects(k)) != affectsNothing {
			values[k] = v
		}
	}
	f.values = values
	return f
}

// differences lists the settings of f and g that differ, leaving out either one's axes.
func (f folderSettings) differences(g folderSettings) []string {
	out := dataDifferences(f, g)
	for _, k := range f.differingKeys(g) {
		out = append(out, fmt.Sprintf("%s = %s here, %s in the folder", k, f.shown(k), g.shown(k)))
	}
	sort.Strings(out)
	return out
}

// differingKeys lists the settings of f and g that differ, leaving out either one's axes and
// the data's identity (see dataDifferences), sorted.
func (f folderSettings) differingKeys(g folderSettings) []string {
	var out []string
	for _, k := range differingKeys(f.values, g.values) {
		if !underAxis(k, f.axes) && !underAxis(k, g.axes) && k != dataContentKey && k != legacyDataKey {
			out = append(out, k)
		}
	}
	return out
}

// differingKeys lists the keys whose values in a and b differ (a key missing from one of them
// included), sorted.
func differingKeys(a, b map[string]string) []string {
	var out []string
	for k := range a {
		if v, ok := b[k]; !ok || v != a[k] {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// sweptHint says, for the differing settings keys that runs of the folder out have as axes (a
// grid swept them there, with -set or another config), how to select those runs: the folder is
// not another config's for them, the key is an axis there.
func sweptHint(out string, keys []string) string {
	files, _ := filepath.Glob(filepath.Join(out, "runs", "*", "metrics.json"))
	swept := map[string]bool{}
	for _, f := range files {
		var rec runRecord
		if readJSON(f, &rec) != nil {
			continue
		}
		for k := range rec.Axes {
			if slices.Contains(keys, k) {
				swept[k] = true
			}
		}
	}
	if len(swept) == 0 {
		return ""
	}
	var hints []string
	for _, k := range slices.Sorted(maps.Keys(swept)) {
		hints = append(hints, fmt.Sprintf("-set '%s=[value]' (a list: an axis of one value) selects the runs of a value", k))
	}
	return fmt.Sprintf(" (the folder's runs sweep %s as an ablation axis: %s)", strings.Join(slices.Sorted(maps.Keys(swept)), ", "), strings.Join(hints, "; "))
}

// selectionHint says, when some of the differing settings keys are evaluation settings that
// select the model on validation, that they are training settings of these runs, and how to keep
// the folder's value of eval.select_k, whose default follows eval.k.
func selectionHint(keys []string, have folderSettings) string {
	var sel []string
	for _, k := range keys {
		if readBySelection(k) {
			sel = append(sel, k)
		}
	}
	if len(sel) == 0 {
		return ""
	}
	hint := fmt.Sprintf(" (the runs select their model on validation (train.validate_every), which reads %s: a training setting of theirs", strings.Join(sel, ", "))
	if v, ok := have.values["eval.select_k"]; ok && slices.Contains(sel, "eval.select_k") {
		hint += fmt.Sprintf("; eval.select_k is the smallest eval.k unless written: keep %s in eval.k and write eval.select_k = %s to keep the folder's", v, v)
	}
	return hint + ")"
}

// underAxis reports whether the canonical key is one of the axes or inside one (an axis over a
// table or a list of tables).
func underAxis(key string, axes []string) bool {
	for _, a := range axes {
		if key == a || strings.HasPrefix(key, a+".") || strings.HasPrefix(key, a+"[") {
			return true
		}
	}
	return false
}

// shown is the value of the setting k for a refusal: its canonical value, or, where the canonical
// encoding leaves the setting out, what it resolves to (see shownSetting).
func (f folderSettings) shown(k string) string { return shownSetting(f.values, k, f.cfg) }

// shownSetting is the value of the setting k among the canonical settings values of the resolved
// config cfg (nil when they were read from elsewhere): its canonical value, or, where the
// canonical encoding leaves the setting out, what it resolves to (see absent).
func shownSetting(values map[string]string, k string, cfg *Config) string {
	if v, ok := values[k]; ok {
		return v
	}
	return absent(k, cfg)
}

// absent says what the setting k is where the canonical encoding leaves it out, its resolved value
// being its type's zero (see canonicalAt): 0, false or [] as they are, with the meaning the
// field's zero tag declares ("0 (no guard)"), and "the default" for an empty string (a string
// resolves empty only where its default is: eval.filter = "none"), after the value cfg's author
// wrote if they wrote one. Without cfg (the folder's settings), a setting that may be left nil
// (sampler.beta) is "0 or unset". A key that names no value setting (an option of another
// variant, the data's content) is "unset", and so is a setting cfg's resolved value leaves nil.
func absent(k string, cfg *Config) string {
	f, entry := configSchema().Lookup(k)
	if f == nil || entry != nil || f.Kind != schema.KindValue {
		return "unset"
	}
	t := f.Go.Type
	if t.Kind() == reflect.Pointer {
		if cfg == nil {
			return "0 or unset"
		}
		if v, ok := configSchema().Get(reflect.ValueOf(cfg).Elem(), k); !ok || !v.IsValid() {
			return "unset"
		}
		t = t.Elem()
	}
	var shown string
	switch t.Kind() {
	case reflect.String:
		shown = "the default"
		if cfg == nil {
			break
		}
		if x, ok := cfg.written.value(schema.Unindexed(k)); ok && !zeroTOML(x) {
			shown = showTOML(x) + " (the default)"
		}
	case reflect.Slice:
		shown = "[]"
	default:
		shown = literal(reflect.Zero(t))
	}
	if f.Zero != "" {
		shown += " (" + f.Zero + ")"
	}
	return shown
}

func orUnset(v string) string {
	if v == "" {
		return "unset"
	}
	return v
}

// claimFolder makes out the home of the experiment's training settings, atomically: the first
// process to claim an empty folder writes out/training.settings exclusively (see
// createExclusive), so that of two different configs started at the same moment exactly one is
// accepted. A folder claimed for other training settings is refused, naming the settings that
// differ; settings that are ablation axes of either config do not count, so that a grid may gain
// seeds and cells (a change of [eval], [slices] or [plots] alone is allowed too: runs are then
// re-evaluated or figures redrawn).
func claimFolder(out string, cfg *Config, axes []string, w io.Writer) error {
	mine, err := newFolderSettings(cfg, axes)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o777); err != nil {
		return err
	}
	if err := refusePremigration(out); err != nil {
		return err
	}
	if err := refuseForeign(out); err != nil {
		return err
	}
	err = createExclusive(filepath.Join(out, settingsFile), mine.encode())
	if err == nil {
		return nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	return checkFolder(out, cfg, mine, w)
}

// adoptFolder writes the training.settings of a results folder that lost it (deleted by hand),
// when the folder holds finished runs of cfg's grid (runs) that are this config's (their records
// have its axis values and training hashes) and no run of the grid that is another config's:
// the folder is then cfg's, as it was when its runs were written. Otherwise the folder is left
// to claimFolder, which refuses it.
func adoptFolder(cfg *Config, runs []plannedRun, w io.Writer) error {
	if exists(filepath.Join(cfg.Out, settingsFile)) || !exists(filepath.Join(cfg.Out, "runs")) {
		return nil
	}
	mine := 0
	for _, r := range runs {
		rec, err := r.record()
		switch {
		case err != nil || rec == nil:
			continue
		case rec.TrainHash != r.trainHash || !maps.Equal(rec.Axes, r.axes()):
			return nil
		}
		mine++
	}
	if mine == 0 {
		return nil
	}
	settings, err := newFolderSettings(cfg, axisKeyList(cfg.Ablation))
	if err != nil {
		return err
	}
	if err := createExclusive(filepath.Join(cfg.Out, settingsFile), settings.encode()); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	fmt.Fprintf(w, "%s had no %s: written again from the %d finished runs of this config it holds\n", cfg.Out, settingsFile, mine)
	return nil
}

// folderGrid compares this command's grid runs with the grid of the folder's config.toml, the
// grid its metrics.csv, summary.md and figures report. When every run of this grid is one of the
// folder's and the folder's has more (a -set narrowed an axis, or the config is a run's own
// config.toml), keep says that the folder's report is kept rather than replaced by one of fewer
// runs. When this grid has runs of its own but lacks some of the folder's (a new axis renames
// every run), note says that the report is replaced and which runs it leaves out. Both are ""
// when this grid has every run of the folder's, or the folder has no config.toml yet. -report
// writes the report of its grid whatever the folder's.
func folderGrid(out string, runs []plannedRun) (keep, note string) {
	path := filepath.Join(out, "config.toml")
	if !exists(path) {
		return "", ""
	}
	raw, cfg, err := loadConfig(path, nil)
	if err != nil {
		return "", "" // not a config of this version: replaced by this grid's
	}
	raw.Out, cfg.Out = out, out
	theirs, err := plan(raw, cfg)
	if err != nil {
		return "", ""
	}
	have, mine := map[string]bool{}, map[string]bool{}
	for _, r := range theirs {
		have[r.ID] = true
	}
	own := 0
	for _, r := range runs {
		mine[r.ID] = true
		if !have[r.ID] {
			own++
		}
	}
	var missing []string
	for _, r := range theirs {
		if !mine[r.ID] {
			missing = append(missing, r.ID)
		}
	}
	switch {
	case len(missing) == 0:
		return "", ""
	case own == 0:
		return fmt.Sprintf("%s's config.toml, metrics.csv, summary.md and figures report a grid of %s, %d of which this grid of %s lacks: kept as they are (run with -report to write this grid's instead)",
			out, plural(len(theirs), "run"), len(missing), plural(len(runs), "run")), ""
	}
	n := len(missing)
	if n > 3 {
		missing = append(missing[:3], "…")
	}
	return "", fmt.Sprintf("%s's report is now of this grid of %s; %s of its previous report that this grid lacks stay in runs/ (%s)",
		out, plural(len(runs), "run"), plural(n, "run"), strings.Join(missing, ", "))
}

// refuseForeign refuses a folder that holds files but no training.settings: files the
// workbench did not write (a folder claimed by a process writes training.settings before any
// other file, so that a listing showing that process's files shows its claim too).
func refuseForeign(out string) error {
	entries, err := os.ReadDir(out)
	if err != nil {
		return err
	}
	var foreign []string
	for _, e := range entries {
		switch name := e.Name(); {
		case name == settingsFile:
			return nil
		case strings.HasPrefix(name, "."+settingsFile+".tmp"): // a claim being written
		default:
			foreign = append(foreign, name)
		}
	}
	if len(foreign) > 0 {
		hint := ""
		if slices.Contains(foreign, "runs") {
			hint = fmt.Sprintf(" (a results folder whose %s was deleted is taken back by a config of which it holds finished runs, and none of another config)", settingsFile)
		}
		if len(foreign) > 3 {
			foreign = append(foreign[:3], "…")
		}
		return fmt.Errorf("%s is not a results folder of the workbench (it holds %s and no %s): choose another -out, or an empty or new folder%s",
			out, strings.Join(foreign, ", "), settingsFile, hint)
	}
	return nil
}

// checkFolder compares mine, cfg's settings, with the settings out is claimed for, after
// migrating a folder of an earlier schema version (see migrateFolder; it says so on w).
func checkFolder(out string, cfg *Config, mine folderSettings, w io.Writer) error {
	path := filepath.Join(out, settingsFile)
	var b []byte
	var err error
	// Without hard links, the claim's content follows its creation: wait for it briefly.
	for try := 0; try < 50; try++ {
		if b, err = os.ReadFile(path); err != nil || len(b) > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no experiment has run in this folder (it has no %s)", out, settingsFile)
	}
	if err != nil {
		return err
	}
	have := parseFolderSettings(b)
	switch {
	case have.version > schemaVersion:
		return fmt.Errorf("%s is of schema version %d, written by a later version of the workbench than this one (%d): use that version, or another -out",
			path, have.version, schemaVersion)
	case have.version < schemaVersion:
		return migrateFolder(out, cfg, mine.axes, have, w)
	}
	if diff := mine.differences(have); len(diff) > 0 {
		keys := mine.differingKeys(have)
		return fmt.Errorf("%s holds the results of a different config (training settings %s): %s; choose another -out or remove the folder%s%s",
			out, path, strings.Join(diff, "; "), sweptHint(out, keys), selectionHint(keys, have))
	}
	return nil
}
