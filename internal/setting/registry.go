package setting

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Registry holds the entries a program adds by name before handing its arguments to the
// workbench's command (a researcher's loss variants, samplers): process-wide in the package
// that owns it, because config decoding must then see them by name. Names are unique, never
// replaced, and never a built-in's. The zero Registry is empty and ready; it is safe for
// concurrent use.
type Registry[K ~string, V any] struct {
	mu sync.Mutex
	m  map[K]V
}

// Add registers v under name. what names the registry in errors ("losses: variant",
// "samplers: sampler"); builtin lists the names that are built in. The name must be non-empty
// lower-case snake_case.
func (r *Registry[K, V]) Add(what, name string, builtin []K, v V) error {
	if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
		return fmt.Errorf("%s name %q must be non-empty lower-case snake_case", what, name)
	}
	if slices.Contains(builtin, K(name)) {
		return fmt.Errorf("%s %s is built in", what, name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.m[K(name)]; ok {
		return fmt.Errorf("%s %s is already registered", what, name)
	}
	if r.m == nil {
		r.m = map[K]V{}
	}
	r.m[K(name)] = v
	return nil
}

// Get returns the entry registered under name, if any.
func (r *Registry[K, V]) Get(name K) (V, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.m[name]
	return v, ok
}

// Names returns builtin followed by the registered names, sorted.
func (r *Registry[K, V]) Names(builtin []K) []K {
	r.mu.Lock()
	extra := slices.Sorted(maps.Keys(r.m))
	r.mu.Unlock()
	return append(slices.Clone(builtin), extra...)
}

// Remove deletes the entry registered under name, so that a test can register an entry for
// itself only.
func (r *Registry[K, V]) Remove(name K) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.m, name)
}
