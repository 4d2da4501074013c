package workbench

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/samplingbias/workbench/internal/schema"
	isetting "github.com/samplingbias/workbench/internal/setting"
)

// setting is one key of a cell with its value.
type setting struct {
	Key   string
	Value any
}

// cell is one point of the ablation grid repeated for one seed: a run.
type cell struct {
	ID       string    // readable, stable: "variant=logq,temperature=0.07,seed=2"
	Group    string    // the ID without the seed: the runs averaged together
	Settings []setting // the axes' values, in axis order
	Seed     int64
}

// axisKeys returns the keys of an axis and, for each of its points, one value per key.
func axisKeys(i int, a Axis) ([]string, [][]any, error) {
	name := fmt.Sprintf("ablation[%d]", i)
	switch {
	case a.Key != "" && len(a.Keys) > 0:
		return nil, nil, fmt.Errorf("%s: set key or keys, not both", name)
	case a.Key == "" && len(a.Keys) == 0:
		return nil, nil, fmt.Errorf("%s: key is missing", name)
	case len(a.Values) == 0:
		return nil, nil, fmt.Errorf("%s.values: empty", name)
	}
	if a.Key != "" {
		points := make([][]any, len(a.Values))
		for j, v := range a.Values {
			points[j] = []any{v}
		}
		return []string{a.Key}, points, nil
	}
	points := make([][]any, len(a.Values))
	for j, v := range a.Values {
		tuple, ok := v.([]any)
		if !ok || len(tuple) != len(a.Keys) {
			return nil, nil, fmt.Errorf("%s.values: want lists of %d values (one per key of %s); value %d is %v",
				name, len(a.Keys), strings.Join(a.Keys, ", "), j+1, v)
		}
		points[j] = tuple
	}
	return a.Keys, points, nil
}

// expand returns the runs of the grid: the cartesian product of the axes (zipped keys move
// together), each repeated for every seed. Ids name each key by its last component unless that
// is ambiguous (see idNames), and leave out keys whose value is empty (see runID).
func expand(axes []Axis, seeds []int64) ([]cell, error) {
	type axis struct {
		keys   []string
		points [][]any
	}
	var all []axis
	var keys []string
	for i, a := range axes {
		ks, points, err := axisKeys(i, a)
		if err != nil {
			return nil, err
		}
		for _, k := range ks {
			if slices.Contains(keys, k) {
				return nil, fmt.Errorf("ablation[%d].%s: %s is already the key of an earlier axis", i, a.field(), k)
			}
			keys = append(keys, k)
		}
		all = append(all, axis{ks, points})
	}
	names := idNames(keys)
	groups := [][]setting{nil}
	for _, a := range all {
		var next [][]setting
		for _, g := range groups {
			for _, p := range a.points {
				s := append(append([]setting(nil), g...), make([]setting, len(a.keys))...)
				for j, k := range a.keys {
					s[len(g)+j] = setting{k, p[j]}
				}
				next = append(next, s)
			}
		}
		groups = next
	}
	var cells []cell
	ids := map[string]bool{}
	for _, g := range groups {
		values := map[string]string{}
		for _, s := range g {
			values[s.Key] = axisValue(s.Key, s.Value)
		}
		group := runID(names, keys, values)
		if ids[group] {
			return nil, fmt.Errorf("ablation: two cells have the same values %s", group)
		}
		ids[group] = true
		for _, seed := range seeds {
			cells = append(cells, cell{ID: withSeed(group, seed), Group: group, Settings: g, Seed: seed})
		}
	}
	return cells, nil
}

// runID is the id of a cell, without its seed: name=value for each of the axis keys in order,
// those whose (formatted) value is empty left out.
func runID(names map[string]string, keys []string, values map[string]string) string {
	var parts []string
	for _, k := range keys {
		if v := values[k]; v != "" {
			parts = append(parts, names[k]+"="+v)
		}
	}
	return strings.Join(parts, ",")
}

// withSeed is the id of the run of the cell group at seed.
func withSeed(group string, seed int64) string {
	return strings.TrimPrefix(group+",seed="+strconv.FormatInt(seed, 10), ",")
}

// idNames maps each dotted key to the name a run id gives it: its last component, unless that
// is ambiguous, in which case the whole key. A key is ambiguous when its last component is that
// of another of the keys, or of another setting of a config (estimator.kind, data.split.kind), or
// when it is an entry of a table of free names (loss.options.alpha), whose name may be that of
// any setting: two grids over different keys never give their runs the same id.
func idNames(keys []string) map[string]string {
	all := configSchema().Keys("")
	count := map[string]int{}
	for _, k := range all {
		count[isetting.Leaf(k)]++
	}
	for _, k := range keys {
		if !slices.Contains(all, k) {
			count[isetting.Leaf(k)]++
		}
	}
	out := map[string]string{}
	for _, k := range keys {
		if count[isetting.Leaf(k)] > 1 || !slices.Contains(all, k) {
			out[k] = k
		} else {
			out[k] = isetting.Leaf(k)
		}
	}
	return out
}

// axisValue writes the value v of the axis key for a run id, a record and a CSV column (see
// formatValue); a table of free names (a registered variant's options, loss.options) names
// each of its entries, as name:value, since no other setting tells what its values are:
// {alpha = 0.5} is alpha:0.5.
func axisValue(key string, v any) string {
	table, ok := v.(map[string]any)
	if f, entry := configSchema().Lookup(key); !ok || f == nil || f.Kind != schema.KindMap || entry != nil {
		return formatValue(v)
	}
	parts := make([]string, 0, len(table))
	for _, k := range slices.Sorted(maps.Keys(table)) {
		parts = append(parts, formatValue(k)+":"+formatValue(table[k]))
	}
	return strings.Join(parts, "-")
}

// formatValue writes a value for a run id and a CSV column: strings as they are, numbers in
// their shortest form, lists with '+' between elements, tables as their values in the order of
// their keys with '-' between them ({kind = "uniform", negatives = 64} is uniform-64). Characters that are unsafe in a
// directory name are replaced by '_'.
func formatValue(v any) string {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case float64:
		s = strconv.FormatFloat(x, 'g', -1, 64)
	case int64:
		s = strconv.FormatInt(x, 10)
	case bool:
		s = strconv.FormatBool(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = formatValue(e)
		}
		s = strings.Join(parts, "+")
	case map[string]any: // a table: its values in the order of their keys
		parts := make([]string, 0, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			parts = append(parts, formatValue(x[k]))
		}
		s = strings.Join(parts, "-")
	default:
		s = fmt.Sprint(x)
	}
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ',' || r == '=' || r == ' ' || r < 32 {
			return '_'
		}
		return r
	}, s)
}

// cellConfig is the resolved config of one run: the config as written (raw, defaults not filled)
// with the cell's values and seed, then resolved.
func cellConfig(raw *Config, c cell) (*Config, error) {
	cfg, err := raw.clone()
	if err != nil {
		return nil, err
	}
	cfg.Ablation = nil
	cfg.Seeds = []int64{c.Seed}
	w := raw.written.clone()
	for _, s := range c.Settings {
		value := s.Value
		if p, ok := value.(string); ok && s.Key == pathKey && raw.pathAxisDir != "" && p != "" && !filepath.IsAbs(p) {
			value = filepath.Join(raw.pathAxisDir, p)
		}
		if err := assign(cfg, s.Key, value); err != nil {
			var unknown *isetting.UnknownError
			if errors.As(err, &unknown) { // a name the enum does not have: the run's value is wrong
				return nil, fmt.Errorf("run %s: %w", c.ID, err)
			}
			return nil, raw.axisError(s.Key, err)
		}
		w.add(s.Key, s.Value, "axis", s.Key)
	}
	cfg.written = w
	if err := cfg.resolve(toml.MetaData{}); err != nil {
		return nil, fmt.Errorf("run %s: %w", c.ID, w.located(err, cfg))
	}
	if err := checkWritten(w, cfg); err != nil {
		return nil, fmt.Errorf("run %s: %w", c.ID, w.located(err, cfg))
	}
	return cfg, nil
}

// axisError is the error err of assigning a value of the axis over key: it names the axis' values,
// or its key or keys when key names no setting, with their line when the file wrote the axis (the
// -set flag when one made or changed it).
func (c *Config) axisError(key string, err error) error {
	i := slices.IndexFunc(c.Ablation, func(a Axis) bool { return a.sweeps(key) })
	if i < 0 {
		return fmt.Errorf("ablation %s: %w", key, err)
	}
	field := "values"
	if f, _ := configSchema().Lookup(key); f == nil || moved(key) != nil {
		field = c.Ablation[i].field()
	}
	return c.written.located(fmt.Errorf("ablation[%d].%s: %w", i, field, err), c)
}

// setAxis applies -set key=v where key is, or becomes, an ablation axis, and reports whether it
// did; a key that is not (then set by assign) is left to the caller.
//   - An axis over key alone is replaced by an axis over v: one value, or the values of v where
//     v is a list and the setting is not (-set 'loss.temperature=[0.05,0.1]' sweeps).
//   - A zipped axis that has key among its keys keeps the tuples whose value of key is v (or one
//     of v's values): the other keys keep the values they are zipped with. No tuple left is an
//     error naming the axis and the values it has.
//   - A list v on a key that is no axis and whose setting is not a list adds an axis over it.
func setAxis(cfg *Config, key string, v any) (bool, error) {
	values := []any{v}
	list, isList := v.([]any)
	if isList && !listSetting(key) {
		if len(list) == 0 {
			return true, fmt.Errorf("%s: an empty list of values", key)
		}
		values = list
	} else {
		isList = false
	}
	for i, a := range cfg.Ablation {
		if a.Key == key {
			cfg.Ablation[i].Values = values
			return true, checkValues(cfg, key, values)
		}
		j := slices.Index(a.Keys, key)
		if j < 0 {
			continue
		}
		var kept []any
		var have []string
		for _, t := range a.Values {
			tuple, ok := t.([]any)
			if !ok || len(tuple) != len(a.Keys) {
				return true, fmt.Errorf("ablation[%d].values: want tuples of %d values", i, len(a.Keys))
			}
			if h := formatValue(tuple[j]); !slices.Contains(have, h) {
				have = append(have, h)
			}
			if slices.ContainsFunc(values, func(x any) bool { return formatValue(x) == formatValue(tuple[j]) }) {
				kept = append(kept, t)
			}
		}
		var none []string
		for _, x := range values {
			if !slices.Contains(have, formatValue(x)) {
				none = append(none, formatValue(x))
			}
		}
		if len(none) > 0 {
			return true, fmt.Errorf("%s is zipped with %s in ablation[%d], which has no tuple with %s = %s (it has %s): set values it has, or edit the axis",
				key, strings.Join(slices.DeleteFunc(slices.Clone(a.Keys), func(k string) bool { return k == key }), ", "),
				i, key, strings.Join(none, " or "), strings.Join(have, ", "))
		}
		cfg.Ablation[i].Values = kept
		return true, nil
	}
	if isList {
		cfg.Ablation = append(cfg.Ablation, Axis{Key: key, Values: values})
		return true, checkValues(cfg, key, values)
	}
	return false, nil
}

// checkValues assigns each of values to key in a copy of cfg: a value the setting cannot take is
// the error of the -set that wrote it, not of the axis it makes.
func checkValues(cfg *Config, key string, values []any) error {
	probe, err := cfg.clone()
	if err != nil {
		return err
	}
	for _, x := range values {
		if err := assign(probe, key, x); err != nil {
			return err
		}
	}
	return nil
}

// listSetting reports whether the dotted key names a setting that is itself a list (such as
// eval.k or model.hidden), where a list value is the setting's value rather than an axis.
func listSetting(key string) bool {
	f, entry := configSchema().Lookup(key)
	return f != nil && entry == nil && (f.Kind == schema.KindArray || f.Kind == schema.KindValue && f.Go.Type.Kind() == reflect.Slice)
}

// setFirstCell sets the keys of every axis of cfg to the axis' first point, so that the
// experiment's config resolves with settings a run has (a registered variant's loss.options
// apply to the runs of that variant, not to the default one). A malformed axis is left to
// resolve, which reports it.
func setFirstCell(cfg *Config) error {
	for i, a := range cfg.Ablation {
		keys, points, err := axisKeys(i, a)
		if err != nil {
			continue
		}
		for j, k := range keys {
			if err := assign(cfg, k, points[0][j]); err != nil {
				return cfg.axisError(k, err)
			}
		}
	}
	return nil
}

// checkOnly rejects an -only pattern that matches no run of the grid (of any shard), before
// anything is written, naming the run ids closest to the pattern.
func checkOnly(runs []plannedRun, o options) error {
	if o.only == nil || slices.ContainsFunc(runs, func(r plannedRun) bool { return o.only.MatchString(r.ID) }) {
		return nil
	}
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.ID
	}
	return fmt.Errorf("-only %q matches none of the grid's %d runs; the closest ids are:\n  %s",
		o.only, len(runs), strings.Join(isetting.Nearest(o.only.String(), ids, 3), "\n  "))
}

// addFinishedSeeds adds to the seeds of raw and cfg those of the runs finished in cfg.Out for a
// cell of the grid at a seed the config does not list (a seed added with -set seeds=... by an
// earlier command), so that a later command without that -set keeps them in the report and in
// the folder's config.toml. Whether such a run finished with this very config is then checked
// like any other run's. Seeds a -set writes are the grid's as written: none is added to them.
func addFinishedSeeds(raw, cfg *Config) error {
	if cfg.written.setUnder("seeds") != "" {
		return nil
	}
	cells, err := expand(cfg.Ablation, []int64{0})
	if err != nil {
		return err
	}
	groups := map[string]bool{}
	for _, c := range cells {
		groups[c.Group] = true
	}
	files, err := filepath.Glob(filepath.Join(cfg.Out, "runs", "*", "metrics.json"))
	if err != nil {
		return err
	}
	var extra []int64
	for _, f := range files {
		var rec runRecord
		if readJSON(f, &rec) != nil {
			continue // an unreadable record is a run not finished (see plannedRun.record)
		}
		if groups[rec.Group] && !slices.Contains(cfg.Seeds, rec.Seed) && !slices.Contains(extra, rec.Seed) {
			extra = append(extra, rec.Seed)
		}
	}
	slices.Sort(extra)
	cfg.Seeds = append(slices.Clone(cfg.Seeds), extra...)
	raw.Seeds = cfg.Seeds
	return nil
}
