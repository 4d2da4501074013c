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
}
