package datasets

import (
	"cmp"
	"slices"
	"strings"
	"testing"
)

func byPair(a, b Interaction) int {
	return cmp.Or(cmp.Compare(a.Query, b.Query), cmp.Compare(a.Item, b.Item), cmp.Compare(a.Time, b.Time))
}

func TestSplitSeeded(t *testing.T) {
	for _, kind := range []SplitKind{SplitRandom, SplitQuery, SplitTemporal} {
		s := Settings{Source: "synthetic", Split: SplitSettings{Kind: kind, TestFraction: 0.2}, Synthetic: SyntheticSettings{Interactions: 20000}}
		a, b := mustLoad(t, s, 11), mustLoad(t, s, 11)
		if !slices.Equal(a.Test, b.Test) || !slices.Equal(a.Train, b.Train) {
			t.Errorf("%s: same seed, different split", kind)
		}
		all := slices.Concat(a.Train, a.Test)
		slices.SortFunc(all, byPair)
		switch kind {
		case "random":
			if len(a.Test) != 4000 {
				t.Errorf("random: %d test pairs, want 0.2·20000", len(a.Test))
			}
		case "query":
			testQueries(t, a)
			if a.Report.ColdTestQueries != len(a.Test) {
				t.Errorf("query: %d cold test queries of %d test pairs", a.Report.ColdTestQueries, len(a.Test))
			}
		case "temporal":
			if a.Train[len(a.Train)-1].Time >= a.Test[0].Time || len(a.Test) != 4000 {
				t.Errorf("temporal: last train time %d, first test time %d, %d test pairs", a.Train[len(a.Train)-1].Time, a.Test[0].Time, len(a.Test))
			}
			continue // does not depend on the seed
		}
		// The split depends on the split seed alone: keep the data fixed, vary the seed.
		l := synthesize(mustResolve(t, s).Synthetic, 11)
		l2 := synthesize(mustResolve(t, s).Synthetic, 11)
		if _, err := l.Split(s.Split, 11); err != nil {
			t.Fatal(err)
		}
		if _, err := l2.Split(s.Split, 12); err != nil {
			t.Fatal(err)
		}
		if slices.Equal(l.Dataset.Test, l2.Dataset.Test) {
			t.Errorf("%s: different seeds, same split", kind)
		}
		all2 := slices.Concat(l2.Dataset.Train, l2.Dataset.Test)
		slices.SortFunc(all2, byPair)
		if !slices.Equal(all, all2) {
			t.Errorf("%s: the two splits do not partition the same pairs", kind)
		}
	}
}

// TestSplitTemporalTies checks that pairs tied with the first test time go to test.
func TestSplitTemporalTies(t *testing.T) {
	l := &Unsplit{Dataset: &Dataset{Name: "ties", Queries: 1, Items: 5}, Timed: true}
	for i, tm := range []int64{10, 20, 30, 30, 30} {
		l.Pairs = append(l.Pairs, Interaction{Item: int32(i), Time: tm, Reward: 1})
	}
	if _, err := l.Split(SplitSettings{Kind: "temporal", TestFraction: 0.4}, 1); err != nil {
		t.Fatal(err)
	}
	if len(l.Dataset.Test) != 3 || len(l.Dataset.Train) != 2 {
		t.Errorf("train %v test %v; want the three pairs at time 30 in test", l.Dataset.Train, l.Dataset.Test)
	}
	l = &Unsplit{Dataset: &Dataset{Name: "one day", Queries: 1, Items: 2}, Timed: true, Pairs: []Interaction{{Item: 0, Time: 5}, {Item: 1, Time: 5}}}
	_, err := l.Split(SplitSettings{Kind: "temporal", TestFraction: 0.5}, 1)
	if err == nil || !strings.HasPrefix(err.Error(), "split: the train set of one day is empty (kind temporal, 2 pairs)") {
		t.Errorf("all tied: %v", err)
	}
}

func TestSplitErrors(t *testing.T) {
	_, err := Load(Settings{Path: "testdata/wiki", Split: SplitSettings{TestFraction: 0.01}}, 1)
	if err == nil || err.Error() != "split: the test set of wiki is empty (kind random, 5 pairs)" {
		t.Errorf("empty test: %v", err)
	}
	_, err = Load(Settings{Source: "interactions", Path: "testdata/ratings", Split: SplitSettings{Kind: "temporal"},
		Interactions: InteractionsSettings{File: "ratings.tsv", User: "user", Item: "item", Time: "none", Rating: "none"}}, 1)
	if err == nil || err.Error() != "split.kind: temporal needs timestamps, which ratings does not have" {
		t.Errorf("temporal without timestamps: %v", err)
	}
	_, err = Load(Settings{Source: "interactions", Path: "testdata/ratings", Split: SplitSettings{Kind: "leave_last_out"},
		Interactions: InteractionsSettings{File: "ratings.tsv", User: "user", Item: "item", Time: "none", Rating: "none"}}, 1)
	if err == nil || err.Error() != "split.kind: leave_last_out needs timestamps, which ratings does not have" {
		t.Errorf("leave_last_out without timestamps: %v", err)
	}
	_, err = Load(Settings{Source: "wikilinks", Split: SplitSettings{Kind: "leave_last_out"}}, 1)
	if err == nil || err.Error() != "split.kind: leave_last_out needs timestamps, which source wikilinks does not have" {
		t.Errorf("leave_last_out on wikilinks: %v", err)
	}
	_, err = Load(Settings{Source: "synthetic", Split: SplitSettings{Kind: "leave_last_out", TestFraction: 0.2}}, 1)
	if err == nil || !strings.HasPrefix(err.Error(), "split.test_fraction: not for kind leave_last_out") {
		t.Errorf("leave_last_out with test_fraction: %v", err)
	}
}

// TestSplitLeaveLastOut: each query's last pair by time is its test pair, the
// rest train; ties at the last time go to the pair last in the source's order;
// a query with one pair stays in train only.
func TestSplitLeaveLastOut(t *testing.T) {
	type pair struct {
		query, item int32
		time        int64
	}
	for _, c := range []struct {
		name  string
		pairs []pair
		test  []int32 // the test item of each query (−1: none), by query
	}{
		{"latest", []pair{{0, 0, 30}, {0, 1, 10}, {0, 2, 20}}, []int32{0}},
		{"interleaved", []pair{{1, 0, 5}, {0, 1, 7}, {1, 2, 9}, {0, 3, 6}, {1, 4, 1}}, []int32{1, 2}},
		{"tie: last in order", []pair{{0, 0, 50}, {0, 1, 50}, {0, 2, 40}}, []int32{1}},
		{"tie: first in order last by time", []pair{{0, 3, 60}, {0, 1, 50}, {0, 2, 60}}, []int32{2}},
		{"single pair stays in train", []pair{{0, 0, 10}, {1, 1, 20}, {1, 2, 30}}, []int32{-1, 2}},
		{"query without pairs", []pair{{0, 0, 10}, {0, 1, 5}}, []int32{0, -1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := &Unsplit{Dataset: &Dataset{Name: c.name, Queries: len(c.test), Items: 5}, Timed: true}
			for _, p := range c.pairs {
				u.Pairs = append(u.Pairs, Interaction{Query: p.query, Item: p.item, Time: p.time, Reward: 1})
			}
			d, err := u.Split(SplitSettings{Kind: SplitLeaveLastOut}, 1)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]int32, len(c.test))
			for q := range got {
				got[q] = -1
			}
			for _, p := range d.Test {
				if got[p.Query] != -1 {
					t.Errorf("query %d has two test pairs", p.Query)
				}
				got[p.Query] = p.Item
			}
			if !slices.Equal(got, c.test) {
				t.Errorf("test items by query %v, want %v", got, c.test)
			}
			if len(d.Train)+len(d.Test) != len(c.pairs) {
				t.Errorf("train %d + test %d pairs, want %d", len(d.Train), len(d.Test), len(c.pairs))
			}
			for _, p := range d.Train {
				if it := got[p.Query]; it == p.Item {
					t.Errorf("test pair (%d, %d) also in train", p.Query, p.Item)
				}
			}
		})
	}
}

// TestSplitLeaveLastOutMovieLens: on the shipped MovieLens ml-latest-small,
// every user has one test pair, at the user's latest timestamp.
func TestSplitLeaveLastOutMovieLens(t *testing.T) {
	d := mustLoad(t, Settings{Source: SourceInteractions, Path: "../data/movielens-latest-small",
		Split: SplitSettings{Kind: SplitLeaveLastOut}}, 1)
	latest := map[int32]int64{}
	for _, p := range slices.Concat(d.Train, d.Test) {
		latest[p.Query] = max(latest[p.Query], p.Time)
	}
	seen := map[int32]bool{}
	for _, p := range d.Test {
		if seen[p.Query] {
			t.Fatalf("user %d has two test pairs", p.Query)
		}
		seen[p.Query] = true
		if p.Time != latest[p.Query] {
			t.Errorf("user %d: test pair at %d, latest %d", p.Query, p.Time, latest[p.Query])
		}
	}
	if len(seen) != len(latest) {
		t.Errorf("%d users with a test pair of %d (every MovieLens user has at least 20 ratings)", len(seen), len(latest))
	}
}

// TestTrainPositives: a query's training items (sorted, distinct) against its
// train and test items, on a leave-last-out split.
func TestTrainPositives(t *testing.T) {
	u := &Unsplit{Dataset: &Dataset{Name: "pos", Queries: 3, Items: 5}, Timed: true, Pairs: []Interaction{
		{Query: 0, Item: 3, Time: 1}, {Query: 0, Item: 1, Time: 2}, {Query: 0, Item: 3, Time: 3}, {Query: 0, Item: 4, Time: 4},
		{Query: 1, Item: 2, Time: 1},
		{Query: 2, Item: 0, Time: 1}, {Query: 2, Item: 2, Time: 2},
	}}
	d, err := u.Split(SplitSettings{Kind: SplitLeaveLastOut}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		got  [][]int32
		want [][]int32
	}{
		{"train", d.TrainPositives(), [][]int32{{1, 3}, {2}, {0}}},
		{"known", d.KnownPositives(), [][]int32{{1, 3, 4}, {2}, {0, 2}}},
	} {
		if !slices.EqualFunc(c.got, c.want, slices.Equal) {
			t.Errorf("%s positives %v, want %v", c.name, c.got, c.want)
		}
	}
}
