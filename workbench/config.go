package workbench

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/samplingbias/workbench/candidates"
	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/estimators"
	"github.com/samplingbias/workbench/estimators/freqsim"
	"github.com/samplingbias/workbench/internal/schema"
	isetting "github.com/samplingbias/workbench/internal/setting"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/models"
	"github.com/samplingbias/workbench/plots"
	"github.com/samplingbias/workbench/report"
	"github.com/samplingbias/workbench/samplers"
)

// Experiment is the kind of an experiment, the top-level key experiment.
type Experiment string

// Experiment kinds. The table experiments declares each one with the sections it reads.
const (
	// ExperimentRetrieval trains two-tower models and evaluates Recall@K by slice.
	ExperimentRetrieval Experiment = "retrieval"
	// ExperimentFreqSim is Yi et al.'s section 6 frequency-estimation simulation.
	ExperimentFreqSim Experiment = "freq_sim"
)

func experimentNames() []Experiment {
	return isetting.Column(experiments, func(e experimentDef) Experiment { return e.name })
}

// UnmarshalText sets e from its name; an unknown name is an error that lists the allowed ones.
func (e *Experiment) UnmarshalText(b []byte) error {
	return isetting.Unmarshal(e, b, experimentNames())
}

// Config is one experiment: a TOML file with the sections below. Every section's zero value works;
// the comments of each section's settings type state its defaults. An absent key takes its
// default; a key written with its zero value ("", 0, false, []) where the default would replace
// it is an error naming the key (see checkWritten), in the file, in -set and in ablation values.
// The `affects` tag of each field declares what a change of it changes (training, evaluation,
// figures, the grid's runs, or nothing): the hashes that identify runs and results folders are
// built from it (see Config.canonical).
type Config struct {
	// Experiment is one of the Experiment constants; default ExperimentRetrieval.
	Experiment Experiment `toml:"experiment" affects:"training"`
	// Out is the output directory, relative to the working directory (a data path is relative
	// to the config file); default "results/<config file name without .toml>".
	Out string `toml:"out" affects:"nothing"`
	// Seeds repeats every cell of the grid once per seed (model initialisation, batch order,
	// sampled negatives, estimator hashes, bootstrap); default [1].
	Seeds []int64 `toml:"seeds" affects:"grid"`
	// DataSeed seeds the train/test split and synthetic data; default 0. It is the same for every
	// run, so that all runs are evaluated on the same test pairs and the spread across seeds is
	// that of training alone.
	DataSeed int64 `toml:"data_seed" affects:"training"`

	Data      datasets.Settings     `toml:"data" affects:"training"`
	Slices    metrics.SliceSettings `toml:"slices" affects:"evaluation"`
	Model     models.Settings       `toml:"model" affects:"training"`
	Train     models.TrainSettings  `toml:"train" affects:"training"`
	Estimator estimators.Settings   `toml:"estimator" affects:"training"`
	Loss      losses.Settings       `toml:"loss" affects:"training"`
	Sampler   samplers.Settings     `toml:"sampler" affects:"training"`
	Eval      metrics.Settings      `toml:"eval" affects:"evaluation"`
	Plots     plots.Settings        `toml:"plots" affects:"figures"`
	Report    report.Settings       `toml:"report" affects:"figures"`
	FreqSim   freqsim.Settings      `toml:"freq_sim" affects:"training"`

	// Ablation lists the axes of the grid; the grid is their cartesian product. An axis is over
	// a run setting: a key of the sections data, slices, model, train, estimator, loss, sampler or eval.
	Ablation []Axis `toml:"ablation" affects:"grid"`

	// written is what the config file, the -set flags and a run's axis values wrote, and where
	// (see checkWritten).
	written *written `affects:"nothing"`
	// fileAxes are the ablation axes as the file writes them, before -set narrowed or replaced
	// any.
	fileAxes []Axis `affects:"nothing"`
	// geometry is the resolved sampler's geometry, which resolveSampler sets and the loss is
	// resolved for.
	geometry candidates.Geometry `affects:"nothing"`
	// pathAxisDir is the directory of the config file whose ablation axis writes the values of
	// data.path, which are relative to it as a data.path the file writes is; "" when no axis of
	// the file does, or a -set wrote the axis (its values are relative to the working directory).
	pathAxisDir string `affects:"nothing"`
}

// Axis is one [[ablation]] entry: either one key with a list of values, or several keys zipped
// together (values is then a list of tuples, one value per key), e.g. each loss with its own
// tuned temperature.
type Axis struct {
	// Key is the dotted key of a run setting the axis sweeps, e.g. "loss.variant".
	Key string `toml:"key"`
	// Keys, instead of Key, are several keys whose values move together.
	Keys []string `toml:"keys"`
	// Values are the axis' values: one per cell with Key, one tuple per cell with Keys. A value
	// of a key whose setting is a table, or a list of tables, is an inline table or a list of
	// them (sampler.of: [{ kind = "uniform", negatives = 64 }, ...]), checked as strictly as the
	// section it stands for.
	Values []any `toml:"values"`
}

// names are the keys the axis sweeps: Key, then Keys (an axis writes one or the other).
func (a Axis) names() []string {
	if a.Key == "" {
		return a.Keys
	}
	return append([]string{a.Key}, a.Keys...)
}

// sweeps reports whether the axis sweeps key, alone or zipped with others.
func (a Axis) sweeps(key string) bool { return slices.Contains(a.names(), key) }

// field is the axis' field that errors about its keys name: key, or keys.
func (a Axis) field() string {
	if a.Key != "" {
		return "key"
	}
	return "keys"
}

// experimentDef declares an experiment kind: its name and the config sections it reads.
type experimentDef struct {
	name     Experiment
	sections []string
}

// experiments is the one place an experiment kind is declared: its name and the config sections
// it reads; a section of another kind in a config is an error rather than an option silently
// ignored.
var experiments = []experimentDef{
	{ExperimentRetrieval, []string{"data", "slices", "model", "train", "estimator", "loss", "sampler", "eval", "plots", "report", "ablation"}},
	{ExperimentFreqSim, []string{"freq_sim", "plots"}},
}

// loadConfig reads path strictly and applies the -set overrides. It returns the config as written
// (defaults not yet filled: each run of the grid resolves its own copy after its axis values are
// set, so that a default never stands in for an unset key) and the resolved config of the whole
// experiment, which validates every section.
func loadConfig(path string, sets []string) (raw, resolved *Config, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return parseConfig(path, data, sets)
}

// pathKey is the key of the data's path, relative to the config file that writes it.
const pathKey = "data.path"

// splitSet splits a -set flag's key=value at the first "=", the key trimmed of spaces.
func splitSet(s string) (key, value string, ok bool) {
	k, v, ok := strings.Cut(s, "=")
	return strings.TrimSpace(k), v, ok
}

// parseConfig is loadConfig of the file path whose content is data.
func parseConfig(path string, data []byte, sets []string) (raw, resolved *Config, err error) {
	var cfg Config
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		return nil, nil, tomlError(path, data, err)
	}
	src := newSource(path, data)
	if err := undecoded(md, src); err != nil {
		return nil, nil, err
	}
	w := &written{src: src}
	if _, err := toml.Decode(string(data), &w.tree); err != nil {
		return nil, nil, tomlError(path, data, err)
	}
	cfg.written = w
	// A data path written in a config file is relative to the file, so that a config runs from
	// any working directory; one given with -set is relative to the working directory.
	if p := cfg.Data.Path; p != "" && !filepath.IsAbs(p) {
		cfg.Data.Path = filepath.Join(filepath.Dir(path), p)
	}
	cfg.fileAxes = slices.Clone(cfg.Ablation)
	file, err := cfg.clone() // the config as the file writes it, before -set
	if err != nil {
		return nil, nil, err
	}
	if slices.ContainsFunc(cfg.Ablation, func(a Axis) bool { return a.sweeps(pathKey) }) {
		cfg.pathAxisDir = filepath.Dir(path)
	}
	for _, s := range sets {
		key, v, ok := splitSet(s)
		if !ok || key == "" {
			return nil, nil, fmt.Errorf("-set %s: want section.key=value", s)
		}
		x, isTOML := parseValue(v)
		if t := strings.TrimSpace(v); !isTOML && (strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{")) {
			return nil, nil, fmt.Errorf("-set %s: %s is not a TOML list or table (quote the strings in it: [\"a\", \"b\"])", s, t)
		}
		axis, err := setAxis(&cfg, key, x)
		if err == nil && !axis {
			err = assign(&cfg, key, x)
		}
		if axis && key == pathKey && !slices.ContainsFunc(cfg.fileAxes, func(a Axis) bool { return slices.Contains(a.Keys, pathKey) }) {
			cfg.pathAxisDir = "" // the -set's values replace the file's (a zipped axis keeps the file's tuples)
		}
		if te := (*schema.TypeError)(nil); err != nil && !isTOML && errors.As(err, &te) && te.Got == "string" {
			err = fmt.Errorf("%w (%s is not a TOML value, so it was read as a string: write a list as [a, b] and a string in quotes)", err, strings.TrimSpace(v))
		}
		if err != nil {
			return nil, nil, fmt.Errorf("-set %s: %w", s, err)
		}
		if !axis {
			w.add(key, x, "set", s)
		} else {
			if w.axisSets == nil {
				w.axisSets = map[string]string{}
			}
			w.axisSets[key] = s
		}
	}
	resolved, err = cfg.clone()
	if err != nil {
		return nil, nil, err
	}
	if resolved.Out == "" {
		resolved.Out = filepath.Join("results", strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	}
	if err := setFirstCell(resolved); err != nil {
		return nil, nil, err
	}
	if err := resolved.resolve(md); err != nil {
		return nil, nil, w.located(err, resolved)
	}
	if err := checkWritten(w, resolved); err != nil {
		return nil, nil, w.located(err, resolved)
	}
	if resolved.Experiment == ExperimentRetrieval {
		if err := checkVariantTables(file, &cfg); err != nil {
			return nil, nil, w.located(err, resolved)
		}
	}
	cfg.Out = resolved.Out
	return &cfg, resolved, nil
}

// checkVariantTables rejects a table of a registered variant's options ([loss.options.<variant>])
// that no run of cfg's grid trains, whose values would be ignored: one error naming the table, or
// the first key a -set wrote in it, and the variants the grid trains. A table the file wrote for
// a variant of its own grid (file, the config before -set), which -set flags took out of it, is
// left out of cfg instead: the file is right, and the folder's config.toml then has the runs'
// tables only.
func checkVariantTables(file, cfg *Config) error {
	runs, ok := gridVariants(cfg)
	if !ok {
		return nil // an axis that does not expand or set: the runs' resolving reports it
	}
	fileRuns, _ := gridVariants(file)
	for _, v := range cfg.Loss.VariantTables() {
		if slices.Contains(runs, v) {
			continue
		}
		key := "loss.options." + string(v)
		set := cfg.written.setUnder(key)
		if set == "" && slices.Contains(fileRuns, v) {
			delete(cfg.Loss.Options, string(v))
			continue
		}
		names := isetting.Names(runs)
		return fmt.Errorf("%s: for variant %s, which no run of the grid trains (its runs train %s)", cmp.Or(set, key), v, strings.Join(names, ", "))
	}
	return nil
}

// gridVariants lists the loss variants the runs of c's grid train, in the grid's order: an axis'
// value, else c's loss.variant, else the default. ok is false when an axis does not expand or a
// value of it does not set, which resolving the runs reports.
func gridVariants(c *Config) (variants []losses.Variant, ok bool) {
	cells, err := expand(c.Ablation, []int64{0})
	if err != nil {
		return nil, false
	}
	for _, cell := range cells {
		rc, err := c.clone()
		if err != nil {
			return nil, false
		}
		for _, s := range cell.Settings {
			if assign(rc, s.Key, s.Value) != nil {
				return nil, false
			}
		}
		if v := cmp.Or(rc.Loss.Variant, losses.DefaultVariant); !slices.Contains(variants, v) {
			variants = append(variants, v)
		}
	}
	return variants, true
}

// showValue writes a setting's value as in a TOML file.
func showValue(v reflect.Value) string {
	switch v.Kind() {
	case reflect.String:
		return strconv.Quote(v.String())
	case reflect.Slice:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = showValue(v.Index(i))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case reflect.Interface, reflect.Pointer:
		if !v.IsNil() {
			return showValue(v.Elem())
		}
	}
	return fmt.Sprint(v.Interface())
}

// tomlError names the file (and line and column, for syntax errors and unknown enum names) of
// a TOML decoding error of the file content data.
func tomlError(path string, data []byte, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := pe.Message
		if pe.LastKey != "" && strings.HasPrefix(msg, isetting.UnknownPrefix) {
			msg = pe.LastKey + ": " + msg // an enum's UnmarshalText does not know its key
		}
		line, col := pe.Position.Line, pe.Position.Col
		if strings.Contains(msg, "to end table name") {
			// The decoder stops at the end of the line of an unclosed [table header: report that line.
			lines := strings.Split(string(data), "\n")
			for i := min(line, len(lines)) - 1; i >= 0; i-- {
				if t := strings.TrimSpace(lines[i]); strings.HasPrefix(t, "[") {
					line, col = i+1, len(strings.TrimRight(lines[i], " \t\r"))+1
					break
				}
			}
		}
		return fmt.Errorf("%s:%d:%d: %s", path, line, col, msg)
	}
	// A value of the wrong type: "toml: line N (last key "k"): incompatible types: …".
	if m := typeError.FindStringSubmatch(err.Error()); m != nil {
		key, msg := m[2], m[3]
		switch t := typeNames.FindStringSubmatch(msg); {
		case strings.Contains(msg, "TOML value has type map[string]any; destination has type slice"):
			msg = fmt.Sprintf("a list of tables, written as a table: give each element its own [[%s]] header (or write %s = [{ … }, …])",
				key, key[strings.LastIndex(key, ".")+1:])
		case t != nil:
			msg = schema.TypeMismatch(t[1], t[2], valueOnLine(data, m[1])).Error()
		}
		return fmt.Errorf("%s:%s: %s: %s", path, m[1], key, msg)
	}
	return fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "toml: "))
}

// typeError matches the TOML decoder's message for a value of the wrong type: its line, key and
// wording; typeNames the types in that wording.
var (
	typeError = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]+)"\): (.*)$`)
	typeNames = regexp.MustCompile(`^incompatible types: TOML value has type (\S+); destination has type (\S+)$`)
)

// valueOnLine is the value of a "key = value" line of data (line, 1-based, in decimal), without a
// trailing comment; "" when the line has no such form.
func valueOnLine(data []byte, line string) string {
	n, err := strconv.Atoi(line)
	lines := strings.Split(string(data), "\n")
	if err != nil || n < 1 || n > len(lines) {
		return ""
	}
	_, v, ok := strings.Cut(lines[n-1], "=")
	if !ok {
		return ""
	}
	v, _, _ = strings.Cut(v, "#")
	return strings.TrimSpace(v)
}

// resolveSampler resolves the sampler (full by default for the loss variants that score the whole
// corpus) and its geometry, which the loss is resolved for; it runs before the loss resolves.
func (c *Config) resolveSampler() error {
	if c.Sampler.Kind == "" && c.Loss.Variant.ScoresCorpus() {
		c.Sampler.Kind = samplers.KindFull
	}
	if err := c.Sampler.Resolve(); err != nil {
		return err
	}
	_, g, err := samplers.Build(c.Sampler)
	if err != nil {
		return err
	}
	// The model's steps: with SASRec, the positions of each window are its rows.
	c.geometry, err = models.StepGeometry(c.Model, g)
	return err
}

// checkSequence refuses a query tower that reads histories without the data to read them from
// (a source without timestamps or users) and SASRec's windows in the order of single events.
func checkSequence(c *Config) error {
	seq := c.Model.Sequence
	if !seq.ReadsHistory() {
		return nil
	}
	if !c.Data.Timed() {
		why := fmt.Sprintf("data.source %q has none", c.Data.Source)
		if c.Data.Source == datasets.SourceInteractions {
			why = "data.interactions.time is \"none\""
		}
		return fmt.Errorf("model.sequence.encoder: %q reads each user's items in time order, and %s", seq.Encoder, why)
	}
	if seq.Encoder == models.EncoderSASRec && c.Train.Order == models.OrderSequential {
		return fmt.Errorf("train.order: %q replays single events in time order, and SASRec trains windows of each user's events; use %q", models.OrderSequential, models.OrderShuffled)
	}
	return nil
}

// movedKeys are keys that moved to another section: written, they are an error naming the new key.
var movedKeys = map[string]string{"loss.sampler": "sampler.kind", "loss.negatives": "sampler.negatives"}

// moved is the error of a key that moved, or nil.
func moved(key string) error {
	if to, ok := movedKeys[key]; ok {
		return fmt.Errorf("%s: moved to %s", key, to)
	}
	return nil
}

// undecoded rejects keys that match no field, each named with its line in the file src.
func undecoded(md toml.MetaData, src *source) error {
	var names []string
	first := 0
	for _, k := range md.Undecoded() {
		key := k.String()
		if err := moved(key); err != nil {
			return src.at(key, err)
		}
		if strings.HasPrefix(key, "loss.options.") || strings.HasPrefix(key, "sampler.options.") {
			continue // a registered variant's or sampler's options: its options decoder checks them strictly
		}
		if strings.HasPrefix(key, "ablation.values.") {
			continue // a table in an axis value: setting it on a run's config checks it strictly
		}
		line := src.line(key)
		if first == 0 {
			first = line
		}
		names = append(names, fmt.Sprintf("%s%s", key, suggest(key)))
		if len(names) > 1 && line > 0 {
			names[len(names)-1] += fmt.Sprintf(" (line %d)", line)
		}
	}
	switch {
	case len(names) == 0:
		return nil
	case first > 0:
		return fmt.Errorf("%s:%d: unknown key %s", src.path, first, strings.Join(names, ", "))
	}
	return fmt.Errorf("%s: unknown key %s", src.path, strings.Join(names, ", "))
}

// at prefixes err with the file and the line of key.
func (s *source) at(key string, err error) error {
	if n := s.line(key); n > 0 {
		return fmt.Errorf("%s:%d: %w", s.path, n, err)
	}
	return fmt.Errorf("%s: %w", s.path, err)
}

// parseValue reads the value of -set key=value as a TOML value (number, bool, array, quoted
// string, inline table); anything that does not parse as one is taken as a bare string, and
// isTOML is false.
func parseValue(s string) (x any, isTOML bool) {
	var m map[string]any
	if _, err := toml.Decode("v = "+s, &m); err == nil {
		return m["v"], true
	}
	return s, false
}

// assign sets the dotted key (e.g. "loss.temperature") of cfg to v, with the same strict
// conversions as the config file's decoding (see setKey): an unknown key or a value of the wrong
// type is an error.
func assign(cfg *Config, key string, v any) error {
	if key == "ablation" || strings.HasPrefix(key, "ablation.") {
		return errors.New("ablation axes cannot be overridden")
	}
	if err := moved(key); err != nil {
		return err
	}
	return configSchema().Set(reflect.ValueOf(cfg).Elem(), key, v, suggest)
}

// resolve fills defaults and validates every section; md (of the file, may be nil) tells which
// sections the file defines, so that a section the experiment kind does not read is an error.
func (c *Config) resolve(md toml.MetaData) error {
	c.defaultExperiment()
	i := slices.Index(experimentNames(), c.Experiment)
	if i < 0 {
		return isetting.OneOf("experiment", c.Experiment, experimentNames())
	}
	used := experiments[i].sections
	for _, k := range md.Keys() {
		if len(k) != 1 {
			continue
		}
		name := k[0]
		if !isSection(name) {
			continue
		}
		if !slices.Contains(used, name) {
			return fmt.Errorf("%s: section not used by experiment %q (it reads %s)", name, c.Experiment, strings.Join(used, ", "))
		}
	}
	if c.written != nil {
		for _, key := range slices.Sorted(maps.Keys(c.written.sets)) {
			if name, _, _ := strings.Cut(key, "."); isSection(name) && !slices.Contains(used, name) {
				return fmt.Errorf("-set %s: section %s not used by experiment %q (it reads %s)", c.written.sets[key], name, c.Experiment, strings.Join(used, ", "))
			}
		}
	}
	if len(c.Seeds) == 0 {
		c.Seeds = []int64{1}
	}
	if err := checkAxes(c.Ablation); err != nil {
		return err
	}
	if _, err := expand(c.Ablation, nil); err != nil {
		return err
	}
	if err := isetting.Distinct("seeds", c.Seeds); err != nil {
		return err
	}
	if c.Experiment == ExperimentFreqSim {
		if len(c.Ablation) > 0 {
			return errors.New("ablation: the freq_sim experiment sweeps freq_sim.alphas and freq_sim.hashes itself")
		}
		return isetting.First(
			section("freq_sim", c.FreqSim.Resolve()),
			section("plots", c.Plots.Resolve()),
		)
	}
	return isetting.First(
		section("data", c.Data.Resolve()),
		section("slices", c.Slices.Resolve()),
		section("model", c.Model.Resolve()),
		section("train", c.Train.Resolve()),
		section("estimator", c.Estimator.Resolve()),
		section("sampler", c.resolveSampler()),
		section("loss", c.Loss.ResolveFor(c.geometry)),
		section("eval", c.Eval.Resolve()),
		section("plots", c.Plots.Resolve()),
		section("report", c.Report.Resolve()),
		checkNegatives(c.Train, c.Model.Sequence, c.Loss, c.Sampler),
		checkDeclared(c.Loss, c.Sampler),
		checkPropensity(c),
		c.resolveSelection(),
		checkSequence(c),
	)
}

// resolveSelection resolves the model selection on a validation set: early stopping
// (train.validate_every) and the post-hoc logit-adjustment strength (eval.select_la_tau) need the
// data's validation split, and their validation metric (eval.select_metric, select_k and
// select_slice, resolved here) is one the evaluation of the validation set gives; without either,
// the metric's keys are an error.
func (c *Config) resolveSelection() error {
	if c.Train.ValidateEvery == 0 && !c.Eval.SelectLATau {
		const why = "names the validation metric of model selection, which only train.validate_every and eval.select_la_tau do; leave it out"
		return isetting.First(
			isetting.OnlyFor("eval.select_metric", c.Eval.SelectMetric != "", false, why),
			isetting.OnlyFor("eval.select_k", c.Eval.SelectK != 0, false, why),
			isetting.OnlyFor("eval.select_slice", c.Eval.SelectSlice != nil, false, why),
		)
	}
	for _, k := range []struct {
		key string
		on  bool
	}{{"train.validate_every", c.Train.ValidateEvery > 0}, {"eval.select_la_tau", c.Eval.SelectLATau}} {
		if k.on && !c.Data.Split.Validation {
			return fmt.Errorf("%s: selects on the validation set, which the data has not: set data.split.validation = true (split kinds %s and %s set one apart)",
				k.key, datasets.SplitLeaveLastOut, datasets.SplitTemporal)
		}
	}
	return section("eval", c.Eval.ResolveSelect(c.Slices))
}

// runSections are the sections whose keys may be ablation axes: the settings of a run. An axis
// over any other key (seeds, out, data_seed, experiment, ablation, plots.*) would repeat
// identical runs or mix data splits, and is an error.
var runSections = []string{"data", "slices", "model", "train", "estimator", "loss", "sampler", "eval"}

// checkAxes rejects ablation axes over keys that are not run settings, each error naming the
// axis' key or keys (ablation[i].key, ablation[i].keys).
func checkAxes(axes []Axis) error {
	for i, a := range axes {
		name := fmt.Sprintf("ablation[%d].%s", i, a.field())
		for _, k := range a.names() {
			first, _, _ := strings.Cut(k, ".")
			switch {
			case moved(k) != nil:
				return fmt.Errorf("%s: %w", name, moved(k))
			case first == "seeds":
				return fmt.Errorf("%s: %s is not a run setting: list the seeds in seeds = [...], every cell runs once per seed", name, k)
			case !slices.Contains(runSections, first):
				return fmt.Errorf("%s: %s is not a run setting (an axis is a key of the sections %s)", name, k, strings.Join(runSections, ", "))
			}
		}
	}
	return nil
}

func isSection(name string) bool {
	for _, e := range experiments {
		if slices.Contains(e.sections, name) {
			return true
		}
	}
	return false
}

// section prefixes a settings error ("alpha: ...") with its section ("estimator.alpha: ...").
func section(name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s.%w", name, err)
}

// encode writes the config as TOML, for the config.toml files people read.
func (c *Config) encode() ([]byte, error) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(c); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// defaultExperiment sets an unset experiment kind to the default, ExperimentRetrieval.
func (c *Config) defaultExperiment() {
	isetting.Default(&c.Experiment, ExperimentRetrieval)
}

// encodeFor writes the resolved config as TOML for a config.toml in the folder dir, such that the
// file loads as a -config and gives the same runs: a relative data.path is written relative to
// dir (a config file's data path is relative to the file), the sections the experiment does not
// read are left out, and so are settings at their zero value outside the loss options (an absent
// key decodes to the same zero, while a written zero the default would replace is an error).
func (c *Config) encodeFor(dir string) ([]byte, error) {
	w, err := c.clone()
	if err != nil {
		return nil, err
	}
	if p := w.Data.Path; p != "" && !filepath.IsAbs(p) {
		from, err1 := filepath.Abs(dir)
		to, err2 := filepath.Abs(p)
		if err1 != nil || err2 != nil {
			return nil, errors.Join(err1, err2)
		}
		if w.Data.Path, err = filepath.Rel(from, to); err != nil {
			return nil, err
		}
	}
	body, err := w.encode()
	if err != nil {
		return nil, err
	}
	w.defaultExperiment()
	var used []string
	if i := slices.Index(experimentNames(), w.Experiment); i >= 0 {
		used = experiments[i].sections
	}
	var out bytes.Buffer
	skip, options := false, false
	for _, line := range strings.SplitAfter(string(body), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			name := strings.Trim(t, "[]")
			section, _, _ := strings.Cut(name, ".")
			skip = isSection(section) && !slices.Contains(used, section)
			options = name == "loss.options" || strings.HasPrefix(name, "loss.options.")
		}
		if skip || (!options && isZeroLine(t)) {
			continue
		}
		out.WriteString(line)
	}
	return out.Bytes(), nil
}

// isZeroLine reports a line of the TOML encoder that sets a key to its type's zero value.
func isZeroLine(t string) bool {
	_, v, ok := strings.Cut(t, " = ")
	return ok && !strings.HasPrefix(t, "[") && slices.Contains([]string{`""`, "0", "0.0", "false", "[]"}, v)
}

// clone deep-copies the config.
func (c *Config) clone() (*Config, error) {
	out := deepCopy(reflect.ValueOf(c).Elem()).Interface().(Config)
	return &out, nil
}

// hash identifies the results of a run: the canonical encoding of its resolved config's sections
// that affect training, evaluation or the grid (not the output directory, not [plots]). A
// finished run whose hash differs is not finished for this config, while changing only how
// figures look redraws them from the finished runs.
func (c *Config) hash() (string, error) {
	return c.hashAt(schemaVersion, affectsTraining, affectsEvaluation, affectsGrid)
}

// trainHash identifies what a run's training depends on: the canonical encoding of the sections
// that affect training or the grid. A run whose training hash is unchanged is re-evaluated from
// its saved model instead of retrained.
func (c *Config) trainHash() (string, error) {
	return c.hashAt(schemaVersion, affectsTraining, affectsGrid)
}

// hashAt is the digest of the canonical encoding of the sections of roles as the given schema
// version wrote it (see schemaVersions).
func (c *Config) hashAt(version int, roles ...affects) (string, error) {
	kvs, err := c.canonicalAt(version, roles...)
	if err != nil {
		return "", err
	}
	return digestOf(kvs), nil
}
