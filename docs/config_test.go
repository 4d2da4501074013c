package docs

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/samplingbias/workbench/internal/configdoc"
	"github.com/samplingbias/workbench/internal/schema"
)

// writeEnv, set to 1, makes TestConfigDoc write docs/config.md instead of comparing it (as go
// generate ./docs/ does).
const writeEnv = "WORKBENCH_WRITE_CONFIG_DOC"

// TestConfigDoc: docs/config.md is what package configdoc generates from the settings
// declarations (go generate ./docs/).
func TestConfigDoc(t *testing.T) {
	got, err := configdoc.Generate("..")
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv(writeEnv) == "1" {
		if err := os.WriteFile("config.md", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("config.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/config.md is not up to date with the settings declarations; regenerate it with\n\tgo generate ./docs/\nfirst differing line: %s", firstDiff(got, want))
	}
}

// firstDiff returns the first line where a and b differ.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("%d:\ngenerated: %s\nfile:      %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d (one is longer)", min(len(la), len(lb))+1)
}

// row is a row of a table of docs/config.md.
type row struct{ key, typ, def, allowed, meaning string }

// rows reads the rows of the tables of docs/config.md.
func rows(t *testing.T) []row {
	t.Helper()
	b, err := os.ReadFile("config.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []row
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := splitCells(line)
		if len(cells) != 6 {
			t.Fatalf("a row of %d cells: %s", len(cells), line)
		}
		out = append(out, row{strings.Trim(cells[1], "`"), cells[2], strings.Trim(cells[3], "`"), cells[4], cells[5]})
	}
	if len(out) < 150 {
		t.Fatalf("docs/config.md has %d rows of keys", len(out))
	}
	return out
}

// splitCells splits a table row at its unescaped bars, trimming each cell.
func splitCells(line string) []string {
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))[:len(cells)]
}

// value decodes a value written as TOML, integers as floats (10 and 10.0 are one value).
func value(t *testing.T, s string) any {
	t.Helper()
	var m map[string]any
	if _, err := toml.Decode("v = "+s, &m); err != nil {
		t.Fatalf("%s is not a TOML value: %v", s, err)
	}
	return numbers(m["v"])
}

func numbers(v any) any {
	switch v := v.(type) {
	case int64:
		return float64(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = numbers(x)
		}
		return out
	}
	return v
}

// resolvedValue is the TOML value of key in the resolved config of values (see configdoc.Probe),
// ok false when it does not load.
func resolvedValue(tb *schema.Table, values map[string]any, key string) (any, bool) {
	cfg, err := configdoc.Probe(values)
	if err != nil {
		return nil, false
	}
	v, ok := tb.Get(reflect.ValueOf(&cfg).Elem(), key)
	if !ok {
		return nil, false
	}
	x, ok := schema.TOML(v)
	return numbers(x), ok
}

// zeroMeans finds where a meaning says what a written 0 means.
var zeroMeans = regexp.MustCompile(`\b0 means\b|\(0 = |\b0 is\b`)

// TestConfigDocAgainstResolver: every default, allowed name and meaning of a written 0 that
// docs/config.md states is what the loader does (in some setting of the other keys: an option of
// a variant when that variant is chosen, see configdoc.Contexts). A stated default is the value
// resolving fills where it fills the key (where the other keys keep their defaults, if it fills
// it there); every allowed name loads; a key whose meaning says what 0 means loads with 0
// written. The keys of an array of tables, which a dotted key does not reach, are checked as
// the table they share their type with.
func TestConfigDocAgainstResolver(t *testing.T) {
	tb := configdoc.Schema()
	contexts := configdoc.Contexts(tb)
	checked := map[string]int{}
	for _, r := range rows(t) {
		f, entry := tb.Lookup(r.key)
		if f == nil || entry != nil || (f.Kind != schema.KindValue && f.Kind != schema.KindMap) {
			t.Errorf("%s: no key of the config", r.key)
			continue
		}
		if !slices.Contains(configdoc.Keys(tb), r.key) {
			continue // inside an array of tables
		}
		t.Run(r.key, func(t *testing.T) {
			if r.def != "" {
				checked["default"]++
				want := value(t, r.def)
				if got, ok := resolvedValue(tb, map[string]any{}, r.key); ok && !zero(got) && !reflect.DeepEqual(got, want) && !strings.Contains(r.meaning, "A written 0 means") {
					t.Errorf("states the default %s, the loader fills %v", r.def, got)
				}
				found := false
				for _, ctx := range contexts {
					if got, ok := resolvedValue(tb, ctx, r.key); ok && reflect.DeepEqual(got, want) {
						found = true
						break
					}
				}
				if !found {
					t.Errorf("states the default %s, which the loader fills in no setting of the other keys", r.def)
				}
			}
			for _, name := range strings.Split(r.allowed, ", ") {
				if name = strings.Trim(name, "`"); name == "" {
					continue
				}
				checked["allowed"]++
				var v any = name
				if strings.HasPrefix(r.typ, "array of") {
					v = []any{name}
				}
				if !configdoc.Accepts(contexts, r.key, v) {
					t.Errorf("allows %q, which the loader rejects in every setting of the other keys", name)
				}
			}
			if zeroMeans.MatchString(r.meaning) {
				checked["zero"]++
				var zero any = int64(0)
				if strings.HasSuffix(r.typ, "float") {
					zero = 0.0
				}
				if strings.HasPrefix(r.typ, "array of") { // a 0 in the list
					zero = []any{zero}
				}
				loads := false
				for _, ctx := range contexts {
					values := map[string]any{r.key: zero}
					for k, v := range ctx {
						values[k] = v
					}
					if _, ok := resolvedValue(tb, values, r.key); ok {
						loads = true
						break
					}
				}
				if !loads {
					t.Errorf("says what a written 0 means (%q), and 0 written is an error in every setting of the other keys", zeroMeans.FindString(r.meaning))
				}
			}
		})
	}
	if checked["default"] < 100 || checked["allowed"] < 80 || checked["zero"] < 2 {
		t.Errorf("checked %v; the reference states more", checked)
	}
}

// zero reports a TOML value that is its type's zero.
func zero(v any) bool {
	return v == nil || reflect.ValueOf(v).IsZero() || (reflect.ValueOf(v).Kind() == reflect.Slice && reflect.ValueOf(v).Len() == 0)
}

// TestConfigDocNoGoNames: docs/config.md names no Go constant of the settings' packages (a
// Default constant, an enum's constant): a config's author writes values, which the reference
// shows in their place.
func TestConfigDocNoGoNames(t *testing.T) {
	b, err := os.ReadFile("config.md")
	if err != nil {
		t.Fatal(err)
	}
	names, err := configdoc.Constants("..")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 50 {
		t.Fatalf("%d constants found", len(names))
	}
	for _, n := range names {
		if regexp.MustCompile(`\b` + n + `\b`).Match(b) {
			t.Errorf("docs/config.md names the Go constant %s", n)
		}
	}
}
