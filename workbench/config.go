package workbench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/estimators"
	"github.com/samplingbias/workbench/estimators/freqsim"
	"github.com/samplingbias/workbench/losses"
	"github.com/samplingbias/workbench/metrics"
	"github.com/samplingbias/workbench/models"
	"github.com/samplingbias/workbench/plots"
)

// Experiment kinds (the top-level key experiment).
const (
	experimentRetrieval = "retrieval"
	experimentFreqSim   = "freq_sim"
)

// Config is one experiment: a TOML file with the sections below. Every section's zero value works;
// the comments of each section's settings type state its defaults. The `affects` tag of each
// field declares what a change of it changes (training, evaluation, figures, the grid's runs, or
// nothing): the hashes that identify runs and results folders are built from it (see
// Config.canonical).
type Config struct {
	// Experiment is "retrieval" (default: train two-tower models, evaluate Recall@K by slice) or
	// "freq_sim" (Yi et al. section 6 frequency-estimation simulation).
	Experiment string `toml:"experiment" affects:"training"`
	// Out is the output directory; default "results/<config file name without .toml>".
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
	Eval      metrics.Settings      `toml:"eval" affects:"evaluation"`
	Plots     plots.Settings        `toml:"plots" affects:"figures"`
	Report    ReportSettings        `toml:"report" affects:"figures"`
	FreqSim   freqsim.Settings      `toml:"freq_sim" affects:"training"`

	// Ablation lists the axes of the grid; the grid is their cartesian product.
	Ablation []Axis `toml:"ablation" affects:"grid"`
}

// Axis is one [[ablation]] entry: either one key with a list of values, or several keys zipped
// together (values is then a list of tuples, one value per key), e.g. each loss with its own
// tuned temperature.
type Axis struct {
	Key    string   `toml:"key"`
	Keys   []string `toml:"keys"`
	Values []any    `toml:"values"`
}

// sections lists the config sections each experiment kind reads; a section of the other kind in a
// config is an error rather than an option silently ignored.
var sections = map[string][]string{
	experimentRetrieval: {"data", "slices", "model", "train", "estimator", "loss", "eval", "plots", "report", "ablation"},
	experimentFreqSim:   {"freq_sim", "plots"},
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
	var cfg Config
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		return nil, nil, tomlError(path, err)
	}
	if err := undecoded(md, path); err != nil {
		return nil, nil, err
	}
	// A data path written in a config file is relative to the file, so that a config runs from
	// any working directory; one given with -set is relative to the working directory.
	if p := cfg.Data.Path; p != "" && !filepath.IsAbs(p) {
		cfg.Data.Path = filepath.Join(filepath.Dir(path), p)
	}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, nil, fmt.Errorf("-set %s: want section.key=value", s)
		}
		if err := assign(&cfg, strings.TrimSpace(k), parseValue(v)); err != nil {
			return nil, nil, fmt.Errorf("-set %s: %w", s, err)
		}
	}
	if cfg.Out == "" {
		cfg.Out = filepath.Join("results", strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	}
	resolved, err = cfg.clone()
	if err != nil {
		return nil, nil, err
	}
	if err := resolved.resolve(md); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return &cfg, resolved, nil
}

// tomlError names the file (and line and column, for syntax errors) of a TOML decoding error.
func tomlError(path string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d:%d: %s", path, pe.Position.Line, pe.Position.Col, pe.Message)
	}
	return fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "toml: "))
}

// undecoded rejects keys that match no field.
func undecoded(md toml.MetaData, where string) error {
	if keys := md.Undecoded(); len(keys) > 0 {
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = k.String()
		}
		return fmt.Errorf("%s: unknown key %s", where, strings.Join(names, ", "))
	}
	return nil
}

// parseValue reads the value of -set key=value as a TOML value (number, bool, array, quoted
// string); anything that does not parse as one is taken as a bare string.
func parseValue(s string) any {
	var m map[string]any
	if _, err := toml.Decode("v = "+s, &m); err == nil {
		return m["v"]
	}
	return s
}

// assign sets the dotted key (e.g. "loss.temperature") of cfg to v, with the same strict
// conversions as the config file's decoding (see setKey): an unknown key or a value of the wrong
// type is an error.
func assign(cfg *Config, key string, v any) error {
	if key == "ablation" || strings.HasPrefix(key, "ablation.") {
		return errors.New("ablation axes cannot be overridden")
	}
	return setKey(reflect.ValueOf(cfg).Elem(), key, v)
}

// resolve fills defaults and validates every section; md (of the file, may be nil) tells which
// sections the file defines, so that a section the experiment kind does not read is an error.
func (c *Config) resolve(md toml.MetaData) error {
	if c.Experiment == "" {
		c.Experiment = experimentRetrieval
	}
	used, ok := sections[c.Experiment]
	if !ok {
		return fmt.Errorf("experiment: unknown %q (allowed: %s, %s)", c.Experiment, experimentRetrieval, experimentFreqSim)
	}
	for _, k := range md.Keys() {
		if len(k) != 1 {
			continue
		}
		name := k[0]
		if !isSection(name) {
			continue
		}
		if !contains(used, name) {
			return fmt.Errorf("%s: section not used by experiment %q (it reads %s)", name, c.Experiment, strings.Join(used, ", "))
		}
	}
	if len(c.Seeds) == 0 {
		c.Seeds = []int64{1}
	}
	seen := map[int64]bool{}
	for _, s := range c.Seeds {
		if seen[s] {
			return fmt.Errorf("seeds: %d appears twice", s)
		}
		seen[s] = true
	}
	if c.Experiment == experimentFreqSim {
		if len(c.Ablation) > 0 {
			return errors.New("ablation: the freq_sim experiment sweeps freq_sim.alphas and freq_sim.hashes itself")
		}
		return firstError(
			section("freq_sim", c.FreqSim.Resolve()),
			section("plots", c.Plots.Resolve()),
		)
	}
	return firstError(
		section("data", c.Data.Resolve()),
		section("slices", c.Slices.Resolve()),
		section("model", c.Model.Resolve()),
		section("train", c.Train.Resolve()),
		section("estimator", c.Estimator.Resolve()),
		section("loss", c.Loss.Resolve()),
		section("eval", c.Eval.Resolve()),
		section("plots", c.Plots.Resolve()),
		section("report", c.Report.Resolve()),
	)
}

func isSection(name string) bool {
	for _, names := range sections {
		if contains(names, name) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
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

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// encode writes the config as TOML, for the config.toml files people read.
func (c *Config) encode() ([]byte, error) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(c); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
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
	kvs, err := c.canonical(affectsTraining, affectsEvaluation, affectsGrid)
	if err != nil {
		return "", err
	}
	return digestOf(kvs), nil
}

// trainHash identifies what a run's training depends on: the canonical encoding of the sections
// that affect training or the grid. A run whose training hash is unchanged is re-evaluated from
// its saved model instead of retrained.
func (c *Config) trainHash() (string, error) {
	kvs, err := c.canonical(affectsTraining, affectsGrid)
	if err != nil {
		return "", err
	}
	return digestOf(kvs), nil
}
