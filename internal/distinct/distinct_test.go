package distinct

import (
	"slices"
	"testing"
)

// TestList: the distinct ids in order of first occurrence and each position's index (−1 for a
// negative id, which is none), four times
// in a row with the same Lister (its marks are cleared between calls).
func TestList(t *testing.T) {
	var l Lister
	for _, tc := range []struct {
		ids   []int32
		items []int32
		of    []int32
	}{
		{[]int32{3, 1, 3, 0, 1, 3}, []int32{3, 1, 0}, []int32{0, 1, 0, 2, 1, 0}},
		{[]int32{0, 0, 4}, []int32{0, 4}, []int32{0, 0, 1}},
		{[]int32{-1, 2, -1, 2}, []int32{2}, []int32{-1, 0, -1, 0}},
		{nil, nil, nil},
	} {
		of := make([]int32, len(tc.ids))
		items := l.List(tc.ids, 5, nil, of)
		if !slices.Equal(items, tc.items) || !slices.Equal(of, tc.of) {
			t.Errorf("List(%v) = %v, of %v; want %v, %v", tc.ids, items, of, tc.items, tc.of)
		}
	}
}
