package datasets

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/samplingbias/workbench/internal/setting"
)

// Load resolves a copy of s, reads (or generates) the dataset it describes and splits it into
// train and test, without the indexes of Options. The seed drives the split and the synthetic
// generator; the same settings and seed give the same dataset.
func Load(s Settings, seed int64) (*Dataset, error) { return LoadWith(s, seed, Options{}) }

// LoadWith is Load, building what o asks for besides.
func LoadWith(s Settings, seed int64, o Options) (*Dataset, error) {
	if err := s.Resolve(); err != nil {
		return nil, err
	}
	u, err := load(s, seed)
	if err != nil {
		return nil, err
	}
	return u.SplitWith(s.Split, seed, o)
}

// Options are what a split builds beyond the split itself: indexes that cost memory in
// proportion to the data and that only some runs read, so that the others pay nothing for them.
type Options struct {
	// Sequences indexes every query's training sequence (Dataset.Sequences: 8 bytes per
	// training pair, 4 per held-out pair, 4 per query), for a query tower that reads histories.
	// A source without timestamps has none, with or without it.
	Sequences bool
}

// load dispatches resolved settings to the loader of their source. Every name of sources has
// a case here; a name without one is an error, not a nil dataset.
func load(s Settings, seed int64) (*Unsplit, error) {
	switch s.Source {
	case SourceWikilinks:
		return loadWikilinks(s)
	case SourceXMC:
		return loadXMC(s)
	case SourceInteractions:
		return loadInteractions(s)
	case SourceSynthetic:
		return synthesize(s.Synthetic, seed), nil
	default:
		return nil, fmt.Errorf("source: %q has no loader (datasets/load.go dispatches %s)", s.Source, strings.Join(setting.Names(sources), ", "))
	}
}

// Unsplit is what a loader returns: the dataset without its split (Train and Test empty, the
// Report's split counts zero) and all its pairs. Split makes it a Dataset.
type Unsplit struct {
	// Dataset holds everything but the split: the sizes, names, features and the Report of
	// what the loader read (Report.Source names the source).
	Dataset *Dataset
	// Pairs are every (query, item) interaction kept, in the source's order.
	Pairs []Interaction
	// Timed says the pairs have timestamps (Interaction.Time): Split then assigns day buckets
	// and sorts Train and Test by time, and split kind "temporal" is possible.
	Timed bool
	// TestFrom is where the pairs of the source's own test file start (split kind "files").
	TestFrom int
}

// Random streams, one per use of the seed.
const (
	streamSplit     = 0x73706c6974 // "split"
	streamSynthetic = 0x73796e7468 // "synth"
)

const (
	secondsPerDay = 86400
	// maxDays bounds the day buckets (about 2,870 years).
	maxDays = 1 << 20
)

// orNone lists files, or says there are none.
func orNone(files []string) string {
	if len(files) == 0 {
		return "no file"
	}
	return strings.Join(files, ", ")
}

// Split resolves a copy of s (with the dataset's Report.Source as the source), assigns day
// buckets when the pairs are timed, splits the pairs into Train, Valid (when s asks for a
// validation set) and Test by the seed and completes the Report. It returns u.Dataset, now
// split; an empty train, validation or test set is an error.
func (u *Unsplit) Split(s SplitSettings, seed int64) (*Dataset, error) {
	return u.SplitWith(s, seed, Options{})
}

// SplitWith is Split, building what o asks for besides: with o.Sequences and timed pairs, the
// index of every query's training sequence (Dataset.Sequences).
func (u *Unsplit) SplitWith(s SplitSettings, seed int64, o Options) (*Dataset, error) {
	d := u.Dataset
	if err := s.resolve(d.Report.Source); err != nil {
		return nil, err
	}
	if len(u.Pairs) == 0 {
		return nil, fmt.Errorf("no pairs to split, from %s: %s", orNone(d.Report.Files), d.Report.Summary())
	}
	if u.Timed {
		if err := u.assignDays(); err != nil {
			return nil, err
		}
	}
	if (s.Kind == SplitTemporal || s.Kind == SplitLeaveLastOut) && !u.Timed {
		return nil, fmt.Errorf("split.kind: %s needs timestamps, which %s does not have", s.Kind, d.Name)
	}
	if len(u.Pairs) > math.MaxInt32 {
		return nil, fmt.Errorf("%s: %d pairs; at most %d can be split (pairs are indexed by int32)", d.Name, len(u.Pairs), math.MaxInt32)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), streamSplit))
	test := u.testMask(s, rng)
	valid, err := u.validMask(s, test, rng)
	if err != nil {
		return nil, err
	}
	part := make([]Part, len(u.Pairs))
	var sizes [numParts]int
	for i := range part {
		switch {
		case test[i]:
			part[i] = PartTest
		case valid != nil && valid[i]:
			part[i] = PartValid
		}
		sizes[part[i]]++
	}
	d.Train = make([]Interaction, 0, sizes[PartTrain])
	d.Valid = make([]Interaction, 0, sizes[PartValid])
	d.Test = make([]Interaction, 0, sizes[PartTest])
	for i, p := range u.Pairs {
		switch part[i] {
		case PartTrain:
			d.Train = append(d.Train, p)
		case PartValid:
			d.Valid = append(d.Valid, p)
		case PartTest:
			d.Test = append(d.Test, p)
		}
	}
	if u.Timed {
		// Every part in (time, query, item) order; pairs equal in all three keep the source's
		// order. indexSequences relies on this order.
		byTime := func(a, b Interaction) int {
			return cmp.Or(cmp.Compare(a.Time, b.Time), cmp.Compare(a.Query, b.Query), cmp.Compare(a.Item, b.Item))
		}
		slices.SortStableFunc(d.Train, byTime)
		slices.SortStableFunc(d.Valid, byTime)
		slices.SortStableFunc(d.Test, byTime)
	}
	r := &d.Report
	r.Pairs, r.Train, r.Valid, r.Test = int64(len(u.Pairs)), len(d.Train), len(d.Valid), len(d.Test)
	switch {
	case len(d.Test) == 0:
		return nil, fmt.Errorf("%s: the test set of %s is empty (kind %s, %d pairs)", s.sizeKey(), d.Name, s.Kind, len(u.Pairs))
	case len(d.Train) == 0:
		key := s.sizeKey()
		if len(d.Valid) > 0 { // validation took the pairs the test window left
			key = "split.validation"
			if s.Kind == SplitTemporal {
				key = "split.validation_fraction"
			}
		}
		return nil, fmt.Errorf("%s: the train set of %s is empty (kind %s, %d pairs, %d in test, %d in validation)",
			key, d.Name, s.Kind, len(u.Pairs), len(d.Test), len(d.Valid))
	}
	if u.Timed && o.Sequences {
		d.Sequences = indexSequences(u.Pairs, part, d)
	}
	items := make([]bool, d.Items)
	queries := make([]bool, d.Queries)
	for _, p := range d.Train {
		items[p.Item], queries[p.Query] = true, true
	}
	for _, p := range d.Test {
		if !items[p.Item] {
			r.ColdTestItems++
		}
		if !queries[p.Query] {
			r.ColdTestQueries++
		}
	}
	return d, nil
}

// assignDays sets every pair's Day (UTC days since the day of the first timestamp) and Days.
func (u *Unsplit) assignDays() error {
	day := func(t int64) int64 { return int64(math.Floor(float64(t) / secondsPerDay)) }
	lo, hi := u.Pairs[0].Time, u.Pairs[0].Time
	for _, p := range u.Pairs {
		lo, hi = min(lo, p.Time), max(hi, p.Time)
	}
	if span := day(hi) - day(lo) + 1; span > maxDays {
		return fmt.Errorf("%s: timestamps %d to %d span %d days; at most %d day buckets are supported", u.Dataset.Name, lo, hi, span, maxDays)
	}
	first := day(lo)
	for i := range u.Pairs {
		u.Pairs[i].Day = int32(day(u.Pairs[i].Time) - first)
	}
	u.Dataset.Days = int(day(hi)-first) + 1
	return nil
}

// testMask returns which pairs go to test.
func (u *Unsplit) testMask(s SplitSettings, rng *rand.Rand) []bool {
	n := len(u.Pairs)
	test := make([]bool, n)
	switch s.Kind {
	case SplitRandom:
		test = choose(n, fraction(n, s.TestFraction), rng)
	case SplitQuery:
		has := make([]bool, u.Dataset.Queries)
		for _, p := range u.Pairs {
			has[p.Query] = true
		}
		var active []int32
		for q, h := range has {
			if h {
				active = append(active, int32(q))
			}
		}
		chosen := choose(len(active), fraction(len(active), s.TestFraction), rng)
		inTest := make([]bool, u.Dataset.Queries)
		for i, q := range active {
			inTest[q] = chosen[i]
		}
		for i, p := range u.Pairs {
			test[i] = inTest[p.Query]
		}
	case SplitTemporal:
		if s.TestDays > 0 {
			for i, p := range u.Pairs {
				test[i] = int(p.Day) >= u.Dataset.Days-s.TestDays
			}
			break
		}
		k := fraction(n, s.TestFraction)
		if k == 0 {
			break
		}
		times := make([]int64, n)
		for i, p := range u.Pairs {
			times[i] = p.Time
		}
		slices.Sort(times)
		cut := times[n-k]
		for i, p := range u.Pairs {
			test[i] = p.Time >= cut
		}
	case SplitFiles:
		for i := u.TestFrom; i < n; i++ {
			test[i] = true
		}
	case SplitLeaveLastOut:
		leaveLastOut(u.Pairs, u.Dataset.Queries, test)
	}
	return test
}

// leaveLastOut marks in test each query's last pair by time: of pairs tied at
// the query's latest time, the last in pairs' order. A query with one pair
// keeps it in train.
func leaveLastOut(pairs []Interaction, queries int, test []bool) {
	for _, i := range lastPairs(pairs, queries, nil) {
		if i >= 0 {
			test[i] = true
		}
	}
}

// lastPairs returns, for every query, the index of its last pair by time among the pairs not
// in skip (nil: none skipped), of pairs tied at the latest time the last in pairs' order; −1
// for a query with fewer than two such pairs (its only pair stays in train).
func lastPairs(pairs []Interaction, queries int, skip []bool) []int {
	last := make([]int, queries) // index of the query's last pair, −1 if none
	count := make([]int, queries)
	for q := range last {
		last[q] = -1
	}
	for i, p := range pairs {
		if skip != nil && skip[i] {
			continue
		}
		count[p.Query]++
		if l := last[p.Query]; l < 0 || p.Time >= pairs[l].Time {
			last[p.Query] = i
		}
	}
	for q := range last {
		if count[q] < 2 {
			last[q] = -1
		}
	}
	return last
}

// validMask returns which pairs, of those not in test, go to validation (nil when s asks for
// no validation set): with leave_last_out each query's last pair once its test pair is set
// apart (its second-to-last), for every query with one or for ValidationUsers of them drawn by
// rng; with temporal the latest ValidationFraction of all pairs before the test window, pairs
// tied with the first validation time included. An empty validation set is an error naming the
// key that asked for it.
func (u *Unsplit) validMask(s SplitSettings, test []bool, rng *rand.Rand) ([]bool, error) {
	if !s.Validation {
		return nil, nil
	}
	d := u.Dataset
	valid := make([]bool, len(u.Pairs))
	switch s.Kind {
	case SplitLeaveLastOut:
		var eligible []int // the second-to-last pair of every query with at least three pairs
		for _, i := range lastPairs(u.Pairs, d.Queries, test) {
			if i >= 0 {
				eligible = append(eligible, i)
			}
		}
		switch n := s.ValidationUsers; {
		case len(eligible) == 0:
			return nil, fmt.Errorf("split.validation: no query of %s has three pairs or more, so none has a validation pair", d.Name)
		case n > len(eligible):
			return nil, fmt.Errorf("split.validation_users: %d asked, but only %d queries of %s have the three pairs or more that a validation pair needs",
				n, len(eligible), d.Name)
		case n == 0:
			for _, i := range eligible {
				valid[i] = true
			}
		default:
			for k, chosen := range choose(len(eligible), n, rng) {
				valid[eligible[k]] = chosen
			}
		}
	case SplitTemporal:
		var times []int64
		for i, p := range u.Pairs {
			if !test[i] {
				times = append(times, p.Time)
			}
		}
		k := min(fraction(len(u.Pairs), s.ValidationFraction), len(times))
		switch {
		case len(times) == 0:
			return nil, fmt.Errorf("%s: the test window takes every pair of %s (%d), and leaves none for validation and training",
				s.sizeKey(), d.Name, len(u.Pairs))
		case k == 0:
			return nil, fmt.Errorf("split.validation_fraction: %v of the %d pairs of %s (%d before the test window) is no pair",
				s.ValidationFraction, len(u.Pairs), d.Name, len(times))
		}
		slices.Sort(times)
		cut := times[len(times)-k]
		for i, p := range u.Pairs {
			valid[i] = !test[i] && p.Time >= cut
		}
	}
	return valid, nil
}

// fraction returns round(f·n).
func fraction(n int, f float64) int { return int(math.Round(f * float64(n))) }

// choose returns a uniformly random subset of exactly k of n positions (selection sampling,
// Knuth's Algorithm S: one pass, no permutation).
func choose(n, k int, rng *rand.Rand) []bool {
	sel := make([]bool, n)
	for i := 0; i < n && k > 0; i++ {
		if rng.IntN(n-i) < k {
			sel[i] = true
			k--
		}
	}
	return sel
}
