package setting

import (
	"bytes"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// DecodeOptions decodes the options table of a registered variant or sampler (owner, e.g.
// "variant logq_tempered", names it in errors) strictly into opts, a pointer to a struct with toml
// tags: a key the struct does not declare is an error naming "options.<key>" and listing the keys
// it has. If opts has a method Resolve() error, it is called after decoding to fill defaults and
// validate; its error is prefixed with "options.". A nil opts (no options) rejects any key.
func DecodeOptions(table map[string]any, opts any, owner string) error {
	if opts == nil {
		if len(table) > 0 {
			keys := make([]string, 0, len(table))
			for k := range table {
				keys = append(keys, "options."+k)
			}
			sort.Strings(keys)
			return fmt.Errorf("%s: %s has no options", strings.Join(keys, ", "), owner)
		}
		return nil
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(table); err != nil {
		return fmt.Errorf("options: %v", err)
	}
	md, err := toml.Decode(buf.String(), opts)
	if err != nil {
		return fmt.Errorf("options: %s: %s", owner, strings.TrimPrefix(err.Error(), "toml: "))
	}
	if keys := md.Undecoded(); len(keys) > 0 {
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = "options." + k.String()
		}
		return fmt.Errorf("%s: unknown option of %s (it has: %s)", strings.Join(names, ", "), owner,
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
