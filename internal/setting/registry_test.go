package setting

import (
	"slices"
	"testing"
)

// TestRegistry: names are unique snake_case and never a built-in's; Names lists the built-in
// names first, then the registered ones sorted; Remove undoes a registration.
func TestRegistry(t *testing.T) {
	type kind string
	builtin := []kind{"b", "a"}
	var r Registry[kind, int]
	for _, tc := range []struct {
		name, want string
	}{
		{"zeta", ""},
		{"eta_2", ""},
		{"zeta", `thing zeta is already registered`},
		{"a", `thing a is built in`},
		{"Bad-Name", `thing name "Bad-Name" must be non-empty lower-case snake_case`},
		{"", `thing name "" must be non-empty lower-case snake_case`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if err := r.Add("thing", tc.name, builtin, len(tc.name)); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("Add(%q) = %q, want %q", tc.name, got, tc.want)
			}
		})
	}
	if got, want := r.Names(builtin), []kind{"b", "a", "eta_2", "zeta"}; !slices.Equal(got, want) {
		t.Errorf("Names = %v, want %v", got, want)
	}
	if v, ok := r.Get("zeta"); !ok || v != 4 {
		t.Errorf("Get(zeta) = %d, %v; want 4, true", v, ok)
	}
	r.Remove("zeta")
	if _, ok := r.Get("zeta"); ok {
		t.Error("Get(zeta) after Remove found it")
	}
}
