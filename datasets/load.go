package datasets

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Load resolves a copy of s, reads (or generates) the dataset it describes and splits it into
// train and test. The seed drives the split and the synthetic generator; the same settings
// and seed give the same dataset.
func Load(s Settings, seed int64) (*Dataset, error) {
	if err := s.Resolve(); err != nil {
		return nil, err
	}
	var (
		l   *loaded
		err error
	)
	switch s.Source {
	case "wikilinks":
		l, err = loadWikilinks(s)
	case "xmc":
		l, err = loadXMC(s)
	case "interactions":
		l, err = loadInteractions(s)
	case "synthetic":
		l = synthesize(s.Synthetic, seed)
	}
	if err != nil {
		return nil, err
	}
	if err := l.finish(s.Split, seed); err != nil {
		return nil, err
	}
	return l.d, nil
}

// loaded is what a loader hands over: the dataset without its split, and its pairs.
type loaded struct {
	d     *Dataset
	pairs []Interaction
	timed bool // the pairs have timestamps
	// testFrom is where the pairs of the test file start (split kind "files").
	testFrom int
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

// finish assigns day buckets, splits the pairs and completes the report.
func (l *loaded) finish(s SplitSettings, seed int64) error {
	d := l.d
	if len(l.pairs) == 0 {
		return fmt.Errorf("%s: no pairs (%d records read)", d.Report.Source, d.Report.Records)
	}
	if l.timed {
		if err := l.assignDays(); err != nil {
			return err
		}
	}
	if s.Kind == "temporal" && !l.timed {
		return fmt.Errorf("split.kind: temporal needs timestamps, which %s does not have", d.Name)
	}
	test := l.testMask(s, rand.New(rand.NewPCG(uint64(seed), streamSplit)))
	nTest := 0
	for _, t := range test {
		if t {
			nTest++
		}
	}
	d.Train = make([]Interaction, 0, len(test)-nTest)
	d.Test = make([]Interaction, 0, nTest)
	for i, p := range l.pairs {
		if test[i] {
			d.Test = append(d.Test, p)
		} else {
			d.Train = append(d.Train, p)
		}
	}
	if l.timed {
		byTime := func(a, b Interaction) int {
			return cmp.Or(cmp.Compare(a.Time, b.Time), cmp.Compare(a.Query, b.Query), cmp.Compare(a.Item, b.Item))
		}
		slices.SortStableFunc(d.Train, byTime)
		slices.SortStableFunc(d.Test, byTime)
	}
	r := &d.Report
	r.Pairs, r.Train, r.Test = int64(len(l.pairs)), len(d.Train), len(d.Test)
	switch {
	case len(d.Test) == 0:
		return fmt.Errorf("split: the test set of %s is empty (kind %s, %d pairs)", d.Name, s.Kind, len(l.pairs))
	case len(d.Train) == 0:
		return fmt.Errorf("split: the train set of %s is empty (kind %s, %d pairs)", d.Name, s.Kind, len(l.pairs))
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
	return nil
}

// assignDays sets every pair's Day (UTC days since the day of the first timestamp) and Days.
func (l *loaded) assignDays() error {
	day := func(t int64) int64 { return int64(math.Floor(float64(t) / secondsPerDay)) }
	lo, hi := l.pairs[0].Time, l.pairs[0].Time
	for _, p := range l.pairs {
		lo, hi = min(lo, p.Time), max(hi, p.Time)
	}
	if span := day(hi) - day(lo) + 1; span > maxDays {
		return fmt.Errorf("%s: timestamps %d to %d span %d days; at most %d day buckets are supported", l.d.Name, lo, hi, span, maxDays)
	}
	first := day(lo)
	for i := range l.pairs {
		l.pairs[i].Day = int32(day(l.pairs[i].Time) - first)
	}
	l.d.Days = int(day(hi)-first) + 1
	return nil
}

// testMask returns which pairs go to test.
func (l *loaded) testMask(s SplitSettings, rng *rand.Rand) []bool {
	n := len(l.pairs)
	test := make([]bool, n)
	switch s.Kind {
	case "random":
		test = choose(n, fraction(n, s.TestFraction), rng)
	case "query":
		has := make([]bool, l.d.Queries)
		for _, p := range l.pairs {
			has[p.Query] = true
		}
		var active []int32
		for q, h := range has {
			if h {
				active = append(active, int32(q))
			}
		}
		chosen := choose(len(active), fraction(len(active), s.TestFraction), rng)
		inTest := make([]bool, l.d.Queries)
		for i, q := range active {
			inTest[q] = chosen[i]
		}
		for i, p := range l.pairs {
			test[i] = inTest[p.Query]
		}
	case "temporal":
		if s.TestDays > 0 {
			for i, p := range l.pairs {
				test[i] = int(p.Day) >= l.d.Days-s.TestDays
			}
			break
		}
		k := fraction(n, s.TestFraction)
		if k == 0 {
			break
		}
		times := make([]int64, n)
		for i, p := range l.pairs {
			times[i] = p.Time
		}
		slices.Sort(times)
		cut := times[n-k]
		for i, p := range l.pairs {
			test[i] = p.Time >= cut
		}
	case "files":
		for i := l.testFrom; i < n; i++ {
			test[i] = true
		}
	}
	return test
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
