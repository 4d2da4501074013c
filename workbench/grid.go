package workbench

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	isetting "github.com/samplingbias/workbench/internal/setting"
)

// setting is one key of a cell with its value.
type setting struct {
	Key   string
	Value any
}

// cell is one point of the ablation grid repeated for one seed: a run.
type cell struct {
	ID       string    // readable, stable: "loss=logq,temperature=0.07,seed=2"
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
			return nil, nil, fmt.Errorf("%s.values[%d]: want a list of %d values (one per key of %s), got %v",
				name, j, len(a.Keys), strings.Join(a.Keys, ", "), v)
		}
		points[j] = tuple
	}
	return a.Keys, points, nil
}

// expand returns the runs of the grid: the cartesian product of the axes (zipped keys move
// together), each repeated for every seed. Ids name each key by its last component unless two
// axes share it, in which case by the full dotted key.
func expand(axes []Axis, seeds []int64) ([]cell, error) {
	type axis struct {
		keys   []string
		points [][]any
	}
	var all []axis
	seen := map[string]bool{}
	for i, a := range axes {
		keys, points, err := axisKeys(i, a)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			if seen[k] {
				return nil, fmt.Errorf("ablation[%d]: key %s is already an axis", i, k)
			}
			seen[k] = true
		}
		all = append(all, axis{keys, points})
	}
	short := shortNames(seen)
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
		parts := make([]string, len(g))
		for i, s := range g {
			parts[i] = short[s.Key] + "=" + formatValue(s.Value)
		}
		group := strings.Join(parts, ",")
		if ids[group] {
			return nil, fmt.Errorf("ablation: two cells have the same values %s", group)
		}
		ids[group] = true
		for _, seed := range seeds {
			id := strings.TrimPrefix(group+",seed="+strconv.FormatInt(seed, 10), ",")
			cells = append(cells, cell{ID: id, Group: group, Settings: g, Seed: seed})
		}
	}
	return cells, nil
}

// shortNames maps each dotted key to its last component, or to the whole key where two keys
// share a last component.
func shortNames(keys map[string]bool) map[string]string {
	count := map[string]int{}
	for k := range keys {
		count[last(k)]++
	}
	out := map[string]string{}
	for k := range keys {
		if count[last(k)] > 1 {
			out[k] = k
		} else {
			out[k] = last(k)
		}
	}
	return out
}

func last(key string) string {
	return key[strings.LastIndexByte(key, '.')+1:]
}

// formatValue writes a value for a run id and a CSV column: strings as they are, numbers in
// their shortest form, lists with '+' between elements. Characters that are unsafe in a
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
	written := append([]string(nil), raw.written...)
	for _, s := range c.Settings {
		if err := assign(cfg, s.Key, s.Value); err != nil {
			var unknown *isetting.UnknownError
			if errors.As(err, &unknown) { // a name the enum does not have: the run's value is wrong
				return nil, fmt.Errorf("run %s: %w", c.ID, err)
			}
			return nil, fmt.Errorf("ablation %s: %w", s.Key, err)
		}
		written = append(written, s.Key)
	}
	asWritten, err := cfg.clone()
	if err != nil {
		return nil, err
	}
	if err := cfg.resolve(toml.MetaData{}); err != nil {
		return nil, fmt.Errorf("run %s: %w", c.ID, err)
	}
	if err := checkWritten(asWritten, cfg, written); err != nil {
		return nil, fmt.Errorf("run %s: %w", c.ID, err)
	}
	return cfg, nil
}
