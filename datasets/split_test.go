package datasets

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
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
	if err == nil || err.Error() != "split.test_fraction: the train set of one day is empty (kind temporal, 2 pairs, 2 in test, 0 in validation)" {
		t.Errorf("all tied: %v", err)
	}
}

func TestSplitErrors(t *testing.T) {
	_, err := Load(Settings{Path: "testdata/wiki", Split: SplitSettings{TestFraction: 0.01}}, 1)
	if err == nil || err.Error() != "split.test_fraction: the test set of wiki is empty (kind random, 5 pairs)" {
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

// TestSplitValidationLeaveLastOut: with validation, each query's second-to-last pair by time is
// its validation pair (ties: the later in the source's order is the later pair); a query with
// two pairs has a test pair and no validation pair, one with one pair only a training pair, so
// that the test set is the one without validation.
func TestSplitValidationLeaveLastOut(t *testing.T) {
	for _, c := range []struct {
		name        string
		pairs       []timedPair
		valid, test []int32 // by query, −1: none
	}{
		{"three pairs", []timedPair{{0, 0, 30}, {0, 1, 10}, {0, 2, 20}}, []int32{2}, []int32{0}},
		{"one, two, three and four pairs", []timedPair{
			{0, 0, 1}, {1, 1, 1}, {1, 2, 2}, {2, 3, 1}, {2, 4, 2}, {2, 5, 3}, {3, 6, 4}, {3, 7, 3}, {3, 8, 2}, {3, 9, 1},
		}, []int32{-1, -1, 4, 7}, []int32{-1, 2, 5, 6}},
		{"ties at the last time", []timedPair{{0, 0, 50}, {0, 1, 50}, {0, 2, 50}, {0, 3, 40}}, []int32{1}, []int32{2}},
		{"tie at the second-to-last time", []timedPair{{0, 0, 40}, {0, 1, 60}, {0, 2, 40}, {0, 3, 10}}, []int32{2}, []int32{1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			byQuery := func(pairs []Interaction) []int32 {
				out := slices.Repeat([]int32{-1}, len(c.test))
				for _, p := range pairs {
					if out[p.Query] != -1 {
						t.Fatalf("query %d has two pairs in %v", p.Query, pairs)
					}
					out[p.Query] = p.Item
				}
				return out
			}
			d := mustSplit(t, timedUnsplit(c.name, len(c.test), 10, c.pairs), SplitSettings{Kind: SplitLeaveLastOut, Validation: true}, 1)
			if got := byQuery(d.Valid); !slices.Equal(got, c.valid) {
				t.Errorf("validation items by query %v, want %v", got, c.valid)
			}
			if got := byQuery(d.Test); !slices.Equal(got, c.test) {
				t.Errorf("test items by query %v, want %v", got, c.test)
			}
			if n := len(d.Train) + len(d.Valid) + len(d.Test); n != len(c.pairs) {
				t.Errorf("%d pairs split, want %d", n, len(c.pairs))
			}
			without := mustSplit(t, timedUnsplit(c.name, len(c.test), 10, c.pairs), SplitSettings{Kind: SplitLeaveLastOut}, 1)
			if !slices.Equal(without.Test, d.Test) || !slices.Equal(slices.SortedFunc(slices.Values(slices.Concat(d.Train, d.Valid)), byPair),
				slices.SortedFunc(slices.Values(without.Train), byPair)) {
				t.Errorf("with validation: train %v, validation %v, test %v; without: train %v, test %v", d.Train, d.Valid, d.Test, without.Train, without.Test)
			}
		})
	}
}

// TestSplitValidationUsers: on the shipped ml-latest-small (610 users, each with at least 20
// ratings), 512 validation users drawn by the seed: the same seed draws the same users and
// another seed others; each drawn user's validation pair is its second-to-last rating by
// (time, file order), the other users keep theirs in train, and the test set is the one
// without validation.
func TestSplitValidationUsers(t *testing.T) {
	if testing.Short() {
		t.Skip("loads ml-latest-small four times")
	}
	s := SplitSettings{Kind: SplitLeaveLastOut, Validation: true, ValidationUsers: 512}
	src, d := movieLens(t, s)
	_, again := movieLens(t, s)
	if !slices.Equal(d.Valid, again.Valid) {
		t.Error("the same seed drew other validation users")
	}
	set := mustResolve(t, Settings{Source: SourceInteractions, Path: "../data/movielens-latest-small", Split: s})
	u, err := load(set, 1)
	if err != nil {
		t.Fatal(err)
	}
	other := mustSplit(t, u, set.Split, 2)
	if slices.Equal(d.Valid, other.Valid) {
		t.Error("seeds 1 and 2 drew the same validation users")
	}
	_, without := movieLens(t, SplitSettings{Kind: SplitLeaveLastOut})
	if !slices.Equal(d.Test, without.Test) {
		t.Error("the test set changes with validation")
	}
	// The reference: every user's pairs sorted by time, stably (ties in the file's order).
	byUser := make([][]Interaction, d.Queries)
	for _, p := range src {
		byUser[p.Query] = append(byUser[p.Query], p)
	}
	drawn := map[int32]bool{}
	for _, p := range d.Valid {
		if drawn[p.Query] {
			t.Fatalf("user %d has two validation pairs", p.Query)
		}
		drawn[p.Query] = true
	}
	if len(drawn) != 512 {
		t.Fatalf("%d validation users, want 512", len(drawn))
	}
	for q, pairs := range byUser {
		slices.SortStableFunc(pairs, func(a, b Interaction) int { return cmp.Compare(a.Time, b.Time) })
		second := pairs[len(pairs)-2]
		inValid := slices.Contains(d.Valid, second)
		if inValid != drawn[int32(q)] || (!inValid && !slices.Contains(d.Train, second)) {
			t.Errorf("user %d (drawn %v): its second-to-last pair %+v in validation %v", q, drawn[int32(q)], second, inValid)
		}
	}
}

// TestSplitValidationTemporal: the validation window is the latest ValidationFraction of all
// pairs before the test window, pairs tied with its first time included, with a test window of
// a fraction or of days; ValidationFraction defaults to DefaultValidationFraction.
func TestSplitValidationTemporal(t *testing.T) {
	day := int64(secondsPerDay)
	for _, c := range []struct {
		name        string
		times       []int64
		s           SplitSettings
		valid, test []int64 // the times of the pairs in each
	}{
		{"fractions", []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, SplitSettings{TestFraction: 0.2, ValidationFraction: 0.3}, []int64{6, 7, 8}, []int64{9, 10}},
		{"ties", []int64{1, 2, 3, 4, 5, 5, 5, 8, 9, 10}, SplitSettings{TestFraction: 0.2, ValidationFraction: 0.2}, []int64{5, 5, 5, 8}, []int64{9, 10}},
		{"default fraction", []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, SplitSettings{TestFraction: 0.2}, []int64{8}, []int64{9, 10}},
		{"test days", []int64{1, 2, day, day + 1, 2 * day, 2*day + 5, 3 * day}, SplitSettings{TestDays: 2, ValidationFraction: 0.3},
			[]int64{day, day + 1}, []int64{2 * day, 2*day + 5, 3 * day}}, // 0.3·7 rounds to 2 pairs
	} {
		t.Run(c.name, func(t *testing.T) {
			var pairs []timedPair
			for i, tm := range c.times {
				pairs = append(pairs, timedPair{int32(i % 3), int32(i), tm})
			}
			rng := rand.New(rand.NewPCG(1, 2))
			rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
			c.s.Kind, c.s.Validation = SplitTemporal, true
			d := mustSplit(t, timedUnsplit(c.name, 3, len(c.times), pairs), c.s, 1)
			times := func(pairs []Interaction) []int64 {
				out := make([]int64, len(pairs))
				for i, p := range pairs {
					out[i] = p.Time
				}
				return out
			}
			if got := times(d.Valid); !slices.Equal(got, c.valid) {
				t.Errorf("validation times %v, want %v", got, c.valid)
			}
			if got := times(d.Test); !slices.Equal(got, c.test) {
				t.Errorf("test times %v, want %v", got, c.test)
			}
			if last := d.Train[len(d.Train)-1].Time; last >= c.valid[0] {
				t.Errorf("train reaches time %d, validation starts at %d", last, c.valid[0])
			}
		})
	}
}

// TestSplitValidationErrors: a validation set that would be empty, or more validation users
// than queries with three pairs, is one error naming the key.
func TestSplitValidationErrors(t *testing.T) {
	two := []timedPair{{0, 0, 1}, {0, 1, 2}, {1, 2, 1}, {1, 3, 2}}
	three := []timedPair{{0, 0, 1}, {0, 1, 2}, {0, 2, 3}, {1, 3, 1}, {1, 4, 2}}
	for _, c := range []struct {
		pairs []timedPair
		s     SplitSettings
		want  string
	}{
		{two, SplitSettings{Kind: SplitLeaveLastOut, Validation: true},
			"split.validation: no query of e has three pairs or more, so none has a validation pair"},
		{three, SplitSettings{Kind: SplitLeaveLastOut, Validation: true, ValidationUsers: 2},
			"split.validation_users: 2 asked, but only 1 queries of e have the three pairs or more that a validation pair needs"},
		{three, SplitSettings{Kind: SplitTemporal, Validation: true, TestFraction: 0.2, ValidationFraction: 0.05},
			"split.validation_fraction: 0.05 of the 5 pairs of e (4 before the test window) is no pair"},
		{three, SplitSettings{Kind: SplitTemporal, Validation: true, TestFraction: 0.2, ValidationFraction: 0.7},
			"split.validation_fraction: the train set of e is empty (kind temporal, 5 pairs, 1 in test, 4 in validation)"},
		// A test window of every day leaves nothing before it.
		{three, SplitSettings{Kind: SplitTemporal, Validation: true, TestDays: 9, ValidationFraction: 0.1},
			"split.test_days: the test window takes every pair of e (5), and leaves none for validation and training"},
	} {
		_, err := timedUnsplit("e", 2, 5, c.pairs).Split(c.s, 1)
		if err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %s", c.s, err, c.want)
		}
	}
	// A source without timestamps has no validation split: the kind's error.
	_, err := Load(Settings{Source: "interactions", Path: "testdata/ratings", Split: SplitSettings{Kind: "leave_last_out", Validation: true},
		Interactions: InteractionsSettings{File: "ratings.tsv", User: "user", Item: "item", Time: "none", Rating: "none"}}, 1)
	if err == nil || err.Error() != "split.kind: leave_last_out needs timestamps, which ratings does not have" {
		t.Errorf("validation without timestamps: %v", err)
	}
}

// TestSplitValidationReport: the report counts the validation pairs, and the summary names
// them only when there are some; the two test pairs' items (2 and 4) are in no other pair, and
// the summary counts them as cold.
func TestSplitValidationReport(t *testing.T) {
	pairs := []timedPair{{0, 0, 1}, {0, 1, 2}, {0, 2, 3}, {1, 3, 1}, {1, 4, 2}}
	d := mustSplit(t, timedUnsplit("r", 2, 5, pairs), SplitSettings{Kind: SplitLeaveLastOut, Validation: true}, 1)
	if got, want := d.Report.Summary(), "interactions: 0 records read, 5 pairs kept (2 train, 1 validation, 2 test, 2 with a cold item)"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if !strings.Contains(d.Report.String(), "validation pairs: 1\n") {
		t.Errorf("report without the validation pairs:\n%s", d.Report)
	}
	d = mustSplit(t, timedUnsplit("r", 2, 5, pairs), SplitSettings{Kind: SplitLeaveLastOut}, 1)
	if got, want := d.Report.Summary(), "interactions: 0 records read, 5 pairs kept (3 train, 2 test, 2 with a cold item)"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if strings.Contains(d.Report.String(), "validation") {
		t.Errorf("report names validation pairs when there are none:\n%s", d.Report)
	}
}

// splitDigest is the sha256 of the dataset's train and test pairs, in order, every field in
// little-endian binary.
func splitDigest(d *Dataset) string {
	h := sha256.New()
	for _, part := range [][]Interaction{d.Train, d.Test} {
		binary.Write(h, binary.LittleEndian, int64(len(part)))
		binary.Write(h, binary.LittleEndian, part)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// TestSplitUnchanged: without a validation set, every split kind gives the train and test
// pairs, in the order, that it gave before validation sets existed: the digests were computed
// by the split code of then, on the same settings and seed.
func TestSplitUnchanged(t *testing.T) {
	ml := func(s SplitSettings) Settings {
		return Settings{Source: SourceInteractions, Path: "../data/movielens-latest-small", Split: s,
			Interactions: InteractionsSettings{ItemFeatures: []FeatureFile{{File: "movies.csv", Columns: []string{"genres"}}}}}
	}
	syn := func(s SplitSettings) Settings {
		return Settings{Source: SourceSynthetic, Split: s, Synthetic: SyntheticSettings{Interactions: 20000, Days: 5}}
	}
	for _, c := range []struct {
		name string
		s    Settings
		want string
	}{
		{"movielens/leave_last_out", ml(SplitSettings{Kind: SplitLeaveLastOut}), "c80e58703827536c"},
		{"movielens/temporal", ml(SplitSettings{Kind: SplitTemporal, TestFraction: 0.1}), "f4ad2992c3f2cf7d"},
		{"movielens/temporal days", ml(SplitSettings{Kind: SplitTemporal, TestDays: 30}), "569fa8ffe6dc5143"},
		{"movielens/random", ml(SplitSettings{Kind: SplitRandom}), "5e16f6eab3012500"},
		{"synthetic/random", syn(SplitSettings{Kind: SplitRandom}), "758d55f24c9f8e67"},
		{"synthetic/query", syn(SplitSettings{Kind: SplitQuery, TestFraction: 0.2}), "96402334a036eddc"},
		{"synthetic/temporal", syn(SplitSettings{Kind: SplitTemporal, TestDays: 1}), "b95b94aa5649849f"},
		{"synthetic/leave_last_out", syn(SplitSettings{Kind: SplitLeaveLastOut}), "26e6fc386958483b"},
		{"wikilinks/random", Settings{}, "0854d9cca444230e"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := splitDigest(mustLoad(t, c.s, 7)); got != c.want {
				t.Errorf("digest %s, want %s", got, c.want)
			}
		})
	}
}

// TestSplitDaySpan checks that pairs built in Go whose timestamps span more days than the day
// buckets hold are an error (a loaded file cannot: its timestamps lie in the years 1000 to 2999).
func TestSplitDaySpan(t *testing.T) {
	u := &Unsplit{Dataset: &Dataset{Name: "span", Queries: 1, Items: 2}, Timed: true,
		Pairs: []Interaction{{Item: 0, Time: 0}, {Item: 1, Time: 99999999999999}}}
	_, err := u.Split(SplitSettings{Kind: "random", TestFraction: 0.5}, 1)
	if want := "span: timestamps 0 to 99999999999999 span 1157407408 days; at most 1048576 day buckets are supported"; err == nil || err.Error() != want {
		t.Errorf("error %v; want %s", err, want)
	}
}
