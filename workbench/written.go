package workbench

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/samplingbias/workbench/internal/schema"
	isetting "github.com/samplingbias/workbench/internal/setting"
)

// configSchema is the schema of Config (package schema): its keys, their types and the
// declarations of their tags, built once; decoding, -set, the written-value check, the run ids and
// the canonical identity all walk it, and docs/config.md is generated from it.
var configSchema = sync.OnceValue(func() *schema.Table { return schema.New(reflect.TypeFor[Config]()) })

// suggest is " (did you mean k?)" for the keys of the schema closest to key, or "".
func suggest(key string) string {
	return isetting.DidYouMean(key, configSchema().Keys(""))
}

// perVariant names the tables of free names whose entries may be tables of one variant each, with
// the key that selects a run's: [loss.options.<variant>] holds the options of that registered
// variant (losses.Settings.Options), used by the runs whose loss.variant it is.
var perVariant = map[string]func(*Config) string{
	"loss.options": func(c *Config) string { return string(c.Loss.Variant) },
}

// source is a config file: its path and content, and the TOML decoder's view of its keys, which
// tells the line of every key.
type source struct {
	path string
	data []byte
	md   toml.MetaData
	top  map[string]toml.Primitive
}

// newSource reads the keys of the config file path whose content (valid TOML) is data.
func newSource(path string, data []byte) *source {
	s := &source{path: path, data: data}
	s.md, _ = toml.Decode(string(data), &s.top) // valid: the config decoded
	return s
}

// lineProbe fails to decode any value, so that the decoder's error tells where the value is.
type lineProbe struct{}

func (lineProbe) UnmarshalTOML(any) error { return errors.New("probe") }

// line returns the line of the file that sets the dotted key (indices of array elements
// allowed), as the TOML decoder records it, or for an element of an array of tables the line of
// its header; 0 if none does or the decoder cannot tell.
func (s *source) line(key string) int {
	if s == nil {
		return 0
	}
	parts := schema.Parse(key)
	// The decoder records one position per key of an array of tables, its last element's: the
	// keys of an earlier element are read from the file up to that element's end.
	if i := slices.IndexFunc(parts, func(p schema.Part) bool { return p.Index >= 0 }); i >= 0 {
		if pre, header := s.upTo(parts[:i+1]); pre != nil {
			if i == len(parts)-1 {
				return header
			}
			s = pre
		}
	}
	cur := s.top
	for i, p := range parts {
		prim, ok := cur[p.Name]
		if !ok {
			return 0
		}
		var next map[string]toml.Primitive
		var elems []map[string]toml.Primitive
		last := i == len(parts)-1
		switch {
		case last && p.Index >= 0 && s.md.PrimitiveDecode(prim, &elems) == nil && len(elems) > 0:
			return 0 // an element of an array of tables: upTo tells its header's line
		case last: // a key, or an element of an array of values: the line of the key
			var pe toml.ParseError
			if err := s.md.PrimitiveDecode(prim, lineProbe{}); errors.As(err, &pe) {
				return pe.Position.Line
			}
			return 0
		case s.md.PrimitiveDecode(prim, &next) == nil && next != nil:
		case s.md.PrimitiveDecode(prim, &elems) == nil && len(elems) > 0:
			// The decoder records one position per key of an array of tables: its last element's
			// (upTo has cut the file after the element wanted).
			if p.Index >= 0 && p.Index != len(elems)-1 {
				return 0
			}
			next = elems[len(elems)-1]
		default:
			return 0
		}
		cur = next
	}
	return 0
}

// axisSet is the -set flag behind the ablation axis that key (ablation[i]…) is about when a -set
// made that axis or changed it from the file's, else "".
func (w *written) axisSet(key string, cfg *Config) string {
	p := schema.Parse(key)
	if cfg == nil || p[0].Name != "ablation" || p[0].Index < 0 || p[0].Index >= len(cfg.Ablation) {
		return ""
	}
	i, a := p[0].Index, cfg.Ablation[p[0].Index]
	if i < len(cfg.fileAxes) && reflect.DeepEqual(cfg.fileAxes[i], a) {
		return ""
	}
	for _, k := range a.names() {
		if flag, ok := w.axisSets[k]; ok {
			return flag
		}
	}
	return ""
}

// upTo returns, for path naming element k of an array of tables (its parts but the last
// unindexed), the file cut where element k+1 begins, in which element k is the last, and the line
// of element k's header; nil if the file has no such element or path names no array of tables.
// It decodes the file's successive prefixes (those that end inside a value do not decode), which
// only a wrong config's error pays for.
func (s *source) upTo(path []schema.Part) (*source, int) {
	k := path[len(path)-1].Index
	header, end := 0, 0
	lines := strings.SplitAfter(string(s.data), "\n")
	for j := 1; j <= len(lines); j++ {
		var top map[string]any
		if _, err := toml.Decode(strings.Join(lines[:j], ""), &top); err != nil {
			continue
		}
		n, ok := elements(top, path)
		if !ok {
			return nil, 0
		}
		if n > k+1 {
			break
		}
		if n == k+1 {
			header = cmp.Or(header, j)
			end = j
		}
	}
	if header == 0 {
		return nil, 0
	}
	return newSource(s.path, []byte(strings.Join(lines[:end], ""))), header
}

// elements returns the number of elements of the array of tables at path (the last part's
// index ignored) in the decoded file top, and false if path names something else there.
func elements(top map[string]any, path []schema.Part) (int, bool) {
	cur := top
	for i, p := range path {
		v, ok := cur[p.Name]
		if !ok {
			return 0, true // not reached yet
		}
		if i == len(path)-1 {
			elems, ok := v.([]map[string]any)
			return len(elems), ok
		}
		if cur, ok = v.(map[string]any); !ok {
			return 0, false
		}
	}
	return 0, false
}

// written is what a config's author wrote: the file's keys, the -set flags and a run's axis
// values, as a tree of TOML values (tables as map[string]any, arrays of tables as []any of them),
// and where each key was last written. A key's value written as the zero of its type is checked
// against the resolved config by checkWritten.
type written struct {
	tree map[string]any
	src  *source
	// sets maps each key written by a -set flag, or inside a table one wrote, to the flag.
	sets map[string]string
	// axes maps each key written by a run's axis value to the axis.
	axes map[string]string
	// axisSets maps each key a -set made or changed an ablation axis over to the flag.
	axisSets map[string]string
}

// clone copies w for a run's config, which adds its axis values.
func (w *written) clone() *written {
	if w == nil {
		return &written{tree: map[string]any{}}
	}
	return &written{tree: cloneTree(w.tree), src: w.src, sets: maps.Clone(w.sets), axes: maps.Clone(w.axes), axisSets: maps.Clone(w.axisSets)}
}

// cloneTree deep-copies a tree of TOML values.
func cloneTree(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return cloneTree(x)
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneTree(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	}
	return v
}

// add records the dotted key written with value x by the -set flag or axis by (kind "set" or
// "axis"): a table value merges into a table written before, as setting it does. The tables on
// the key's way that nothing wrote before are written by it too (-set loss.options.logq.x=1
// writes the table loss.options.logq), so that an error about such a table names the flag.
func (w *written) add(key string, x any, kind, by string) {
	keys := leafKeys(key, x)
	parts := strings.Split(key, ".")
	for i := 1; i < len(parts); i++ {
		if table := strings.Join(parts[:i], "."); !w.has(table) {
			keys = append(keys, table)
		}
	}
	m, last := schema.Parent(w.tree, key)
	value := cloneValue(x)
	if t, ok := x.(map[string]any); ok {
		if old, ok := m[last].(map[string]any); ok {
			merged := cloneTree(old)
			maps.Copy(merged, cloneTree(t))
			value = merged
		}
	}
	m[last] = value
	origins := &w.sets
	if kind == "axis" {
		origins = &w.axes
	}
	if *origins == nil {
		*origins = map[string]string{}
	}
	for _, k := range keys {
		(*origins)[k] = by
	}
}

// has reports whether the dotted key (a key of tables, no index) was written.
func (w *written) has(key string) bool {
	_, ok := w.value(key)
	return ok
}

// value is the TOML value written for the dotted key (a key of tables, no index), if any.
func (w *written) value(key string) (any, bool) {
	if w == nil {
		return nil, false
	}
	var x any = w.tree
	for _, p := range strings.Split(key, ".") {
		m, ok := x.(map[string]any)
		if !ok {
			return nil, false
		}
		if x, ok = m[p]; !ok {
			return nil, false
		}
	}
	return x, true
}

// setUnder is the first key, in sorted order, that a -set flag wrote at or under the dotted key,
// "" if none did.
func (w *written) setUnder(key string) string {
	if w == nil {
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(w.sets)) {
		if k == key || strings.HasPrefix(k, key+".") {
			return k
		}
	}
	return ""
}

// leafKeys lists key and the dotted keys of the values inside x, a table or list of tables.
func leafKeys(key string, x any) []string {
	out := []string{key}
	switch t := cloneValue(x).(type) {
	case map[string]any:
		for k, v := range t {
			out = append(out, leafKeys(key+"."+k, v)...)
		}
	case []any:
		for _, e := range t {
			if m, ok := e.(map[string]any); ok {
				out = append(out, leafKeys(key, m)[1:]...)
			}
		}
	}
	return out
}

// where is where the dotted key (indices allowed) was written, for an error about it: "-set
// k=v" (a flag), "path:line" (the file) or "path" (not written, or no line known), and whether a
// run's axis value wrote it (where is then "").
func (w *written) where(key string, cfg *Config) (where string, axis bool) {
	plain := schema.Unindexed(key)
	candidates := []string{plain}
	for table, variant := range perVariant {
		if rest, ok := strings.CutPrefix(plain, table+"."); ok && cfg != nil {
			candidates = append(candidates, table+"."+variant(cfg)+"."+rest)
		}
	}
	if w == nil {
		return "", false
	}
	if flag := w.axisSet(key, cfg); flag != "" {
		return "-set " + flag, false
	}
	for _, k := range candidates {
		if _, ok := w.axes[k]; ok {
			return "", true
		}
		if set, ok := w.sets[k]; ok {
			return "-set " + set, false
		}
	}
	path := ""
	if w.src != nil {
		path = w.src.path
		for _, k := range candidates {
			if k == plain {
				k = key // the file's own element, where its line is known
			}
			if n := w.src.line(k); n > 0 {
				return fmt.Sprintf("%s:%d", path, n), false
			}
		}
	}
	return path, false
}

// located prefixes err, an error of resolving or checking cfg whose message starts with the
// dotted key it is about (the convention of every Settings.Resolve), with where that key was
// written (see where): the file and line, or the -set flag. An error about a run's axis value
// is left to the caller, which names the run.
func (w *written) located(err error, cfg *Config) error {
	if err == nil {
		return nil
	}
	key := configSchema().KeyOf(err.Error())
	where, axis := "", false
	if key != "" {
		where, axis = w.where(key, cfg)
	} else if w != nil && w.src != nil {
		where = w.src.path
	}
	if axis || where == "" {
		return err
	}
	return fmt.Errorf("%s: %w", where, err)
}

// checkWritten rejects an explicit zero that resolving replaced: a key written (in the file, by
// -set or by a run's axis value) with the zero value of its type (0, "", false, []) is an error
// when the resolved value differs, since the zero of an absent key means the default but a
// written one would be silently replaced by it. A written zero that resolving keeps
// (sampler.negatives = 0 with the in_batch sampler, train.clip = 0) is a setting, except an empty
// string or list written in the file or by -set, which never is one: a key whose zero is a setting
// of its own says so in its zero tag (eval.workers = 0). In a run's axis values, "" stands for
// "unset" (a zipped axis whose key one cell does not use). Elements of arrays of tables and the
// entries of the tables of free names are checked one by one.
func checkWritten(w *written, resolved *Config) error {
	if w == nil {
		return nil
	}
	return w.check("", configSchema(), w.tree, reflect.ValueOf(resolved).Elem(), resolved)
}

// check walks the written table m of the schema table tb under prefix against the resolved value
// v of that table.
func (w *written) check(prefix string, tb *schema.Table, m map[string]any, v reflect.Value, cfg *Config) error {
	for _, name := range slices.Sorted(maps.Keys(m)) {
		f := tb.Field(name)
		if f == nil {
			continue // rejected when decoded
		}
		key, x := prefix+name, m[name]
		fv := v.Field(f.Index)
		switch f.Kind {
		case schema.KindTable:
			if t, ok := x.(map[string]any); ok {
				if err := w.check(key+".", f.Table, t, fv, cfg); err != nil {
					return err
				}
			}
		case schema.KindArray:
			elems, _ := cloneValue(x).([]any)
			for i, e := range elems {
				t, ok := e.(map[string]any)
				if !ok || i >= fv.Len() {
					continue
				}
				if err := w.check(fmt.Sprintf("%s[%d].", key, i), f.Table, t, fv.Index(i), cfg); err != nil {
					return err
				}
			}
		case schema.KindMap:
			if err := w.checkFree(key, x, fv, cfg); err != nil {
				return err
			}
		default:
			if err := w.checkValue(key, f, x, fv); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkFree checks the written entries of a table of free names against the resolved map v; the
// table of a variant (see perVariant) is checked against the resolved entries when it is the
// run's variant's.
func (w *written) checkFree(key string, x any, v reflect.Value, cfg *Config) error {
	t, ok := x.(map[string]any)
	if !ok {
		return nil
	}
	variant := ""
	if sel, ok := perVariant[key]; ok {
		variant = sel(cfg)
	}
	for _, name := range slices.Sorted(maps.Keys(t)) {
		sub, isTable := t[name].(map[string]any)
		switch {
		case isTable && name == variant:
			for _, opt := range slices.Sorted(maps.Keys(sub)) {
				r, _ := configSchema().Get(v, opt)
				if err := w.checkValue(key+"."+name+"."+opt, nil, sub[opt], r); err != nil {
					return err
				}
			}
		case !isTable:
			r, _ := configSchema().Get(v, name)
			if err := w.checkValue(key+"."+name, nil, t[name], r); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkValue checks the written value x of key (field f, nil for an entry of a table of free
// names) against its resolved value r (the zero Value where resolving dropped it).
func (w *written) checkValue(key string, f *schema.Field, x any, r reflect.Value) error {
	if !zeroTOML(x) || (f != nil && f.Zero != "") {
		return nil
	}
	r = schema.Indirect(r)
	_, byAxis := w.axes[schema.Unindexed(key)]
	if !r.IsValid() || isZero(r) {
		if byAxis || f == nil || !emptyText(x) {
			return nil // a zero that is a setting, an axis's "unset", or an entry its owner reads
		}
		return fmt.Errorf("%s: %s written: leave the key out (an empty value is not a setting)", key, showTOML(x))
	}
	return fmt.Errorf("%s: %s is not allowed (omit the key for the default %s)", key, showTOML(x), showValue(r))
}

// isZero reports the zero value of a setting; an empty list is zero whether nil or not.
func isZero(v reflect.Value) bool {
	if v.Kind() == reflect.Slice {
		return v.Len() == 0
	}
	return v.IsZero()
}

// zeroTOML reports a TOML value that is its type's zero: 0, 0.0, "", false or an empty list.
func zeroTOML(x any) bool {
	switch v := x.(type) {
	case int64:
		return v == 0
	case float64:
		return v == 0
	case string:
		return v == ""
	case bool:
		return !v
	case []any:
		return len(v) == 0
	case []map[string]any:
		return len(v) == 0
	}
	return false
}

// emptyText reports an empty string or list.
func emptyText(x any) bool {
	_, isNumber := x.(int64)
	_, isFloat := x.(float64)
	_, isBool := x.(bool)
	return zeroTOML(x) && !isNumber && !isFloat && !isBool
}

// showTOML writes a TOML value as in a file.
func showTOML(x any) string {
	return showValue(reflect.ValueOf(x))
}
