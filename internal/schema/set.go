package schema

import (
	"encoding"
	"fmt"
	"maps"
	"math"
	"reflect"
	"strings"
)

// Set sets the dotted key of v (a settable value of the table's type) to the TOML value x (a
// string, int64, float64, bool, []any or map[string]any, as a TOML decoder gives), directly by
// reflection: no TOML encoding and decoding in between. The conversions are those of decoding
// the key from a TOML file (see Assign). A key below a table of free names sets that entry, the
// table's other entries kept; an unknown key or a value of the wrong type is an error naming
// the key, with the closest keys of the schema for a misspelling (suggest).
func (t *Table) Set(v reflect.Value, key string, x any, suggest func(key string) string) error {
	parts := strings.Split(key, ".")
	tb := t
	for i, p := range parts {
		var f *Field
		if tb != nil {
			f = tb.Field(p)
		}
		if f == nil {
			return fmt.Errorf("unknown key %s%s", key, suggest(key))
		}
		v = v.Field(f.Index)
		last := i == len(parts)-1
		switch {
		case !last && f.Kind == KindMap:
			return setMapEntry(v, parts[i+1:], x, key, strings.Join(parts[:i+1], "."))
		case !last && f.Kind != KindTable:
			return fmt.Errorf("unknown key %s (%s is not a table)", key, strings.Join(parts[:i+1], "."))
		}
		tb = f.Table
	}
	if err := Assign(v, x, key); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

// setMapEntry sets the entry rest[0] of the map m (a table of free names such as loss.options)
// to x, as a TOML file's [table] section with that key does: the map's other entries are kept,
// and m is replaced by a new map, never changed in place. An entry of a map of any values may
// be a table itself ([loss.options.<variant>]).
func setMapEntry(m reflect.Value, rest []string, x any, key, table string) error {
	t := m.Type()
	var elem reflect.Value
	if len(rest) > 1 {
		if t.Elem().Kind() != reflect.Interface {
			return fmt.Errorf("unknown key %s (%s.%s is not a table)", key, table, rest[0])
		}
		inner, _ := mapEntry(m, rest[0]).(map[string]any)
		if inner == nil && mapEntry(m, rest[0]) != nil {
			return fmt.Errorf("unknown key %s (%s.%s is not a table)", key, table, rest[0])
		}
		v := reflect.ValueOf(maps.Clone(inner))
		if inner == nil {
			v = reflect.ValueOf(map[string]any{})
		}
		p := reflect.New(v.Type()).Elem()
		p.Set(v)
		if err := setMapEntry(p, rest[1:], x, key, table+"."+rest[0]); err != nil {
			return err
		}
		elem = reflect.New(t.Elem()).Elem()
		elem.Set(p)
	} else {
		elem = reflect.New(t.Elem()).Elem()
		if err := Assign(elem, x, key); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	out := reflect.MakeMapWithSize(t, m.Len()+1)
	for it := m.MapRange(); it.Next(); {
		out.SetMapIndex(it.Key(), it.Value())
	}
	out.SetMapIndex(reflect.ValueOf(rest[0]).Convert(t.Key()), elem)
	m.Set(out)
	return nil
}

// mapEntry is the entry name of the map m, nil if it has none.
func mapEntry(m reflect.Value, name string) any {
	if m.IsNil() {
		return nil
	}
	e := m.MapIndex(reflect.ValueOf(name).Convert(m.Type().Key()))
	if !e.IsValid() {
		return nil
	}
	return e.Interface()
}

// tomlUnmarshaler is the interface of a type that decodes itself from any TOML value
// (BurntSushi/toml's Unmarshaler).
type tomlUnmarshaler interface{ UnmarshalTOML(any) error }

// Assign stores the TOML value x in v with the conversions of decoding a TOML file: a type with
// UnmarshalTOML takes any value, one with UnmarshalText a string (typed enums check their names
// there); an integer fills an integer or float, a float a float, a list a list, a table a struct
// (its other fields kept; an unknown key is an error) or a map. key names v in the errors about
// nested keys.
func Assign(v reflect.Value, x any, key string) error {
	x = normalize(x)
	if v.CanAddr() {
		if u, ok := v.Addr().Interface().(tomlUnmarshaler); ok {
			return u.UnmarshalTOML(x)
		}
		if u, ok := v.Addr().Interface().(encoding.TextUnmarshaler); ok {
			s, ok := x.(string)
			if !ok {
				return badType(v, x)
			}
			return u.UnmarshalText([]byte(s))
		}
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.NumMethod() != 0 {
			return badType(v, x)
		}
		if x == nil {
			v.SetZero()
		} else {
			v.Set(reflect.ValueOf(x))
		}
		return nil
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if err := Assign(p.Elem(), x, key); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.String:
		s, ok := x.(string)
		if !ok {
			return badType(v, x)
		}
		v.SetString(s)
		return nil
	case reflect.Bool:
		b, ok := x.(bool)
		if !ok {
			return badType(v, x)
		}
		v.SetBool(b)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := x.(int64)
		if !ok {
			return badType(v, x)
		}
		if v.OverflowInt(n) {
			return fmt.Errorf("%d is out of range for %s", n, v.Kind())
		}
		v.SetInt(n)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := x.(int64)
		if !ok {
			return badType(v, x)
		}
		if n < 0 || v.OverflowUint(uint64(n)) {
			return fmt.Errorf("%d is out of range for %s", n, v.Kind())
		}
		v.SetUint(uint64(n))
		return nil
	case reflect.Float32, reflect.Float64:
		var f float64
		switch n := x.(type) {
		case float64:
			f = n
		case int64:
			if n > 1<<53 || n < -(1<<53) {
				return fmt.Errorf("%d is not exactly representable as a float", n)
			}
			f = float64(n)
		default:
			return badType(v, x)
		}
		if v.Kind() == reflect.Float32 && !math.IsInf(f, 0) && math.Abs(f) > math.MaxFloat32 {
			return fmt.Errorf("%g is out of range for float32", f)
		}
		v.SetFloat(f)
		return nil
	case reflect.Slice:
		list, ok := x.([]any)
		if !ok {
			if tables, isTables := x.([]map[string]any); isTables { // an array of tables
				list = make([]any, len(tables))
				for i, t := range tables {
					list[i] = t
				}
			} else {
				return badType(v, x)
			}
		}
		out := reflect.MakeSlice(v.Type(), len(list), len(list))
		for i, e := range list {
			if err := Assign(out.Index(i), e, fmt.Sprintf("%s[%d]", key, i)); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		v.Set(out)
		return nil
	case reflect.Struct:
		table, ok := x.(map[string]any)
		if !ok {
			return badType(v, x)
		}
		tb := New(v.Type())
		for name, e := range table {
			f := tb.Field(name)
			if f == nil {
				return fmt.Errorf("unknown key %s.%s", key, name)
			}
			if err := Assign(v.Field(f.Index), e, key+"."+name); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		return nil
	case reflect.Map:
		table, ok := x.(map[string]any)
		if !ok || v.Type().Key().Kind() != reflect.String {
			return badType(v, x)
		}
		out := reflect.MakeMapWithSize(v.Type(), len(table))
		for name, e := range table {
			elem := reflect.New(v.Type().Elem()).Elem()
			if err := Assign(elem, e, key+"."+name); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			out.SetMapIndex(reflect.ValueOf(name).Convert(v.Type().Key()), elem)
		}
		v.Set(out)
		return nil
	}
	return badType(v, x)
}

// normalize gives a value built in Go (an int, a float32, a typed slice or map) the type a TOML
// decoder gives the same value: int64, float64, []any, map[string]any.
func normalize(x any) any {
	switch x.(type) {
	case nil, string, int64, float64, bool, []any, map[string]any, []map[string]any:
		return x
	}
	v := reflect.ValueOf(x)
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if v.Uint() <= math.MaxInt64 {
			return int64(v.Uint())
		}
	case reflect.Float32, reflect.Float64:
		return v.Float()
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	case reflect.Slice, reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = normalize(v.Index(i).Interface())
		}
		return out
	case reflect.Map:
		if v.Type().Key().Kind() == reflect.String {
			out := make(map[string]any, v.Len())
			for it := v.MapRange(); it.Next(); {
				out[it.Key().String()] = normalize(it.Value().Interface())
			}
			return out
		}
	}
	return x
}

// badType is the error of a value of the wrong type (TypeMismatch).
func badType(v reflect.Value, x any) error {
	want := v.Kind().String()
	if v.CanAddr() {
		if _, ok := v.Addr().Interface().(encoding.TextUnmarshaler); ok {
			want = "string" // a typed enum or another value written as text
		}
	}
	raw := ""
	switch x.(type) {
	case int64, float64, bool:
		raw = fmt.Sprint(x)
	}
	return TypeMismatch(tomlTypeOf(x), want, raw)
}

// TypeError is the error of a value of the wrong type: TOML type Got (the decoder's or
// tomlTypeOf's name) where a value of Go or TOML type Want is expected.
type TypeError struct {
	Got, Want string
	msg       string
}

func (e *TypeError) Error() string { return e.msg }

// TypeMismatch is the error of a value of TOML type got (the decoder's or tomlTypeOf's name) where
// a value of Go or TOML type want is expected, in words ("incompatible types: expected an
// integer, got a string"); raw, the value as written when known, makes the hint of a number or
// boolean written for a string: its quoted form. It is a *TypeError.
func TypeMismatch(got, want, raw string) error {
	w, g := typeWords(want), typeWords(got)
	if g == "a number" {
		g = "a number with a fraction"
	}
	msg := fmt.Sprintf("incompatible types: expected %s, got %s", w, g)
	switch {
	case raw == "" || g == "a string":
	case w == "a string":
		msg += fmt.Sprintf(" (write it in quotes: %q)", raw)
	case w == "a list":
		msg += fmt.Sprintf(" (write a list: [%s])", raw)
	}
	return &TypeError{Got: got, Want: want, msg: msg}
}

// typeWords names a TOML type (as the decoder and tomlTypeOf write them) or a Go kind in words.
func typeWords(t string) string {
	switch {
	case t == "string":
		return "a string"
	case t == "integer" || strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		return "an integer"
	case t == "float" || strings.HasPrefix(t, "float"):
		return "a number"
	case t == "bool" || t == "boolean":
		return "true or false"
	case t == "slice" || t == "array" || strings.HasPrefix(t, "[]"):
		return "a list"
	case t == "struct" || t == "table" || t == "map" || strings.HasPrefix(t, "map["):
		return "a table"
	}
	return t
}

// tomlTypeOf names the TOML type of a decoded value.
func tomlTypeOf(x any) string {
	switch x.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case []any, []map[string]any:
		return "array"
	case map[string]any:
		return "table"
	}
	return fmt.Sprintf("%T", x)
}

// ToTOML writes the exported fields of the struct v (a struct or a pointer to one) with toml
// tags as a table of TOML values, the inverse of Assign: every field, zero values included.
func ToTOML(v any) map[string]any {
	rv := Indirect(reflect.ValueOf(v))
	out := map[string]any{}
	for _, f := range New(rv.Type()).Fields {
		if x, ok := TOML(rv.Field(f.Index)); ok {
			out[f.Name] = x
		}
	}
	return out
}

// TOML is the TOML value of v (int64, float64, string, bool, []any or map[string]any; a type
// with MarshalText as its text); ok is false for a nil pointer or interface.
func TOML(v reflect.Value) (any, bool) {
	if v.CanInterface() {
		if m, ok := v.Interface().(encoding.TextMarshaler); ok && v.Kind() != reflect.Struct {
			if b, err := m.MarshalText(); err == nil {
				return string(b), true
			}
		}
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil, false
		}
		return TOML(v.Elem())
	case reflect.String:
		return v.String(), true
	case reflect.Bool:
		return v.Bool(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(v.Uint()), true
	case reflect.Float32, reflect.Float64:
		return v.Float(), true
	case reflect.Slice, reflect.Array:
		out := make([]any, 0, v.Len())
		for i := range v.Len() {
			if x, ok := TOML(v.Index(i)); ok {
				out = append(out, x)
			}
		}
		return out, true
	case reflect.Map:
		out := map[string]any{}
		for it := v.MapRange(); it.Next(); {
			if x, ok := TOML(it.Value()); ok {
				out[fmt.Sprint(it.Key().Interface())] = x
			}
		}
		return out, true
	case reflect.Struct:
		return ToTOML(v.Interface()), true
	}
	return nil, false
}
