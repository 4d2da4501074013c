package datasets

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/samplingbias/workbench/internal/setting"
)

// Part is one of a dataset's sets of pairs: Train, Valid or Test.
type Part int8

// The parts of a split dataset.
const (
	PartTrain Part = iota
	PartValid
	PartTest
	numParts
)

var partNames = [numParts]string{"train", "validation", "test"}

func (p Part) String() string { return partNames[p] }

// Pairs returns the pairs of part p: d.Train, d.Valid or d.Test.
func (d *Dataset) Pairs(p Part) []Interaction {
	return [numParts][]Interaction{d.Train, d.Valid, d.Test}[p]
}

// Padding is the item id of the positions before a sequence's first item: PadLeft and
// Windows.Fill fill them with it, in the inputs and in the targets.
const Padding int32 = -1

// Sequences indexes every query's (user's) training items in time order: the context of an
// event, for a query tower that reads the user's past items rather than the user's id.
//
// A query's sequence is its training pairs ordered by time, pairs tied in time in the source's
// order (the file's row order, as the leave_last_out split orders them). The history of a pair
// (of any part) is its query's training items before it in that order, most recent last: for a
// training pair the items before its own position, for a validation or test pair the training
// items before its time (with leave_last_out and temporal: all of them). A validation or test
// item is never in a sequence, hence never in a history; a query whose only pairs are
// validation or test pairs has an empty sequence, and its pairs an empty history.
//
// The index is one flat array of items and one int32 per pair, never a list per pair: 4 bytes
// per training pair (Items), 4 bytes per pair of every part (Before) and 4 bytes per query
// (Offsets). Nothing writes to it once the split has built it: History, Windows and Fill may be
// called from several goroutines at once.
type Sequences struct {
	// Offsets has length Queries+1: query q's sequence is Items[Offsets[q]:Offsets[q+1]], oldest
	// first.
	Offsets []int32
	Items   []int32
	// Before[p][i] is the number of training items of its query before pair i of part p
	// (Dataset.Pairs(p)[i]): its history is the first Before[p][i] items of the query's
	// sequence. A training pair is the item at position Before[PartTrain][i] of its sequence.
	Before [numParts][]int32
}

// bytes is the memory the index holds: an int32 per query's offset, per training item and per
// pair's count of earlier items.
func (s *Sequences) bytes() float64 {
	n := 4 * float64(cap(s.Offsets)+cap(s.Items))
	for _, b := range s.Before {
		n += 4 * float64(cap(b))
	}
	return n
}

// indexSequences builds the Sequences of d, whose parts hold the pairs that part assigns them
// (pairs in the source's order), each sorted by (time, query, item) with pairs equal in all
// three in the source's order.
func indexSequences(pairs []Interaction, part []Part, d *Dataset) *Sequences {
	// Every query's pairs as source indices, grouped by query (a counting sort): the pairs of
	// query q are byQuery[start[q]:start[q+1]].
	start := make([]int32, d.Queries+1)
	for _, p := range pairs {
		start[p.Query+1]++
	}
	for q := range d.Queries {
		start[q+1] += start[q]
	}
	byQuery := make([]int32, len(pairs))
	next := slices.Clone(start[:d.Queries])
	for i, p := range pairs {
		byQuery[next[p.Query]] = int32(i)
		next[p.Query]++
	}

	s := &Sequences{Offsets: make([]int32, d.Queries+1), Items: make([]int32, len(d.Train))}
	before := make([]int32, len(pairs)) // by source index
	for q := range d.Queries {
		g := byQuery[start[q]:start[q+1]]
		// In the source's order, so a stable sort by time breaks ties by the source's order.
		slices.SortStableFunc(g, func(a, b int32) int { return cmp.Compare(pairs[a].Time, pairs[b].Time) })
		at := s.Offsets[q]
		for _, i := range g {
			before[i] = at - s.Offsets[q]
			if part[i] == PartTrain {
				s.Items[at] = pairs[i].Item
				at++
			}
		}
		s.Offsets[q+1] = at
		// The order of every part restricted to the query: (time, item, source order).
		slices.SortFunc(g, func(a, b int32) int {
			return cmp.Or(cmp.Compare(pairs[a].Time, pairs[b].Time), cmp.Compare(pairs[a].Item, pairs[b].Item), cmp.Compare(a, b))
		})
	}
	// The k-th pair of query q in part p's order is the k-th of part p in q's group.
	for p := range numParts {
		copy(next, start[:d.Queries])
		ps := d.Pairs(p)
		b := make([]int32, len(ps))
		for j, x := range ps {
			k := next[x.Query]
			for part[byQuery[k]] != p {
				k++
			}
			b[j] = before[byQuery[k]]
			next[x.Query] = k + 1
		}
		s.Before[p] = b
	}
	return s
}

// History returns the history of pair i of part p: the last maxLength training items of its
// query before it, oldest first (see Sequences). It is a view into Sequences.Items, not a copy,
// whose capacity ends with it (appending to it copies). It panics if d has no Sequences (a
// source without timestamps) or maxLength < 1.
func (d *Dataset) History(p Part, i, maxLength int) []int32 {
	if maxLength < 1 {
		panic(fmt.Sprintf("datasets: history of maximum length %d", maxLength))
	}
	s := d.Sequences
	if s == nil {
		panic("datasets: history of " + d.Name + ", which has no sequences (no timestamps)")
	}
	first := int(s.Offsets[d.Pairs(p)[i].Query])
	end := first + int(s.Before[p][i])
	lo := max(first, end-maxLength)
	return s.Items[lo:end:end]
}

// PadLeft writes seq into the end of dst and fills the positions before it with Padding (left
// padding, as SASRec's inputs). It panics if seq is longer than dst.
func PadLeft(dst, seq []int32) {
	pad := len(dst) - len(seq)
	if pad < 0 {
		panic(fmt.Sprintf("datasets: %d items do not fit in %d positions", len(seq), len(dst)))
	}
	for i := range dst[:pad] {
		dst[i] = Padding
	}
	copy(dst[pad:], seq)
}

// Windowing is how training at every position cuts a query's sequence into windows of at most
// L targets (Dataset.Windows).
type Windowing string

// Windowing rules. The first item of a sequence has an empty history and is never a target; a
// query with fewer than two training items has no window.
const (
	// WindowingLast takes each query's last L targets, one window per query, as SASRec (Kang &
	// McAuley 2018) and gSASRec (Petrov & Macdonald 2023) train: the earlier items of a long
	// sequence are inputs of no window and never targets.
	WindowingLast Windowing = "last"
	// WindowingAll cuts each query's targets into consecutive windows of L, from its latest
	// backwards: the latest window is WindowingLast's, only the earliest may be shorter, and
	// every training item but the first of each sequence is the target of exactly one window.
	WindowingAll Windowing = "all"
)

var windowings = []Windowing{WindowingLast, WindowingAll}

// Windowings returns the windowing rules, in their documented order.
func Windowings() []Windowing { return slices.Clone(windowings) }

// UnmarshalText sets w from its name; an unknown name is an error that lists the allowed ones.
func (w *Windowing) UnmarshalText(b []byte) error { return setting.Unmarshal(w, b, windowings) }

// Window is a run of consecutive training items of one query's sequence, the targets of one
// input sequence.
type Window struct {
	Query int32
	// The targets are the items at positions [Start, End) of the query's sequence, 1 <= Start <
	// End; the inputs are the items at [Start-1, End-1).
	Start, End int32
}

// Windows are the input sequences and next-item targets of training at every position: each
// window's targets are consecutive training pairs of one query, and the input at a target's
// position is the item just before it, so that (with causal attention) a target sees its
// history within the window. Target j of a window thus sees the last j+1 items of its history
// (Dataset.History(PartTrain, ·, MaxLength) of the same pair can hold more): the truncation of
// SASRec's training.
type Windows struct {
	// List holds the windows by query and, within a query, oldest first.
	List []Window
	// MaxLength is L: the most targets of a window, and the length Fill pads to.
	MaxLength int

	seq   *Sequences
	event []int32 // by position in Sequences.Items: the training pair's index in Train
}

// Windows returns d's training windows of at most maxLength targets, cut by rule. It needs
// Sequences (a source with timestamps) and maxLength >= 1; the windows' own index holds 4 bytes
// per training pair and 12 per window.
func (d *Dataset) Windows(maxLength int, rule Windowing) (*Windows, error) {
	s := d.Sequences
	switch {
	case s == nil:
		return nil, fmt.Errorf("datasets: %s has no timestamps, so no sequences to cut into windows", d.Name)
	case maxLength < 1:
		return nil, fmt.Errorf("datasets: windows of at most %d targets; the length must be >= 1", maxLength)
	case !slices.Contains(windowings, rule):
		return nil, fmt.Errorf("datasets: windowing %w", &setting.UnknownError{Value: string(rule), Allowed: setting.Names(windowings)})
	}
	w := &Windows{MaxLength: maxLength, seq: s, event: make([]int32, len(s.Items))}
	for i, x := range d.Train {
		w.event[s.Offsets[x.Query]+s.Before[PartTrain][i]] = int32(i)
	}
	// count is the number of windows of a sequence of n items: of its n−1 targets, one window
	// (last) or one per L (all).
	count := func(n int) int {
		switch {
		case n < 2:
			return 0
		case rule == WindowingLast:
			return 1
		}
		return (n - 2 + maxLength) / maxLength
	}
	total := 0
	for q := range d.Queries {
		total += count(int(s.Offsets[q+1] - s.Offsets[q]))
	}
	w.List = make([]Window, 0, total)
	for q := range d.Queries {
		n := int(s.Offsets[q+1] - s.Offsets[q])
		// The k-th window of the query's (oldest first) ends where k+1 windows of L, counted from
		// the query's last item back, end.
		c := count(n)
		for k := range c {
			end := n - (c-1-k)*maxLength
			w.List = append(w.List, Window{Query: int32(q), Start: int32(max(1, end-maxLength)), End: int32(end)})
		}
	}
	return w, nil
}

// Fill writes window k left-padded into inputs and targets, and the index in Train of each
// target's pair into events (nil: not written), each of length MaxLength: the window's n targets
// in the last n positions, Padding (−1 in events) before them. It returns n. It panics if a
// slice is not MaxLength long.
func (w *Windows) Fill(k int, inputs, targets, events []int32) int {
	if len(inputs) != w.MaxLength || len(targets) != w.MaxLength || (events != nil && len(events) != w.MaxLength) {
		panic(fmt.Sprintf("datasets: window of length %d filled into %d inputs, %d targets and %d events",
			w.MaxLength, len(inputs), len(targets), len(events)))
	}
	win := w.List[k]
	first := w.seq.Offsets[win.Query]
	lo, hi := first+win.Start, first+win.End
	PadLeft(inputs, w.seq.Items[lo-1:hi-1])
	PadLeft(targets, w.seq.Items[lo:hi])
	if events != nil {
		PadLeft(events, w.event[lo:hi])
	}
	return int(hi - lo)
}

// validate checks s against d: offsets covering every query and training item, every training
// pair at its position, every history within its query's sequence.
func (s *Sequences) validate(d *Dataset) error {
	if len(s.Offsets) != d.Queries+1 || s.Offsets[0] != 0 || int(s.Offsets[d.Queries]) != len(d.Train) || len(s.Items) != len(d.Train) {
		return fmt.Errorf("datasets: sequences: %d offsets and %d items for %d queries and %d training pairs",
			len(s.Offsets), len(s.Items), d.Queries, len(d.Train))
	}
	if !slices.IsSorted(s.Offsets) {
		return fmt.Errorf("datasets: sequences: offsets decrease")
	}
	seen := make([]bool, len(s.Items))
	for p := range numParts {
		pairs := d.Pairs(p)
		if len(s.Before[p]) != len(pairs) {
			return fmt.Errorf("datasets: sequences: %d positions for %d %s pairs", len(s.Before[p]), len(pairs), p)
		}
		for i, x := range pairs {
			n := s.Offsets[x.Query+1] - s.Offsets[x.Query]
			b := s.Before[p][i]
			if b < 0 || b > n || (p == PartTrain && b == n) {
				return fmt.Errorf("datasets: sequences: %s[%d] has %d items before it in a sequence of %d", p, i, b, n)
			}
			if p != PartTrain {
				continue
			}
			at := s.Offsets[x.Query] + b
			if s.Items[at] != x.Item || seen[at] {
				return fmt.Errorf("datasets: sequences: train[%d] (item %d) is not the item at position %d of query %d's sequence", i, x.Item, b, x.Query)
			}
			seen[at] = true
		}
	}
	return nil
}
