package schema

import (
	"encoding"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Kind is what a key holds.
type Kind int8

// Kinds of keys.
const (
	// KindValue is a leaf: a number, string, boolean, enum or list of them.
	KindValue Kind = iota
	// KindTable is a table of known keys (a struct).
	KindTable
	// KindArray is an array of tables ([[section.key]]).
	KindArray
	// KindMap is a table of free names (a map from strings), such as a registered variant's
	// options; its entries are not in the schema.
	KindMap
)

// Table is a struct type of the settings tree and its keys.
type Table struct {
	Type   reflect.Type
	Fields []*Field
}

// Field is one key of a table.
type Field struct {
	// Name is the key: the field's toml tag.
	Name string
	// Go is the struct field; Index its position in Table.Type.
	Go    reflect.StructField
	Index int
	Kind  Kind
	// Table is the table of a KindTable field, and of the elements of a KindArray one.
	Table *Table
	// Affects is the field's affects tag, "" when it has none (it then inherits its table's).
	Affects string
	// Zero is the field's zero tag: what a written zero value means, "" when it means the
	// default.
	Zero string
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// New returns the schema of the struct type t.
func New(t reflect.Type) *Table {
	return build(t, map[reflect.Type]*Table{})
}

// build returns the table of struct type t; tables holds those already built, so that a type
// nested in itself shares its table.
func build(t reflect.Type, tables map[reflect.Type]*Table) *Table {
	if tb, ok := tables[t]; ok {
		return tb
	}
	tb := &Table{Type: t}
	tables[t] = tb
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("toml"), ",")
		if !sf.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f := &Field{Name: name, Go: sf, Index: i, Affects: sf.Tag.Get("affects"), Zero: sf.Tag.Get("zero")}
		ft := sf.Type
		switch {
		case isTable(ft):
			f.Kind, f.Table = KindTable, build(ft, tables)
		case ft.Kind() == reflect.Slice && isTable(ft.Elem()):
			f.Kind, f.Table = KindArray, build(ft.Elem(), tables)
		case ft.Kind() == reflect.Map && ft.Key().Kind() == reflect.String:
			f.Kind = KindMap
		}
		tb.Fields = append(tb.Fields, f)
	}
	return tb
}

// isTable reports whether values of type t are TOML tables of known keys: structs that do not
// decode themselves from text.
func isTable(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && !reflect.PointerTo(t).Implements(textUnmarshaler)
}

// Field returns the field whose key is name, nil if none is.
func (t *Table) Field(name string) *Field {
	for _, f := range t.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Keys lists the dotted keys of the table under prefix (with its trailing dot, or ""), tables
// included, in declaration order; the keys inside an array of tables have no index. A table
// nested in itself is listed once, at its first level.
func (t *Table) Keys(prefix string) []string {
	return t.keys(prefix, map[*Table]bool{})
}

func (t *Table) keys(prefix string, open map[*Table]bool) []string {
	open[t] = true
	defer delete(open, t)
	var out []string
	for _, f := range t.Fields {
		key := prefix + f.Name
		out = append(out, key)
		if f.Table != nil && !open[f.Table] {
			out = append(out, f.Table.keys(key+".", open)...)
		}
	}
	return out
}

// Part is one component of a dotted key: a name, with the index of an element of an array of
// tables ("of[1]") or -1.
type Part struct {
	Name  string
	Index int
}

// Parse splits a dotted key into its parts: "sampler.of[1].kind" is sampler, of[1], kind.
func Parse(key string) []Part {
	names := strings.Split(key, ".")
	parts := make([]Part, len(names))
	for i, n := range names {
		parts[i] = Part{Name: n, Index: -1}
		if open := strings.IndexByte(n, '['); open > 0 && strings.HasSuffix(n, "]") {
			if k, err := strconv.Atoi(n[open+1 : len(n)-1]); err == nil && k >= 0 {
				parts[i] = Part{Name: n[:open], Index: k}
			}
		}
	}
	return parts
}

// Unindexed is the key without the indices of array elements: "sampler.of[1].kind" is
// "sampler.of.kind".
func Unindexed(key string) string {
	parts := Parse(key)
	names := make([]string, len(parts))
	for i, p := range parts {
		names[i] = p.Name
	}
	return strings.Join(names, ".")
}

// Lookup returns the field the dotted key names (indices of array elements allowed) and,
// for a key below a table of free names, the entry names below that field; nil if the key
// names no field.
func (t *Table) Lookup(key string) (*Field, []string) {
	parts := Parse(key)
	tb := t
	for i, p := range parts {
		if tb == nil {
			return nil, nil
		}
		f := tb.Field(p.Name)
		if f == nil || (p.Index >= 0 && f.Kind != KindArray) {
			return nil, nil
		}
		if i == len(parts)-1 {
			return f, nil
		}
		if f.Kind == KindMap {
			rest := make([]string, 0, len(parts)-i-1)
			for _, q := range parts[i+1:] {
				rest = append(rest, q.Name)
			}
			return f, rest
		}
		tb = f.Table
	}
	return nil, nil
}

// KeyOf returns the dotted key an error message begins with (before its first colon, comma or
// space), the convention of every settings error ("negatives: must be > 0", "options.a,
// options.b: unknown option"), when it names a key of the table or an entry of a table of free
// names in it (indices of array elements allowed), else "".
func (t *Table) KeyOf(msg string) string {
	end := strings.IndexAny(msg, ":, ")
	if end <= 0 {
		return ""
	}
	if f, _ := t.Lookup(msg[:end]); f == nil {
		return ""
	}
	return msg[:end]
}

// Affects returns the affects tag that governs the dotted key (indices of array elements
// allowed): its field's, or else that of the nearest table above it that has one; "" when none
// has one or the key names no field. An entry of a table of free names is governed by that
// table's field.
func (t *Table) Affects(key string) string {
	aff, tb := "", t
	for _, p := range Parse(key) {
		if tb == nil {
			return ""
		}
		f := tb.Field(p.Name)
		if f == nil {
			return ""
		}
		if f.Affects != "" {
			aff = f.Affects
		}
		if f.Kind == KindMap {
			return aff
		}
		tb = f.Table
	}
	return aff
}

// Get returns the value of v (of the table's type) at the dotted key: a field, an element of
// an array of tables ("sampler.of[1].kind"), or an entry of a table of free names
// ("loss.options.alpha", of a table in it too). Pointers and interfaces on the way are followed;
// ok is false when the key names nothing in v.
func (t *Table) Get(v reflect.Value, key string) (_ reflect.Value, ok bool) {
	for _, p := range Parse(key) {
		v = Indirect(v)
		switch v.Kind() {
		case reflect.Struct:
			var tb *Table
			if tb = t.tableOf(v.Type()); tb == nil {
				return reflect.Value{}, false
			}
			f := tb.Field(p.Name)
			if f == nil {
				return reflect.Value{}, false
			}
			v = v.Field(f.Index)
		case reflect.Map:
			if v.Type().Key().Kind() != reflect.String || v.IsNil() {
				return reflect.Value{}, false
			}
			e := v.MapIndex(reflect.ValueOf(p.Name).Convert(v.Type().Key()))
			if !e.IsValid() {
				return reflect.Value{}, false
			}
			v = e
		default:
			return reflect.Value{}, false
		}
		if p.Index >= 0 {
			v = Indirect(v)
			if v.Kind() != reflect.Slice || p.Index >= v.Len() {
				return reflect.Value{}, false
			}
			v = v.Index(p.Index)
		}
	}
	v = Indirect(v)
	return v, v.IsValid()
}

// tableOf finds the table of struct type rt in the schema, nil if it has none.
func (t *Table) tableOf(rt reflect.Type) *Table {
	return t.find(rt, map[*Table]bool{})
}

func (t *Table) find(rt reflect.Type, seen map[*Table]bool) *Table {
	if t.Type == rt {
		return t
	}
	seen[t] = true
	for _, f := range t.Fields {
		if f.Table != nil && !seen[f.Table] {
			if tb := f.Table.find(rt, seen); tb != nil {
				return tb
			}
		}
	}
	return nil
}

// Indirect follows pointers and interfaces; a nil one gives the zero Value.
func Indirect(v reflect.Value) reflect.Value {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	return v
}

// Walk calls visit for every leaf of v, a value of the table's type, under prefix (a dotted key
// with its trailing dot, or ""): every value field, every element of an array of tables under
// "key[i]", and every entry of a table of free names (its tables' entries too) under
// "key.name", names in sorted order. Nil pointers and interfaces have no leaves; a list of
// values is one leaf.
func (t *Table) Walk(prefix string, v reflect.Value, visit func(key string, v reflect.Value)) {
	v = Indirect(v)
	if !v.IsValid() {
		return
	}
	for _, f := range t.Fields {
		fv := v.Field(f.Index)
		key := prefix + f.Name
		switch f.Kind {
		case KindTable:
			if fv = Indirect(fv); fv.IsValid() {
				f.Table.Walk(key+".", fv, visit)
			}
		case KindArray:
			for i := range fv.Len() {
				f.Table.Walk(fmt.Sprintf("%s[%d].", key, i), fv.Index(i), visit)
			}
		case KindMap:
			WalkFree(key, fv, visit)
		default:
			if fv = Indirect(fv); fv.IsValid() {
				visit(key, fv)
			}
		}
	}
}

// WalkFree visits the entries of v, a table of free names (a map from strings), and of the tables
// in it, under key, in sorted order of their names; a value that is no such table is one leaf.
func WalkFree(key string, v reflect.Value, visit func(string, reflect.Value)) {
	v = Indirect(v)
	if !v.IsValid() {
		return
	}
	if v.Kind() != reflect.Map || v.Type().Key().Kind() != reflect.String {
		visit(key, v)
		return
	}
	names := make([]string, 0, v.Len())
	for _, k := range v.MapKeys() {
		names = append(names, k.String())
	}
	slices.Sort(names)
	for _, n := range names {
		WalkFree(key+"."+n, v.MapIndex(reflect.ValueOf(n).Convert(v.Type().Key())), visit)
	}
}

// Nest sets the dotted key (no index) of the tree of TOML tables tree to x, making the tables on
// the way: "a.b.c" = 1 is {a = {b = {c = 1}}}.
func Nest(tree map[string]any, key string, x any) {
	m, last := Parent(tree, key)
	m[last] = x
}

// Parent returns the table of the tree of TOML tables tree that holds the dotted key (no index),
// making the tables on the way, and the key's last part.
func Parent(tree map[string]any, key string) (map[string]any, string) {
	parts := strings.Split(key, ".")
	m := tree
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	return m, parts[len(parts)-1]
}
