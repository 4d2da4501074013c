package schema

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

type level string

func (l *level) UnmarshalText(b []byte) error {
	if s := string(b); s != "low" && s != "high" {
		return &reflect.ValueError{Method: "level " + s}
	}
	*l = level(b)
	return nil
}

type inner struct {
	Kind  level   `toml:"kind"`
	Count int     `toml:"count" zero:"none" affects:"nothing"`
	Of    []inner `toml:"of"`
}

type root struct {
	Name    string         `toml:"name" affects:"nothing"`
	Rate    *float64       `toml:"rate"`
	Inner   inner          `toml:"inner" affects:"training"`
	Options map[string]any `toml:"options"`
	Hidden  int            `toml:"-"`
	private int
}

// TestKeys: every key is listed once, tables included and in declaration order; a table nested in
// itself is listed at its first level only; tags are read.
func TestKeys(t *testing.T) {
	s := New(reflect.TypeFor[root]())
	want := []string{"name", "rate", "inner", "inner.kind", "inner.count", "inner.of", "options"}
	if got := s.Keys(""); !slices.Equal(got, want) {
		t.Errorf("Keys = %v, want %v", got, want)
	}
	of, _ := s.Lookup("inner.of[1].count")
	if of == nil || of.Zero != "none" || of.Kind != KindValue {
		t.Errorf("Lookup(inner.of[1].count) = %+v", of)
	}
	if f, rest := s.Lookup("options.a.b"); f == nil || f.Kind != KindMap || !slices.Equal(rest, []string{"a", "b"}) {
		t.Errorf("Lookup(options.a.b) = %+v, %v", f, rest)
	}
	if f, _ := s.Lookup("inner.kind.x"); f != nil {
		t.Errorf("Lookup(inner.kind.x) = %+v, want nil", f)
	}
	if f := s.Field("inner"); f.Affects != "training" || f.Kind != KindTable || f.Table.Field("of").Table != f.Table {
		t.Errorf("inner: %+v", f)
	}
}

// TestKeyOf: the key an error message begins with, before its colon or a space, when the schema
// has it (an element of an array of tables, an entry of a table of free names); else "".
func TestKeyOf(t *testing.T) {
	s := New(reflect.TypeFor[root]())
	for _, tt := range []struct{ msg, want string }{
		{"inner.count: must be > 0", "inner.count"},
		{"inner.of[1].kind: unknown", "inner.of[1].kind"},
		{"options.width: too wide", "options.width"},
		{"options.a, options.b: unknown options", "options.a"},
		{"rate must be positive", "rate"},
		{"hidden: not a key", ""},
		{"inner.counts: misspelt", ""},
		{": empty", ""},
		{"no colon", ""},
	} {
		t.Run(tt.msg, func(t *testing.T) {
			if got := s.KeyOf(tt.msg); got != tt.want {
				t.Errorf("KeyOf(%q) = %q, want %q", tt.msg, got, tt.want)
			}
		})
	}
}

// TestAffects: a key is governed by its field's affects tag, else by the nearest table's above
// it; elements of arrays of tables and entries of free tables included.
func TestAffects(t *testing.T) {
	s := New(reflect.TypeFor[root]())
	for key, want := range map[string]string{
		"name": "nothing", "rate": "", "inner": "training", "inner.kind": "training",
		"inner.count": "nothing", "inner.of[2].kind": "training", "inner.of[0].count": "nothing",
		"options.a.b": "", "nope": "", "inner.kind.x": "",
	} {
		if got := s.Affects(key); got != want {
			t.Errorf("Affects(%q) = %q, want %q", key, got, want)
		}
	}
}

// TestSetGetWalk: Set converts TOML values as a decoder does and names the key in errors; Get
// reads what Set wrote, elements of arrays and entries of free tables included; Walk visits every
// leaf under its key.
func TestSetGetWalk(t *testing.T) {
	s := New(reflect.TypeFor[root]())
	var r root
	v := reflect.ValueOf(&r).Elem()
	none := func(string) string { return "" }
	for _, tc := range []struct {
		key string
		x   any
		err string
	}{
		{"name", "a", ""},
		{"rate", int64(2), ""},
		{"inner.kind", "high", ""},
		{"inner.of", []any{map[string]any{"count": int64(3)}, map[string]any{"kind": "low"}}, ""},
		{"options.alpha", 0.5, ""},
		{"options.v.beta", []any{int64(1)}, ""},
		{"inner.kind", "middle", "inner.kind: "},
		{"inner.count", "x", "inner.count: incompatible types: expected an integer, got a string"},
		{"inner.of", []any{map[string]any{"colour": "red"}}, "unknown key inner.of[0].colour"},
		{"nope", 1.0, "unknown key nope"},
		{"name.x", 1.0, "unknown key name.x (name is not a table)"},
	} {
		err := s.Set(v, tc.key, tc.x, none)
		if got := ""; err != nil {
			got = err.Error()
			if tc.err == "" || !strings.Contains(got, tc.err) {
				t.Errorf("Set(%s, %v) = %v, want %q", tc.key, tc.x, err, tc.err)
			}
		} else if tc.err != "" {
			t.Errorf("Set(%s, %v) succeeded, want %q", tc.key, tc.x, tc.err)
		}
	}
	for key, want := range map[string]any{"name": "a", "rate": 2.0, "inner.kind": level("high"), "inner.of[0].count": 3,
		"inner.of[1].kind": level("low"), "options.alpha": 0.5} {
		got, ok := s.Get(v, key)
		if !ok || !reflect.DeepEqual(got.Interface(), want) {
			t.Errorf("Get(%s) = %v, %v; want %v", key, got, ok, want)
		}
	}
	if _, ok := s.Get(v, "inner.of[2].count"); ok {
		t.Error("Get(inner.of[2].count) found an element past the end")
	}
	var keys []string
	s.Walk("", v, func(key string, v reflect.Value) { keys = append(keys, key) })
	want := []string{"name", "rate", "inner.kind", "inner.count", "inner.of[0].kind", "inner.of[0].count", "inner.of[1].kind",
		"inner.of[1].count", "options.alpha", "options.v.beta"}
	if !slices.Equal(keys, want) {
		t.Errorf("Walk visits %v, want %v", keys, want)
	}
}

// TestToTOML: ToTOML is the inverse of Assign for an options struct, zero values included.
func TestToTOML(t *testing.T) {
	type opts struct {
		Alpha float64  `toml:"alpha"`
		N     int      `toml:"n"`
		Names []string `toml:"names"`
		Off   bool     `toml:"off"`
		Ptr   *int     `toml:"ptr"`
	}
	in := opts{Alpha: 0.5, Names: []string{"a"}}
	table := ToTOML(&in)
	if want := map[string]any{"alpha": 0.5, "n": int64(0), "names": []any{"a"}, "off": false}; !reflect.DeepEqual(table, want) {
		t.Errorf("ToTOML = %#v, want %#v", table, want)
	}
	var out opts
	if err := Assign(reflect.ValueOf(&out).Elem(), table, "opts"); err != nil || !reflect.DeepEqual(out, in) {
		t.Errorf("Assign(ToTOML(x)) = %+v, %v; want %+v", out, err, in)
	}
	// Go values of other integer and float types are converted as their TOML values.
	if err := Assign(reflect.ValueOf(&out).Elem(), map[string]any{"n": 7, "alpha": float32(0.25)}, "opts"); err != nil || out.N != 7 || out.Alpha != 0.25 {
		t.Errorf("Assign of Go ints and float32: %+v, %v", out, err)
	}
}

func TestParse(t *testing.T) {
	got := Parse("sampler.of[1].kind")
	if want := []Part{{"sampler", -1}, {"of", 1}, {"kind", -1}}; !slices.Equal(got, want) {
		t.Errorf("Parse = %v, want %v", got, want)
	}
	if got := Unindexed("a.b[12].c[x]"); got != "a.b.c[x]" {
		t.Errorf("Unindexed = %q", got)
	}
}

// TestTypeMismatch: the wording of a value of the wrong type names both types in words, and the
// value written, when known, in the form the key expects.
func TestTypeMismatch(t *testing.T) {
	for _, tc := range []struct{ got, want, raw, msg string }{
		{"int64", "string", "0", `incompatible types: expected a string, got an integer (write it in quotes: "0")`},
		{"integer", "string", "", "incompatible types: expected a string, got an integer"},
		{"string", "integer", "", "incompatible types: expected an integer, got a string"},
		{"float64", "int", "1.5", "incompatible types: expected an integer, got a number with a fraction"},
		{"string", "float64", "", "incompatible types: expected a number, got a string"},
		{"integer", "slice", "1", "incompatible types: expected a list, got an integer (write a list: [1])"},
		{"string", "boolean", "", "incompatible types: expected true or false, got a string"},
		{"map[string]any", "int", "", "incompatible types: expected an integer, got a table"},
	} {
		if got := TypeMismatch(tc.got, tc.want, tc.raw).Error(); got != tc.msg {
			t.Errorf("TypeMismatch(%q, %q, %q) = %q, want %q", tc.got, tc.want, tc.raw, got, tc.msg)
		}
	}
}
