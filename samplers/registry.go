package samplers

import (
	"bytes"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// Custom is a sampler added with Register.
type Custom struct {
	// New returns a new sampler for one run, given the decoded options (nil without Options) and
	// sampler.negatives as written (0 when unset).
	New func(options any, negatives int) (Sampler, error)
	// Options, if not nil, returns a pointer to a new options struct whose fields have toml tags;
	// the [sampler.options] table is decoded into it strictly (a key it does not declare is an
	// error naming the key). If the struct has a method Resolve() error, it is called after
	// decoding to fill defaults and validate.
	Options func() any
}

// registry holds the samplers added with Register. It is process-wide because a program registers
// its samplers before handing its arguments to the workbench's command (workbench.Main), whose
// config decoding must then see them by name; names are unique and never replaced.
var registry = struct {
	sync.Mutex
	m map[Kind]Custom
}{m: map[Kind]Custom{}}

// Register adds a sampler under name, to be selected with sampler.kind = name. The name must be
// lower-case snake_case, not a built-in kind's and not registered before; c.New must be set.
func Register(name string, c Custom) error {
	if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
		return fmt.Errorf("samplers: name %q must be non-empty lower-case snake_case", name)
	}
	if c.New == nil {
		return fmt.Errorf("samplers: sampler %s has no New", name)
	}
	if c.Options != nil {
		if o := c.Options(); o == nil || reflect.TypeOf(o).Kind() != reflect.Pointer ||
			reflect.TypeOf(o).Elem().Kind() != reflect.Struct {
			return fmt.Errorf("samplers: sampler %s: Options must return a pointer to a struct, got %T", name, o)
		}
	}
	if slices.Contains(builtins, Kind(name)) {
		return fmt.Errorf("samplers: sampler %s is built in", name)
	}
	registry.Lock()
	defer registry.Unlock()
	if _, ok := registry.m[Kind(name)]; ok {
		return fmt.Errorf("samplers: sampler %s is already registered", name)
	}
	registry.m[Kind(name)] = c
	return nil
}

// registered returns the sampler added under name, if any.
func registered(name Kind) (Custom, bool) {
	registry.Lock()
	defer registry.Unlock()
	c, ok := registry.m[name]
	return c, ok
}

// Kinds returns the names of every sampler: the built-in ones in their documented order, then the
// registered ones sorted.
func Kinds() []Kind {
	registry.Lock()
	extra := slices.Sorted(maps.Keys(registry.m))
	registry.Unlock()
	return append(slices.Clone(builtins), extra...)
}

// decodeOptions decodes s.Options strictly into the options struct of a registered sampler (nil
// for a sampler without options). Errors start with the key, "options.<key>: ...".
func (s *Settings) decodeOptions() (any, error) {
	c, ok := registered(s.Kind)
	if !ok || c.Options == nil {
		if len(s.Options) > 0 {
			keys := make([]string, 0, len(s.Options))
			for k := range s.Options {
				keys = append(keys, "options."+k)
			}
			sort.Strings(keys)
			return nil, fmt.Errorf("%s: sampler %s has no options", strings.Join(keys, ", "), s.Kind)
		}
		return nil, nil
	}
	opts := c.Options()
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(s.Options); err != nil {
		return nil, fmt.Errorf("options: %v", err)
	}
	md, err := toml.Decode(buf.String(), opts)
	if err != nil {
		return nil, fmt.Errorf("options: sampler %s: %s", s.Kind, strings.TrimPrefix(err.Error(), "toml: "))
	}
	if keys := md.Undecoded(); len(keys) > 0 {
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = "options." + k.String()
		}
		return nil, fmt.Errorf("%s: unknown option of sampler %s", strings.Join(names, ", "), s.Kind)
	}
	if r, ok := opts.(interface{ Resolve() error }); ok {
		if err := r.Resolve(); err != nil {
			return nil, fmt.Errorf("options.%w", err)
		}
	}
	return opts, nil
}
