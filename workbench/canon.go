package workbench

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/samplingbias/workbench/datasets"
	"github.com/samplingbias/workbench/internal/schema"
)

// affects is what a config section changes, declared by the `affects` struct tag of each field of
// Config and read by the hashes below.
type affects string

const (
	// affectsTraining: a change retrains the runs (and a results folder holding runs trained
	// otherwise refuses the config).
	affectsTraining affects = "training"
	// affectsEvaluation: a change re-evaluates the saved models of finished runs.
	affectsEvaluation affects = "evaluation"
	// affectsFigures: a change redraws the figures from the finished runs.
	affectsFigures affects = "figures"
	// affectsGrid: which runs the experiment has (seeds, ablation axes); each run's own config
	// holds its one seed and its axis values instead.
	affectsGrid affects = "grid"
	// affectsNothing: where the results go, or how a run is carried out without changing what
	// it computes (how often progress prints, how many goroutines evaluate); never hashed.
	affectsNothing affects = "nothing"
)

// keyValue is one leaf of the canonical encoding: a dotted key and its value written exactly.
type keyValue struct {
	Key, Value string
}

// canonical is the canonical encoding of c's settings whose `affects` tag is in roles: one
// "dotted.key = value" per leaf setting, sorted by key, leaving out zero values (so that a
// setting added later with a zero default keeps the identity of existing results). A leaf is
// governed by its own field's tag, else by its section's (schema.Table.Affects), so that a
// setting of a training section that changes nothing it computes (train.log_seconds) is in no
// hash. Numbers are written by strconv in their shortest exact form (a float64 reads back bit
// for bit), strings quoted by strconv.Quote, lists in brackets: nothing in it depends on a TOML
// library. The data are identified by the content of the files their loader reads
// (data.content, see dataIdentity) in place of data.path, so that the same data reached by
// another spelling of the path, copied elsewhere or touched are the same data.
func (c *Config) canonical(roles ...affects) ([]keyValue, error) {
	return c.canonicalAt(schemaVersion, roles...)
}

// canonicalAt is the canonical encoding of c's settings of roles as schema version wrote it
// (see schemaVersion): before version 3 a leaf was governed by its section's tag alone.
func (c *Config) canonicalAt(version int, roles ...affects) ([]keyValue, error) {
	var out []keyValue
	root := configSchema()
	v := reflect.ValueOf(c).Elem()
	for _, f := range root.Fields {
		section := slices.Contains(roles, affects(f.Affects))
		field := &schema.Table{Type: root.Type, Fields: []*schema.Field{f}}
		field.Walk("", v, func(key string, v reflect.Value) {
			in := section
			if version >= 3 {
				in = slices.Contains(roles, affects(root.Affects(key)))
			}
			if in && !isZero(v) {
				out = append(out, keyValue{key, literal(v)})
			}
		})
		if section && f.Go.Type == reflect.TypeFor[datasets.Settings]() {
			var err error
			if out, err = withDataIdentity(out, c.Data); err != nil {
				return nil, err
			}
		}
	}
	if slices.Contains(roles, affectsTraining) && !slices.Contains(roles, affectsEvaluation) && c.Train.ValidateEvery > 0 {
		out = append(out, c.selectionKeys()...)
	}
	if version < 2 {
		out = version1Keys(out)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// selectionKeys are the canonical lines of the settings of the evaluation sections that a
// training selecting on the validation set (train.validate_every) reads, and that a training's
// identity then holds: the selection metric, the filter, eval.max_pairs, eval.gamma (of
// popularity-stratified recall) and the [slices] section (of a selection by slice).
func (c *Config) selectionKeys() []keyValue {
	var out []keyValue
	root := configSchema()
	v := reflect.ValueOf(c).Elem()
	for _, name := range []string{"eval", "slices"} {
		field := &schema.Table{Type: root.Type, Fields: []*schema.Field{root.Field(name)}}
		field.Walk("", v, func(key string, v reflect.Value) {
			if !isZero(v) && readBySelection(key) {
				out = append(out, keyValue{key, literal(v)})
			}
		})
	}
	return out
}

// readBySelection reports whether the canonical key is one of the evaluation settings that a
// training selecting on the validation set reads (see selectionKeys).
func readBySelection(key string) bool {
	switch key {
	case "eval.select_metric", "eval.select_k", "eval.select_slice", "eval.filter", "eval.max_pairs", "eval.gamma":
		return true
	}
	return strings.HasPrefix(key, "slices.")
}

// literal writes a leaf value exactly: shortest round-tripping numbers, quoted strings, lists in
// brackets.
func literal(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "nil"
		}
		return literal(v.Elem())
	case reflect.String:
		return strconv.Quote(v.String())
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32:
		return strconv.FormatFloat(v.Float(), 'g', -1, 32)
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Slice, reflect.Array:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = literal(v.Index(i))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case reflect.Map:
		var parts []string
		schema.WalkFree("", v, func(key string, v reflect.Value) {
			if !isZero(v) {
				parts = append(parts, strings.TrimPrefix(key, ".")+" = "+literal(v))
			}
		})
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprintf("%v", v.Interface())
}

// digestOf hashes canonical key-value lines: the first 8 bytes of their SHA-256, in hex.
func digestOf(kvs []keyValue) string {
	h := sha256.New()
	for _, kv := range kvs {
		fmt.Fprintf(h, "%s = %s\n", kv.Key, kv.Value)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// deepCopy returns a copy of v sharing no slice, map or pointer with it.
func deepCopy(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(deepCopy(v.Elem()))
		return out
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(deepCopy(v.Elem()))
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := range v.NumField() {
			if out.Field(i).CanSet() {
				out.Field(i).Set(deepCopy(v.Field(i)))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(deepCopy(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		iter := v.MapRange()
		for iter.Next() {
			out.SetMapIndex(deepCopy(iter.Key()), deepCopy(iter.Value()))
		}
		return out
	}
	return v
}
