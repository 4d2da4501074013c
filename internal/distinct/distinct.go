// Package distinct lists the distinct ids of a sequence of ids in [0, n), in the order of their
// first occurrence, with each position's index in that list: the item rows of a training step
// that the trainer's item tower and a sampler mixture's laws compute once per item.
package distinct

// Lister lists distinct ids; its zero value is ready. It keeps one int32 per possible id between
// calls, so that a call costs O(len(ids)), not O(n).
type Lister struct {
	slot []int32 // per id: 1 + its index in the list being made, else 0
}

// List appends to items the distinct ids of ids (each in [0, n), or negative: no id) in the
// order of their first occurrence, sets of[r] to the index in the list of ids[r] (−1 for a
// negative one; len(of) ≥ len(ids)), and returns items.
func (l *Lister) List(ids []int32, n int, items []int32, of []int32) []int32 {
	if len(l.slot) != n {
		l.slot = make([]int32, n)
	}
	base := len(items)
	for r, id := range ids {
		if id < 0 {
			of[r] = -1
			continue
		}
		if l.slot[id] == 0 {
			items = append(items, id)
			l.slot[id] = int32(len(items) - base)
		}
		of[r] = l.slot[id] - 1
	}
	for _, id := range items[base:] {
		l.slot[id] = 0
	}
	return items
}
