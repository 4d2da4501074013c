package workbench

import (
	"encoding"
	"fmt"
	"maps"
	"math"
	"reflect"
	"strings"

	isetting "github.com/samplingbias/workbench/internal/setting"
)

// setKey sets the dotted key of the struct v to the TOML value x (a string, int64, float64,
// bool, []any or map[string]any, as parseValue and the TOML decoder give), directly by
// reflection: no TOML encoding and decoding in between. The conversions are the TOML decoder's:
// an integer fills an integer or float setting, a float a float one, a string a string or a type
// with UnmarshalText (typed enums check their names there), a list a list, a table a struct
// (other fields kept). An unknown key or a value of the wrong type is an error naming the key.
func setKey(v reflect.Value, key string, x any) error {
	parts := strings.Split(key, ".")
	for i, p := range parts {
		f, ok := fieldByKey(v, p)
		if !ok {
			return fmt.Errorf("unknown key %s%s", key, isetting.DidYouMean(key, keysOf(reflect.TypeOf(Config{}), "")))
		}
		v = f
		if i < len(parts)-1 && v.Kind() == reflect.Map {
			return setMapEntry(v, parts[i+1:], x, key, strings.Join(parts[:i+1], "."))
		}
		if i < len(parts)-1 && v.Kind() != reflect.Struct {
			return fmt.Errorf("unknown key %s (%s is not a table)", key, strings.Join(parts[:i+1], "."))
		}
	}
	if err := setValue(v, x, key); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

// setMapEntry sets the entry rest[0] of the map m (a table such as loss.options, named table)
// to x, as a TOML file's [table] section with that key does: the map's other entries are kept,
// and m is replaced by a new map, never changed in place. An entry is not a table (the config's
// undecoded-key check rejects keys below a map's entries in a file too).
func setMapEntry(m reflect.Value, rest []string, x any, key, table string) error {
	t := m.Type()
	if t.Key().Kind() != reflect.String {
		return fmt.Errorf("unknown key %s (%s is not a table of names)", key, table)
	}
	var elem reflect.Value
	if len(rest) > 1 { // a table inside a table of free names: [loss.options.<variant>]
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
		var err error
		if elem, err = mapElem(t, x, key); err != nil {
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

// mapElem is x stored in a new element of the map type t; key names it in errors.
func mapElem(t reflect.Type, x any, key string) (reflect.Value, error) {
	elem := reflect.New(t.Elem()).Elem()
	return elem, setValue(elem, x, key)
}

// fieldByKey finds the field of struct v whose TOML key is name.
func fieldByKey(v reflect.Value, name string) (reflect.Value, bool) {
	if v.Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	t := v.Type()
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && f.Tag.Get("toml") != "-" && tomlName(f) == name {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// setValue stores x in v; key names v in errors about nested keys.
func setValue(v reflect.Value, x any, key string) error {
	if v.CanAddr() {
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
		if err := setValue(p.Elem(), x, key); err != nil {
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
			return badType(v, x)
		}
		out := reflect.MakeSlice(v.Type(), len(list), len(list))
		for i, e := range list {
			if err := setValue(out.Index(i), e, fmt.Sprintf("%s[%d]", key, i)); err != nil {
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
		for name, e := range table {
			f, ok := fieldByKey(v, name)
			if !ok {
				return fmt.Errorf("unknown key %s.%s", key, name)
			}
			if err := setValue(f, e, key+"."+name); err != nil {
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
			elem, err := mapElem(v.Type(), e, key+"."+name)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			out.SetMapIndex(reflect.ValueOf(name).Convert(v.Type().Key()), elem)
		}
		v.Set(out)
		return nil
	}
	return badType(v, x)
}

// badType is the TOML decoder's wording for a value of the wrong type.
func badType(v reflect.Value, x any) error {
	return fmt.Errorf("incompatible types: TOML value has type %T; destination has type %s", x, v.Type())
}

// keysOf lists the dotted keys of the settings of the struct type t under prefix, tables
// (structs, and the elements of arrays of tables) included: the names an unknown key is compared
// with for "did you mean". A table type nested in itself (a mixture's [[sampler.of]] are samplers)
// is listed once, at its first level.
func keysOf(t reflect.Type, prefix string) []string {
	return keysOfIn(t, prefix, map[reflect.Type]bool{})
}

// keysOfIn is keysOf that skips the table types in open, those of the tables it is inside.
func keysOfIn(t reflect.Type, prefix string, open map[reflect.Type]bool) []string {
	open[t] = true
	defer delete(open, t)
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Tag.Get("toml") == "-" {
			continue
		}
		key := prefix + tomlName(f)
		out = append(out, key)
		ft := f.Type
		if ft.Kind() == reflect.Slice {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && !open[ft] && !reflect.PointerTo(ft).Implements(textUnmarshaler) {
			out = append(out, keysOfIn(ft, key+".", open)...)
		}
	}
	return out
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
