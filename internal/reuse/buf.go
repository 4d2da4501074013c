// Package reuse holds the one helper behind every buffer the workbench reuses from one step to the
// next: a slice resized to a length, reallocated only when its capacity is too small.
package reuse

// Grow returns s with length n, reusing its array when its capacity allows (the elements are
// then s's, not zeroed) and allocating a new zeroed one otherwise.
func Grow[E any](s []E, n int) []E {
	if cap(s) < n {
		return make([]E, n)
	}
	return s[:n]
}

// GrowRows returns s with n rows of m values, each row reused where its capacity allows.
func GrowRows[E any](s [][]E, n, m int) [][]E {
	s = Grow(s, n)
	for i := range s {
		s[i] = Grow(s[i], m)
	}
	return s
}
