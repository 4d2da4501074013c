package configdoc

import (
	"bytes"
	"encoding"
	"errors"
	"maps"
	"reflect"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/internal/schema"
	"github.com/samplingbias/workbench/internal/setting"
	"github.com/samplingbias/workbench/workbench"
)

// Schema is the schema of workbench.Config.
func Schema() *schema.Table { return schema.New(reflect.TypeFor[workbench.Config]()) }

// Probe loads, through the workbench's loader, the config whose keys are those of values (dotted
// keys outside arrays of tables, with their TOML values), and returns its resolved config. A
// retrieval experiment's config whose source reads files gets a data.path (unless values have
// one), which some sources require and which loading a config does not read.
func Probe(values map[string]any) (workbench.Config, error) {
	_, written := values["data.path"]
	retrieval := values["experiment"] != string(workbench.ExperimentFreqSim)
	source, _ := values["data.source"].(string)
	if !written && retrieval && datasets.Source(source).ReadsFiles() {
		values = maps.Clone(values)
		values["data.path"] = "data"
	}
	tree := map[string]any{}
	for key, v := range values {
		schema.Nest(tree, key, v)
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(tree); err != nil {
		return workbench.Config{}, err
	}
	g, err := workbench.Parse("probe.toml", b.Bytes())
	if err != nil {
		return workbench.Config{}, err
	}
	return g.Config(), nil
}

// Names lists the names an enum type (or a list of one) accepts when decoded, from the error its
// UnmarshalText gives an unknown name; nil for other types.
func Names(t reflect.Type) []string {
	if t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	u, ok := reflect.New(t).Interface().(encoding.TextUnmarshaler)
	if !ok {
		return nil
	}
	var unknown *setting.UnknownError
	if err := u.UnmarshalText([]byte("\x00not a name")); !errors.As(err, &unknown) {
		return nil
	}
	return unknown.Allowed
}

// Contexts are the settings of the other keys in which a key is probed: none, then every name
// of every enum key of the config (outside arrays of tables), one at a time, where the loader
// accepts it alone: the key of a variant's option is used when its variant is chosen, a loader's
// when its source is; then a name the loader refuses alone together with one it accepts alone,
// where it accepts the pair (a temporal split needs a source with timestamps); then each of
// those with one boolean key of the table of one of its keys switched on, where the loader
// accepts it: a key that a switch enables is used under its switch (the validation window's
// fraction of a temporal split with data.split.validation on).
func Contexts(tb *schema.Table) []map[string]any {
	out := []map[string]any{{}}
	var switches []string
	var refused []map[string]any
	for _, key := range Keys(tb) {
		f, _ := tb.Lookup(key)
		if f.Go.Type.Kind() == reflect.Bool {
			switches = append(switches, key)
		}
		if f.Go.Type.Kind() == reflect.Slice {
			continue
		}
		for _, name := range Names(f.Go.Type) {
			if ctx := map[string]any{key: name}; valid(ctx) {
				out = append(out, ctx)
			} else {
				refused = append(refused, ctx)
			}
		}
	}
	for _, alone := range out[1:len(out):len(out)] {
		for _, r := range refused {
			pair := maps.Clone(alone)
			maps.Copy(pair, r)
			if len(pair) == 2 && valid(pair) {
				out = append(out, pair)
			}
		}
	}
	for _, ctx := range out[1:len(out):len(out)] {
		for _, sw := range switches {
			if _, set := ctx[sw]; set || !holdsTableOf(ctx, sw) {
				continue
			}
			on := maps.Clone(ctx)
			on[sw] = true
			if valid(on) {
				out = append(out, on)
			}
		}
	}
	return out
}

// holdsTableOf reports whether a key of ctx is in the table of key.
func holdsTableOf(ctx map[string]any, key string) bool {
	for k := range ctx {
		if table(k) == table(key) {
			return true
		}
	}
	return false
}

// table is the dotted path of the table holding key.
func table(key string) string {
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		return key[:i]
	}
	return ""
}

// valid reports whether the loader accepts the config of values.
func valid(values map[string]any) bool {
	_, err := Probe(values)
	return err == nil
}

// Keys lists the keys of the values of tb, outside arrays of tables and tables of free names, in
// declaration order.
func Keys(tb *schema.Table) []string {
	var out []string
	for _, key := range tb.Keys("") {
		f, _ := tb.Lookup(key)
		if f.Kind == schema.KindValue && !insideArray(tb, key) {
			out = append(out, key)
		}
	}
	return out
}

// insideArray reports whether the dotted key is inside an array of tables.
func insideArray(tb *schema.Table, key string) bool {
	parts := strings.Split(key, ".")
	for i := 1; i < len(parts); i++ {
		if f, _ := tb.Lookup(strings.Join(parts[:i], ".")); f != nil && f.Kind == schema.KindArray {
			return true
		}
	}
	return false
}

// Accepts reports whether the loader accepts key = value in some context (see Contexts): it
// loads, or its error is about a key that is neither key nor a table holding it (data.source =
// "xmc" alone is an error about data.path, which xmc requires).
func Accepts(contexts []map[string]any, key string, value any) bool {
	for _, ctx := range contexts {
		if _, clash := ctx[key]; clash {
			continue
		}
		values := map[string]any{key: value}
		for k, v := range ctx {
			values[k] = v
		}
		if _, err := Probe(values); err == nil || !About(err, key) {
			return true
		}
	}
	return false
}

// probeError matches an error of Probe's loader: the file (with the line or the override that
// wrote the key) and the key it is about.
var probeError = regexp.MustCompile(`^probe\.toml(?::\d+)?(?::\d+)?: ([a-z_.\[\]0-9]+)[: ]`)

// About reports whether err, an error of Probe, is about key or a table holding it ("data.xmc:
// only read by source xmc" is about data.xmc.format).
func About(err error, key string) bool {
	m := probeError.FindStringSubmatch(err.Error())
	if m == nil {
		return false
	}
	k := schema.Unindexed(m[1])
	return k == key || strings.HasPrefix(key, k+".")
}
