package reuse

import "testing"

// TestGrow: a slice large enough keeps its array and its values; a short one is replaced by a
// zeroed one of the length asked.
func TestGrow(t *testing.T) {
	s := make([]int, 3, 8)
	s[0] = 7
	g := Grow(s, 6)
	if len(g) != 6 || &g[0] != &s[0] || g[0] != 7 {
		t.Errorf("Grow within capacity: len %d, same array %t, first %d", len(g), &g[0] == &s[0], g[0])
	}
	h := Grow(s, 9)
	if len(h) != 9 || &h[0] == &s[0] || h[0] != 0 {
		t.Errorf("Grow past capacity: len %d, same array %t, first %d", len(h), &h[0] == &s[0], h[0])
	}
	rows := GrowRows([][]float64{make([]float64, 2, 4)}, 3, 4)
	if len(rows) != 3 || len(rows[0]) != 4 || len(rows[2]) != 4 {
		t.Errorf("GrowRows: %d rows of %d and %d", len(rows), len(rows[0]), len(rows[2]))
	}
}
