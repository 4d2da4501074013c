package datasets

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// timedPair is a (query, item, time) triple of a hand-built source.
type timedPair struct {
	query, item int32
	time        int64
}

// timedUnsplit is a timed Unsplit of the pairs, in their order (the source's order).
func timedUnsplit(name string, queries, items int, pairs []timedPair) *Unsplit {
	u := &Unsplit{Dataset: &Dataset{Name: name, Queries: queries, Items: items,
		QueryFeatures: &Features{Fields: []Field{IDField("user_id", queries)}},
		ItemFeatures:  &Features{Fields: []Field{IDField("item_id", items)}},
		Report:        Report{Source: SourceInteractions}}, Timed: true}
	for _, p := range pairs {
		u.Pairs = append(u.Pairs, Interaction{Query: p.query, Item: p.item, Time: p.time, Reward: 1})
	}
	return u
}

func mustSplit(t *testing.T, u *Unsplit, s SplitSettings, seed int64) *Dataset {
	t.Helper()
	d, err := u.SplitWith(s, seed, Options{Sequences: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	return d
}

// naiveHistories checks every pair's History against lists built the naive way from the
// source's pairs: for every query, its pairs sorted by (time, source order), a list appended
// with every training item in turn; a pair's history is the list as it stands when the pair
// comes, its last maxLength items. d must have been split from pairs, whose (query, item)
// pairs are distinct (so that a pair is found in its part by query and item). It returns the
// number of pairs checked.
func naiveHistories(t *testing.T, d *Dataset, pairs []Interaction, maxLength int) int {
	t.Helper()
	type key struct{ q, i int32 }
	where := map[key]struct {
		p Part
		i int
	}{}
	for p := range numParts {
		for i, x := range d.Pairs(p) {
			where[key{x.Query, x.Item}] = struct {
				p Part
				i int
			}{p, i}
		}
	}
	byQuery := make([][]int, d.Queries)
	for i, x := range pairs {
		byQuery[x.Query] = append(byQuery[x.Query], i)
	}
	checked := 0
	for q, idx := range byQuery {
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(pairs[a].Time, pairs[b].Time) })
		var list []int32
		for _, i := range idx {
			w, ok := where[key{int32(q), pairs[i].Item}]
			if !ok {
				t.Fatalf("pair %d (%d, %d) is in no part", i, q, pairs[i].Item)
			}
			want := list[max(0, len(list)-maxLength):]
			if got := d.History(w.p, w.i, maxLength); !slices.Equal(got, want) {
				t.Fatalf("%s[%d] (query %d, item %d, time %d): history %v, want %v", w.p, w.i, q, pairs[i].Item, pairs[i].Time, got, want)
			}
			checked++
			if w.p == PartTrain {
				list = append(list, pairs[i].Item)
			}
		}
	}
	return checked
}

// TestHistoryNaive: the history of every pair, of every part, under every timed split kind,
// is its query's training items before it by (time, source order), most recent last, at most
// maxLength: against naiveHistories, on random sources with many ties in time.
func TestHistoryNaive(t *testing.T) {
	for _, c := range []SplitSettings{
		{Kind: SplitRandom, TestFraction: 0.3},
		{Kind: SplitQuery, TestFraction: 0.3},
		{Kind: SplitLeaveLastOut},
		{Kind: SplitLeaveLastOut, Validation: true},
		{Kind: SplitLeaveLastOut, Validation: true, ValidationUsers: 5},
		{Kind: SplitTemporal, TestFraction: 0.2},
		{Kind: SplitTemporal, TestFraction: 0.2, Validation: true, ValidationFraction: 0.3},
	} {
		for seed := range int64(5) {
			t.Run(fmt.Sprintf("%s/validation=%v/%d/seed=%d", c.Kind, c.Validation, c.ValidationUsers, seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(seed), 7))
				const queries, items = 12, 40
				var pairs []timedPair
				for q := range int32(queries) {
					// Distinct items per query; times from a small range, so that many tie.
					for _, it := range rng.Perm(items)[:rng.IntN(items/2)] {
						pairs = append(pairs, timedPair{q, int32(it), int64(rng.IntN(8))})
					}
				}
				rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
				u := timedUnsplit("random", queries, items, pairs)
				src := slices.Clone(u.Pairs)
				d := mustSplit(t, u, c, seed)
				if c.Validation && len(d.Valid) == 0 {
					t.Fatal("no validation pairs")
				}
				for _, l := range []int{1, 3, 1 << 20} {
					if n := naiveHistories(t, d, src, l); n != len(src) {
						t.Fatalf("checked %d of %d pairs", n, len(src))
					}
				}
			})
		}
	}
}

// TestSequenceTies: pairs tied in time are in the source's order in a sequence, not in the
// (time, query, item) order of Train; a test pair tied with training pairs (random split)
// follows those before it in the source; leave_last_out's test and validation pairs are the
// last two in the source's order among those tied at the latest times.
func TestSequenceTies(t *testing.T) {
	// Query 0: items 5 and 2 at time 10 (5 first in the file), 7 at time 5, then 9, 3, 4 tied at 20.
	u := timedUnsplit("ties", 2, 10, []timedPair{
		{0, 5, 10}, {0, 2, 10}, {0, 7, 5}, {1, 1, 1}, {0, 9, 20}, {0, 3, 20}, {1, 2, 2}, {0, 4, 20},
	})
	d := mustSplit(t, u, SplitSettings{Kind: SplitLeaveLastOut, Validation: true}, 1)
	s := d.Sequences
	if got, want := s.Items[s.Offsets[0]:s.Offsets[1]], []int32{7, 5, 2, 9}; !slices.Equal(got, want) {
		t.Errorf("query 0's sequence %v, want %v (ties in the file's order)", got, want)
	}
	for _, c := range []struct {
		p    Part
		item int32
		want []int32
	}{
		{PartTrain, 7, nil},
		{PartTrain, 5, []int32{7}},
		{PartTrain, 2, []int32{7, 5}}, // 2 sorts before 5 in Train, but comes after it in the file
		{PartTrain, 9, []int32{7, 5, 2}},
		{PartValid, 3, []int32{7, 5, 2, 9}},
		{PartTest, 4, []int32{7, 5, 2, 9}},
	} {
		i := slices.IndexFunc(d.Pairs(c.p), func(x Interaction) bool { return x.Query == 0 && x.Item == c.item })
		if i < 0 {
			t.Errorf("item %d is not in %s", c.item, c.p)
			continue
		}
		if got := d.History(c.p, i, 10); !slices.Equal(got, c.want) {
			t.Errorf("%s item %d: history %v, want %v", c.p, c.item, got, c.want)
		}
	}

	// A random split of one query's pairs tied in time: a test pair's history is the training
	// pairs before it in the file.
	var tied []timedPair
	for i := range int32(8) {
		tied = append(tied, timedPair{0, 7 - i, 3})
	}
	u = timedUnsplit("tied", 1, 8, tied)
	d = mustSplit(t, u, SplitSettings{Kind: SplitRandom, TestFraction: 0.5}, 3)
	var want []int32 // the file's items 7, 6, ..., 0 with the test ones left out
	for _, p := range tied {
		if !slices.ContainsFunc(d.Test, func(x Interaction) bool { return x.Item == p.item }) {
			want = append(want, p.item)
		}
	}
	if got := d.Sequences.Items; !slices.Equal(got, want) {
		t.Errorf("sequence %v, want the training items in the file's order %v", got, want)
	}
	for i, x := range d.Test {
		n := 0 // training items before it in the file: greater item ids
		for _, it := range want {
			if it > x.Item {
				n++
			}
		}
		if got := d.History(PartTest, i, 8); !slices.Equal(got, want[:n]) {
			t.Errorf("test item %d: history %v, want %v", x.Item, got, want[:n])
		}
	}
}

// TestHistoryEmpty: a query whose only pairs are held out has an empty history, which PadLeft
// turns into padding only; so has a query's first training pair.
func TestHistoryEmpty(t *testing.T) {
	u := timedUnsplit("held out", 3, 6, []timedPair{
		{0, 0, 1}, {0, 1, 2}, {1, 2, 3}, {1, 3, 4}, {2, 4, 5}, {2, 5, 6},
	})
	d := mustSplit(t, u, SplitSettings{Kind: SplitQuery, TestFraction: 0.34}, 1)
	if len(d.Test) != 2 {
		t.Fatalf("%d test pairs, want one query's 2", len(d.Test))
	}
	q := d.Test[0].Query
	if n := d.Sequences.Offsets[q+1] - d.Sequences.Offsets[q]; n != 0 {
		t.Errorf("held-out query %d has a sequence of %d items", q, n)
	}
	for i := range d.Test {
		h := d.History(PartTest, i, 4)
		if len(h) != 0 {
			t.Errorf("test pair %d: history %v, want empty", i, h)
		}
		in := []int32{9, 9, 9, 9}
		PadLeft(in, h)
		if !slices.Equal(in, []int32{Padding, Padding, Padding, Padding}) {
			t.Errorf("padded empty history %v", in)
		}
	}
	for i, x := range d.Train {
		if first := x.Item%2 == 0; first != (len(d.History(PartTrain, i, 4)) == 0) {
			t.Errorf("train pair %d (item %d): history %v", i, x.Item, d.History(PartTrain, i, 4))
		}
	}
}

// TestHistoryView: a history is a view into the index, and appending to it cannot overwrite
// the index.
func TestHistoryView(t *testing.T) {
	u := timedUnsplit("view", 1, 5, []timedPair{{0, 0, 1}, {0, 1, 2}, {0, 2, 3}, {0, 3, 4}, {0, 4, 5}})
	d := mustSplit(t, u, SplitSettings{Kind: SplitLeaveLastOut}, 1)
	i := slices.IndexFunc(d.Train, func(x Interaction) bool { return x.Item == 2 })
	h := d.History(PartTrain, i, 5)
	if !slices.Equal(h, []int32{0, 1}) || &h[0] != &d.Sequences.Items[0] {
		t.Fatalf("history %v is not a view of the sequence %v", h, d.Sequences.Items)
	}
	_ = append(h, 99)
	if !slices.Equal(d.Sequences.Items, []int32{0, 1, 2, 3}) {
		t.Errorf("appending to a history wrote into the sequence: %v", d.Sequences.Items)
	}
}

// TestPadLeft: the items end at the last position, padding before them.
func TestPadLeft(t *testing.T) {
	for _, c := range []struct {
		n    int
		seq  []int32
		want []int32
	}{
		{3, []int32{4, 5}, []int32{Padding, 4, 5}},
		{2, []int32{4, 5}, []int32{4, 5}},
		{2, nil, []int32{Padding, Padding}},
	} {
		dst := slices.Repeat([]int32{8}, c.n)
		PadLeft(dst, c.seq)
		if !slices.Equal(dst, c.want) {
			t.Errorf("PadLeft(%d, %v) = %v, want %v", c.n, c.seq, dst, c.want)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "3 items do not fit in 2 positions") {
			t.Errorf("too long a sequence: %v", r)
		}
	}()
	PadLeft(make([]int32, 2), []int32{1, 2, 3})
}

// TestWindows: the windows of a sequence of 8 training items (targets at positions 1..7) and
// one of 1 (no target), their left padding and the training pairs of their targets.
func TestWindows(t *testing.T) {
	var pairs []timedPair
	for i := range int32(9) {
		pairs = append(pairs, timedPair{0, 10 + i, int64(i)})
	}
	pairs = append(pairs, timedPair{1, 0, 1}, timedPair{1, 1, 2}, timedPair{2, 2, 1}, timedPair{2, 3, 2}, timedPair{2, 4, 3})
	u := timedUnsplit("windows", 3, 20, pairs)
	d := mustSplit(t, u, SplitSettings{Kind: SplitLeaveLastOut}, 1)
	// Sequences: query 0 items 10..17 (18 is its test pair), query 1 item 0, query 2 items 2, 3.
	const P = Padding
	for _, c := range []struct {
		l       int
		rule    Windowing
		windows []Window
		inputs  [][]int32
		targets [][]int32
	}{
		{3, WindowingLast, []Window{{0, 5, 8}, {2, 1, 2}},
			[][]int32{{14, 15, 16}, {P, P, 2}}, [][]int32{{15, 16, 17}, {P, P, 3}}},
		{3, WindowingAll, []Window{{0, 1, 2}, {0, 2, 5}, {0, 5, 8}, {2, 1, 2}},
			[][]int32{{P, P, 10}, {11, 12, 13}, {14, 15, 16}, {P, P, 2}}, [][]int32{{P, P, 11}, {12, 13, 14}, {15, 16, 17}, {P, P, 3}}},
		{4, WindowingAll, []Window{{0, 1, 4}, {0, 4, 8}, {2, 1, 2}},
			[][]int32{{P, 10, 11, 12}, {13, 14, 15, 16}, {P, P, P, 2}}, [][]int32{{P, 11, 12, 13}, {14, 15, 16, 17}, {P, P, P, 3}}},
		{10, WindowingLast, []Window{{0, 1, 8}, {2, 1, 2}},
			[][]int32{{P, P, P, 10, 11, 12, 13, 14, 15, 16}, {P, P, P, P, P, P, P, P, P, 2}},
			[][]int32{{P, P, P, 11, 12, 13, 14, 15, 16, 17}, {P, P, P, P, P, P, P, P, P, 3}}},
	} {
		t.Run(fmt.Sprintf("%s/L=%d", c.rule, c.l), func(t *testing.T) {
			w, err := d.Windows(c.l, c.rule)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(w.List, c.windows) {
				t.Fatalf("windows %v, want %v", w.List, c.windows)
			}
			for k := range w.List {
				in, tg, ev := make([]int32, c.l), make([]int32, c.l), make([]int32, c.l)
				n := w.Fill(k, in, tg, ev)
				if !slices.Equal(in, c.inputs[k]) || !slices.Equal(tg, c.targets[k]) {
					t.Errorf("window %d: inputs %v targets %v, want %v and %v", k, in, tg, c.inputs[k], c.targets[k])
				}
				if want := int(c.windows[k].End - c.windows[k].Start); n != want {
					t.Errorf("window %d: %d targets, want %d", k, n, want)
				}
				for j, e := range ev {
					switch {
					case tg[j] == P && e != P:
						t.Errorf("window %d position %d: event %d at a padded position", k, j, e)
					case tg[j] != P && d.Train[e].Item != tg[j]:
						t.Errorf("window %d position %d: event %d is item %d, target %d", k, j, e, d.Train[e].Item, tg[j])
					}
				}
			}
		})
	}
	for _, c := range []struct {
		l    int
		rule Windowing
		want string
	}{
		{0, WindowingLast, "datasets: windows of at most 0 targets; the length must be >= 1"},
		{3, "every", `datasets: windowing unknown "every" (allowed: last, all)`},
	} {
		if _, err := d.Windows(c.l, c.rule); err == nil || err.Error() != c.want {
			t.Errorf("Windows(%d, %q): %v, want %s", c.l, c.rule, err, c.want)
		}
	}
	untimed := &Dataset{Name: "untimed"}
	if _, err := untimed.Windows(3, WindowingAll); err == nil || err.Error() != "datasets: untimed has no timestamps, so no sequences to cut into windows" {
		t.Errorf("no sequences: %v", err)
	}
}

// movieLens is the shipped MovieLens ml-latest-small as configs/khrylchenko.toml reads it,
// split by s: the source's pairs (in the file's order) and the dataset.
func movieLens(t *testing.T, s SplitSettings) ([]Interaction, *Dataset) {
	t.Helper()
	set := mustResolve(t, Settings{Source: SourceInteractions, Path: "../data/movielens-latest-small",
		Interactions: InteractionsSettings{Reward: RewardOne, ItemFeatures: []FeatureFile{{File: "movies.csv", Columns: []string{"genres"}}}},
		Split:        s})
	u, err := load(set, 1)
	if err != nil {
		t.Fatal(err)
	}
	d := mustSplit(t, u, set.Split, 1)
	return u.Pairs, d // still in the file's order, with their day buckets
}

// TestLeakageMovieLens: over the whole shipped ml-latest-small split (leave_last_out with and
// without validation, with 512 validation users, temporal with a validation window), no history
// contains its own pair's item or any validation or test item of its query, every history is
// made of its query's training items no later than the pair, every held-out pair of
// leave_last_out sees all its query's training items, and every history equals the naive
// reference (naiveHistories).
func TestLeakageMovieLens(t *testing.T) {
	if testing.Short() {
		t.Skip("loads ml-latest-small four times")
	}
	for _, s := range []SplitSettings{
		{Kind: SplitLeaveLastOut},
		{Kind: SplitLeaveLastOut, Validation: true},
		{Kind: SplitLeaveLastOut, Validation: true, ValidationUsers: 512},
		{Kind: SplitTemporal, Validation: true},
	} {
		t.Run(fmt.Sprintf("%s/validation=%v/%d", s.Kind, s.Validation, s.ValidationUsers), func(t *testing.T) {
			src, d := movieLens(t, s)
			if s.Validation != (len(d.Valid) > 0) {
				t.Fatalf("%d validation pairs", len(d.Valid))
			}
			heldOut := make([]map[int32]bool, d.Queries)
			trained := make([]map[int32]int64, d.Queries) // item -> time
			for q := range heldOut {
				heldOut[q], trained[q] = map[int32]bool{}, map[int32]int64{}
			}
			for _, x := range slices.Concat(d.Valid, d.Test) {
				heldOut[x.Query][x.Item] = true
			}
			for _, x := range d.Train {
				trained[x.Query][x.Item] = x.Time
			}
			const unlimited = 1 << 30
			for p := range numParts {
				for i, x := range d.Pairs(p) {
					h := d.History(p, i, unlimited)
					for _, it := range h {
						tm, ok := trained[x.Query][it]
						switch {
						case it == x.Item:
							t.Fatalf("%s[%d]: the history of (%d, %d) contains its own item", p, i, x.Query, x.Item)
						case heldOut[x.Query][it]:
							t.Fatalf("%s[%d]: the history of query %d contains its held-out item %d", p, i, x.Query, it)
						case !ok || tm > x.Time:
							t.Fatalf("%s[%d]: the history of query %d at time %d contains item %d, not a training item before it", p, i, x.Query, x.Time, it)
						}
					}
					if p != PartTrain && s.Kind == SplitLeaveLastOut && len(h) != len(trained[x.Query]) {
						t.Fatalf("%s[%d]: history of %d items, its query has %d training items", p, i, len(h), len(trained[x.Query]))
					}
				}
			}
			for _, l := range []int{50, 200} {
				if n := naiveHistories(t, d, src, l); n != len(src) {
					t.Fatalf("checked %d of %d pairs", n, len(src))
				}
			}
		})
	}
}

// TestWindowsMovieLens: on ml-latest-small with leave_last_out and validation, at L = 50:
// WindowingAll makes every training pair but each sequence's first the target of exactly one
// window, WindowingLast the last L of each sequence; the inputs up to every target are the end
// of that pair's history, and padding precedes every window's first target.
func TestWindowsMovieLens(t *testing.T) {
	_, d := movieLens(t, SplitSettings{Kind: SplitLeaveLastOut, Validation: true})
	const l = 50
	for _, rule := range windowings {
		t.Run(string(rule), func(t *testing.T) {
			w, err := d.Windows(l, rule)
			if err != nil {
				t.Fatal(err)
			}
			targeted := make([]int, len(d.Train))
			in, tg, ev := make([]int32, l), make([]int32, l), make([]int32, l)
			for k := range w.List {
				n := w.Fill(k, in, tg, ev)
				pad := l - n
				for j := range l {
					if j < pad {
						if in[j] != Padding || tg[j] != Padding || ev[j] != Padding {
							t.Fatalf("window %d position %d: %d, %d, %d before the first target", k, j, in[j], tg[j], ev[j])
						}
						continue
					}
					e := ev[j]
					targeted[e]++
					h := d.History(PartTrain, int(e), l)
					if seen := in[pad : j+1]; d.Train[e].Item != tg[j] || len(h) < len(seen) || !slices.Equal(seen, h[len(h)-len(seen):]) {
						t.Fatalf("window %d position %d: inputs %v, target %d; train[%d] is item %d with history %v", k, j, seen, tg[j], e, d.Train[e].Item, h)
					}
				}
			}
			s := d.Sequences
			for i := range d.Train {
				pos := s.Before[PartTrain][i]
				n := s.Offsets[d.Train[i].Query+1] - s.Offsets[d.Train[i].Query]
				want := 0
				if pos > 0 && (rule == WindowingAll || pos >= n-l) {
					want = 1
				}
				if targeted[i] != want {
					t.Fatalf("train[%d] at position %d of %d: a target %d times, want %d", i, pos, n, targeted[i], want)
				}
			}
		})
	}
}
