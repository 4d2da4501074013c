package setting

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/samplingbias/workbench/internal/schema"
)

// DecodeOptions decodes the options table of a registered variant or sampler (owner, e.g.
// "variant logq_tempered", names it in errors) strictly into opts, a pointer to a struct with toml
// tags, by reflection with the conversions of decoding a TOML file (schema.Assign): a key the
// struct does not declare is an error naming "options.<key>" and listing the keys it has, a value
// of the wrong type one naming "options.<key>". If opts has a method Resolve() error, it is called
// after decoding to fill defaults and validate; its error is prefixed with "options.". A nil opts
// (no options) rejects any key.
func DecodeOptions(table map[string]any, opts any, owner string) error {
	keys := slices.Sorted(maps.Keys(table))
	if opts == nil {
		if len(keys) > 0 {
			for i, k := range keys {
				keys[i] = "options." + k
			}
			return fmt.Errorf("%s: %s has no options", strings.Join(keys, ", "), owner)
		}
		return nil
	}
	v := reflect.ValueOf(opts).Elem()
	tb := schema.New(v.Type())
	var unknown []string
	for _, k := range keys {
		f := tb.Field(k)
		if f == nil {
			unknown = append(unknown, "options."+k)
			continue
		}
		if err := schema.Assign(v.Field(f.Index), table[k], "options."+k); err != nil {
			return fmt.Errorf("options.%s: %s: %w", k, owner, err)
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("%s: unknown option of %s (it has: %s)", strings.Join(unknown, ", "), owner,
			strings.Join(optionKeys(opts), ", "))
	}
	if r, ok := opts.(interface{ Resolve() error }); ok {
		if err := r.Resolve(); err != nil {
			return fmt.Errorf("options.%w", err)
		}
	}
	return nil
}

// optionKeys lists the toml keys of the options struct *opts.
func optionKeys(opts any) []string {
	t := reflect.TypeOf(opts).Elem()
	var keys []string
	for i := range t.NumField() {
		k, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		if k != "" && k != "-" {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return []string{"none"}
	}
	return keys
}

// CheckOptionsFunc checks the Options function of a registered variant or sampler (owner names it
// in the error, e.g. "losses: variant logq_tempered"): nil (no options) or a function returning a
// pointer to a struct, which DecodeOptions decodes into.
func CheckOptionsFunc(owner string, options func() any) error {
	if options == nil {
		return nil
	}
	if o := options(); o == nil || reflect.TypeOf(o).Kind() != reflect.Pointer ||
		reflect.TypeOf(o).Elem().Kind() != reflect.Struct {
		return fmt.Errorf("%s: Options must return a pointer to a struct, got %T", owner, o)
	}
	return nil
}
