package samplers

import (
	"slices"
	"testing"
)

// TestUnseenItem: the item of rank x among those outside a sorted list is the x-th (0-based) of
// the complement written out.
func TestUnseenItem(t *testing.T) {
	const items = 12
	for _, seen := range [][]int32{nil, {0}, {11}, {0, 1, 2}, {3, 5, 6, 10}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}} {
		var free []int32
		for j := int32(0); j < items; j++ {
			if !slices.Contains(seen, j) {
				free = append(free, j)
			}
		}
		for x, want := range free {
			if got := unseenItem(seen, x); got != want {
				t.Errorf("seen %v: rank %d is item %d, want %d", seen, x, got, want)
			}
		}
	}
}
