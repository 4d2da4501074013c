package datasets

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// Dataset is the one in-memory form of every source.
type Dataset struct {
	Name string
	// Query ids are 0..Queries-1 and item ids 0..Items-1 (separate id spaces, except that the
	// wikilinks source uses the same id for a page on both sides).
	Queries, Items int
	// QueryNames and ItemNames are human-readable names (nil when the source has none).
	QueryNames, ItemNames []string
	// QueryFeatures and ItemFeatures hold one bag of categorical ids per entity and field.
	// They may be the same pointer (wikilinks); treat them as read-only.
	QueryFeatures, ItemFeatures *Features
	// Train, Valid and Test are the split interactions: Valid is the validation set (empty
	// unless the split asks for one, SplitSettings.Validation), which training never sees. For
	// sources with timestamps each is sorted by (Time, Query, Item), pairs equal in all three in
	// the source's order; otherwise they keep the source order.
	Train, Valid, Test []Interaction
	// Sequences indexes every query's training items in time order, the histories of
	// sequential query towers; nil when the source has no timestamps, and unless the split was
	// asked for it (Options.Sequences).
	Sequences *Sequences
	// Days is the number of day buckets (0 = no timestamps).
	Days int
	// Report is what the loader counted.
	Report Report
	// ItemValues are per-item quantities a source provides (each with a value per item, item j's
	// at index j, by a lower-case snake_case name): the trainer offers each to the loss as a side
	// input of that name (candidates.PerItem), at every column's item and every row's positive,
	// beside the training label prior (LogPrior). Nil for the built-in sources.
	ItemValues map[string][]float64
	// Truth is the law the pairs were drawn from, when the source knows it (synthetic: each
	// query's true distribution over the items, day by day); nil otherwise.
	Truth *Truth
}

// Interaction is one (query, item) pair.
type Interaction struct {
	Query, Item int32
	Time        int64 // unix seconds; 0 when the source has none
	Day         int32 // day bucket (0-based, UTC days from the first timestamp); 0 when none
	// Reward weighs the pair's loss (Yi et al. eq. 4): finite and >= 0; 1 when the source has
	// none. Yi et al.'s rewards are in [0, 1]; larger ones are allowed as weights.
	Reward float32
}

// Features holds, for each entity (query or item), one bag of categorical ids per field, plus
// optional dense features.
type Features struct {
	Fields   []Field
	DenseDim int
	Dense    []float32 // N×DenseDim row-major; nil when DenseDim == 0
}

// Field is one bag-of-ids feature of every entity of one side.
//
// Hashed vocabularies: a field built from string tokens gives the Known tokens that pass
// Settings.MinCount the ids [0, Known) in byte order of the token (Tokens[id] is the token),
// and maps every other token, including ones never seen at load time (see Lookup), to one of
// the out-of-vocabulary hash buckets [Known, Vocab) by FNV-1a-64 of the token modulo the bucket
// count. Fields of numeric ids (XMC features and labels, synthetic ids) have Known == Vocab and
// no Tokens.
type Field struct {
	// Name identifies the field, e.g. "page_id", "title_ngram", "category". With table sharing
	// on, the query and item towers share the embedding table of equally named fields (which
	// then have equal Vocab).
	Name string
	// Vocab bounds the ids: they are in [0, Vocab), including the out-of-vocabulary buckets.
	Vocab int
	// Offsets has length N+1: entity e's bag is IDs[Offsets[e]:Offsets[e+1]] (may be empty).
	Offsets []int32
	IDs     []int32
	// Weights is nil when all weights are 1; else it has len(IDs) (e.g. XMC feature values).
	Weights []float32
	// Known is the number of known-token ids; ids >= Known are hash buckets.
	Known int
	// Tokens[id] is the known token with that id (nil for numeric id fields).
	Tokens []string
}

// Bag returns entity e's ids and weights (weights nil when all are 1).
func (f *Field) Bag(e int) (ids []int32, weights []float32) {
	lo, hi := f.Offsets[e], f.Offsets[e+1]
	if f.Weights != nil {
		weights = f.Weights[lo:hi]
	}
	return f.IDs[lo:hi], weights
}

// Lookup returns the id of token in a hashed field: its known id, or its hash bucket. It
// returns -1 for a numeric id field (Tokens == nil).
func (f *Field) Lookup(token string) int32 {
	if f.Tokens == nil {
		return -1
	}
	if i, ok := slices.BinarySearch(f.Tokens, token); ok {
		return int32(i)
	}
	return bucket(token, f.Known, f.Vocab)
}

// Field returns the field with the given name, or nil.
func (fs *Features) Field(name string) *Field {
	for i := range fs.Fields {
		if fs.Fields[i].Name == name {
			return &fs.Fields[i]
		}
	}
	return nil
}

// ItemCounts returns the training count of every item (length Items).
func (d *Dataset) ItemCounts() []int64 {
	c := make([]int64, d.Items)
	for _, it := range d.Train {
		c[it.Item]++
	}
	return c
}

// LogPrior is the training label prior of every item, log π_j with π_j = (c_j + 1)/(N + M), the
// add-one smoothed training frequency of item j (c_j its training count, N = Σ c_j, M =
// len(counts) items), so that an item absent from the training set keeps a finite prior: the one
// definition of the prior, which training reads (the side input candidates.LogPrior of tail and
// logit_adjusted) and evaluation reads (post-hoc logit adjustment).
func LogPrior(counts []int64) []float64 {
	var n int64
	for _, c := range counts {
		n += c
	}
	den := float64(n + int64(len(counts)))
	out := make([]float64, len(counts))
	for j, c := range counts {
		out[j] = math.Log(float64(c+1) / den)
	}
	return out
}

// Bytes is the memory the dataset holds: its interactions (training, validation and test), its
// sequence index, its features, tokens and names, its item values and the law it was drawn from
// (Truth).
func (d *Dataset) Bytes() float64 {
	strs := func(ss []string) float64 {
		n := float64(cap(ss)) * float64(unsafe.Sizeof(""))
		for _, s := range ss {
			n += float64(len(s))
		}
		return n
	}
	n := float64(cap(d.Train)+cap(d.Valid)+cap(d.Test))*float64(unsafe.Sizeof(Interaction{})) + strs(d.QueryNames) + strs(d.ItemNames)
	if s := d.Sequences; s != nil {
		n += s.bytes()
	}
	for side, fs := range []*Features{d.QueryFeatures, d.ItemFeatures} {
		if fs == nil || (side == 1 && fs == d.QueryFeatures) {
			continue
		}
		n += 4 * float64(cap(fs.Dense))
		for _, f := range fs.Fields {
			n += 4*float64(cap(f.Offsets)+cap(f.IDs)+cap(f.Weights)) + strs(f.Tokens)
		}
	}
	for _, v := range d.ItemValues {
		n += 8 * float64(cap(v))
	}
	return n + float64(d.Truth.Bytes())
}

// KnownPositives returns, for every query, the sorted distinct items it interacts with in
// Train, Valid or Test: the lists to remove from a query's ranking for filtered evaluation
// (eval filter "known").
func (d *Dataset) KnownPositives() [][]int32 { return d.positives(d.Train, d.Valid, d.Test) }

// TrainPositives returns, for every query, the sorted distinct items it interacts with in
// Train: the items it has already seen, removed from its ranking with eval filter "seen".
func (d *Dataset) TrainPositives() [][]int32 { return d.positives(d.Train) }

// positives returns, for every query, the sorted distinct items of its pairs in parts.
func (d *Dataset) positives(parts ...[]Interaction) [][]int32 {
	pos := make([][]int32, d.Queries)
	for _, part := range parts {
		for _, it := range part {
			pos[it.Query] = append(pos[it.Query], it.Item)
		}
	}
	for q, p := range pos {
		slices.Sort(p)
		pos[q] = slices.Compact(p)
	}
	return pos
}

// TrainDays returns Train cut into its day buckets (length Days; entry d holds the training
// interactions of day d, as a sub-slice of Train). It returns nil when Days == 0.
func (d *Dataset) TrainDays() [][]Interaction {
	if d.Days == 0 {
		return nil
	}
	out := make([][]Interaction, d.Days)
	start := 0
	for day := range out {
		end := start
		for end < len(d.Train) && int(d.Train[end].Day) == day {
			end++
		}
		out[day] = d.Train[start:end:end]
		start = end
	}
	return out
}

// Validate checks the invariants of the form: ids in range, consistent features and day
// buckets, Train sorted by day when Days > 0, and Sequences (when not nil) holding every
// training item once, at the position each pair's history says. Loaders return valid datasets;
// Validate is for tests and for datasets built by hand.
func (d *Dataset) Validate() error {
	if d.Queries < 0 || d.Items < 0 {
		return fmt.Errorf("datasets: negative size (queries %d, items %d)", d.Queries, d.Items)
	}
	if d.QueryNames != nil && len(d.QueryNames) != d.Queries {
		return fmt.Errorf("datasets: %d query names for %d queries", len(d.QueryNames), d.Queries)
	}
	if d.ItemNames != nil && len(d.ItemNames) != d.Items {
		return fmt.Errorf("datasets: %d item names for %d items", len(d.ItemNames), d.Items)
	}
	if err := d.QueryFeatures.validate("query", d.Queries); err != nil {
		return err
	}
	if err := d.ItemFeatures.validate("item", d.Items); err != nil {
		return err
	}
	for _, part := range []struct {
		name string
		ints []Interaction
	}{{"train", d.Train}, {"validation", d.Valid}, {"test", d.Test}} {
		for i, it := range part.ints {
			switch {
			case it.Query < 0 || int(it.Query) >= d.Queries:
				return fmt.Errorf("datasets: %s[%d]: query %d out of range [0, %d)", part.name, i, it.Query, d.Queries)
			case it.Item < 0 || int(it.Item) >= d.Items:
				return fmt.Errorf("datasets: %s[%d]: item %d out of range [0, %d)", part.name, i, it.Item, d.Items)
			case it.Day < 0 || (d.Days > 0 && int(it.Day) >= d.Days) || (d.Days == 0 && it.Day != 0):
				return fmt.Errorf("datasets: %s[%d]: day %d out of range for %d days", part.name, i, it.Day, d.Days)
			case !(it.Reward >= 0) || math.IsInf(float64(it.Reward), 1):
				return fmt.Errorf("datasets: %s[%d]: reward %v; rewards are finite and >= 0", part.name, i, it.Reward)
			}
		}
	}
	if d.Days > 0 && !slices.IsSortedFunc(d.Train, func(a, b Interaction) int { return int(a.Day - b.Day) }) {
		return fmt.Errorf("datasets: train is not sorted by day")
	}
	if d.Sequences != nil {
		return d.Sequences.validate(d)
	}
	return nil
}

func (fs *Features) validate(side string, n int) error {
	if fs == nil {
		return fmt.Errorf("datasets: no %s features", side)
	}
	if fs.DenseDim < 0 || len(fs.Dense) != n*fs.DenseDim {
		return fmt.Errorf("datasets: %s dense features: %d values for %d×%d", side, len(fs.Dense), n, fs.DenseDim)
	}
	for _, f := range fs.Fields {
		if len(f.Offsets) != n+1 || f.Offsets[0] != 0 || int(f.Offsets[n]) != len(f.IDs) {
			return fmt.Errorf("datasets: %s field %q: offsets do not cover %d entities and %d ids", side, f.Name, n, len(f.IDs))
		}
		if !slices.IsSorted(f.Offsets) {
			return fmt.Errorf("datasets: %s field %q: offsets decrease", side, f.Name)
		}
		if f.Weights != nil && len(f.Weights) != len(f.IDs) {
			return fmt.Errorf("datasets: %s field %q: %d weights for %d ids", side, f.Name, len(f.Weights), len(f.IDs))
		}
		if f.Known < 0 || f.Known > f.Vocab || (f.Tokens != nil && len(f.Tokens) != f.Known) {
			return fmt.Errorf("datasets: %s field %q: %d known tokens of vocab %d", side, f.Name, f.Known, f.Vocab)
		}
		for _, id := range f.IDs {
			if id < 0 || int(id) >= f.Vocab {
				return fmt.Errorf("datasets: %s field %q: id %d out of range [0, %d)", side, f.Name, id, f.Vocab)
			}
		}
	}
	return nil
}

// Report is what a loader counted while reading. Every count says in its comment what
// happened to the records it counts.
type Report struct {
	Source Source
	Files  []string // files read, in order, as "name (N lines)" (or rows, or labels)
	// Records is the number of data records read: links, labelled examples, CSV rows or
	// generated interactions.
	Records int64
	// Pairs is the number of (query, item) interactions kept (= len(Train) + len(Valid) +
	// len(Test)).
	Pairs int64
	// UnknownIDs counts references to names not in the entity list (e.g. a link to a page that
	// articles.tsv does not list); the record is dropped.
	UnknownIDs int64
	// SelfLinks counts links from a page to itself; dropped unless wikilinks.keep_self_links.
	SelfLinks int64
	// Duplicates counts repeated records: repeated links and repeated labels or features
	// within one XMC example are dropped; repeated (user, item) CSV rows are kept unless
	// interactions.dedupe; repeated rows of a feature file are dropped (the first row wins).
	Duplicates int64
	// EmptyRows counts XMC examples without a label (they give no pair, but stay queries).
	EmptyRows int64
	// BelowThreshold counts CSV rows dropped by the "threshold" reward mapping.
	BelowThreshold int64
	// NoFeatures counts entities whose source lists no feature row (pages without a category,
	// items missing from the item feature file); they keep their id feature.
	NoFeatures int64
	// UndecodedNames counts wikilinks titles whose percent-encoding is malformed; their title
	// n-grams are taken from the raw name.
	UndecodedNames int64
	// Unterminated counts files whose last line has no line break and was kept, its structure
	// saying that it is complete (see the package documentation, "Bad input").
	Unterminated int64
	// Train, Valid and Test are the split sizes; ColdTestItems and ColdTestQueries count test
	// pairs whose item (query) has no training pair.
	Train, Valid, Test             int
	ColdTestItems, ColdTestQueries int
	// Examples holds up to 5 "file:line: what" examples of every kind counted above.
	Examples []string
}

const maxExamples = 5

// Names of String's counts of the test pairs whose item (CountColdItems) or query
// (CountColdQueries) has no training pair.
const (
	CountColdItems   = "test pairs with a cold item"
	CountColdQueries = "test pairs with a cold query"
)

// CountOf is the count name (e.g. CountColdItems) in text, a Report's String: 0 when text has
// no line of it, as String leaves out the counts that are 0.
func CountOf(text, name string) int {
	for line := range strings.Lines(text) {
		if v, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), name+": "); ok {
			if n, err := strconv.Atoi(v); err == nil {
				return n
			}
		}
	}
	return 0
}

// count increments the counter c and keeps the record's "file:line: what" description as an
// example while c is at most maxExamples.
func (r *Report) count(c *int64, format string, args ...any) {
	*c++
	if *c <= maxExamples {
		r.Examples = append(r.Examples, fmt.Sprintf(format, args...))
	}
}

// String formats the report as one "name: value" per line, leaving out zero counts.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "source: %s\n", r.Source)
	for _, f := range r.Files {
		fmt.Fprintf(&b, "file: %s\n", f)
	}
	for _, c := range slices.Concat([]reportCount{{"records read", r.Records}, {"pairs kept", r.Pairs}}, r.setApart(), []reportCount{
		{"train pairs", int64(r.Train)},
		{"validation pairs", int64(r.Valid)},
		{"test pairs", int64(r.Test)},
		{CountColdItems, int64(r.ColdTestItems)},
		{CountColdQueries, int64(r.ColdTestQueries)},
	}) {
		if c.v != 0 {
			fmt.Fprintf(&b, "%s: %d\n", c.name, c.v)
		}
	}
	for _, e := range r.Examples {
		fmt.Fprintf(&b, "example: %s\n", e)
	}
	return b.String()
}

// Summary is the report on one line, for printing at load time: the records read, the pairs
// kept and split (the validation pairs only when there are some, the test pairs whose item or
// query has no training pair when there are some), then every non-zero count of records dropped
// or set apart, e.g.
//
//	wikilinks: 12 records read, 9 pairs kept (8 train, 1 test, 1 with a cold item); unknown ids (dropped): 2, self-links: 1
func (r Report) Summary() string {
	var b strings.Builder
	valid := ""
	if r.Valid > 0 {
		valid = fmt.Sprintf(", %d validation", r.Valid)
	}
	cold := ""
	for _, c := range []reportCount{{"a cold item", int64(r.ColdTestItems)}, {"a cold query", int64(r.ColdTestQueries)}} {
		if c.v != 0 {
			cold += fmt.Sprintf(", %d with %s", c.v, c.name)
		}
	}
	fmt.Fprintf(&b, "%s: %d records read, %d pairs kept (%d train%s, %d test%s)", r.Source, r.Records, r.Pairs, r.Train, valid, r.Test, cold)
	sep := "; "
	for _, c := range r.setApart() {
		if c.v != 0 {
			fmt.Fprintf(&b, "%s%s: %d", sep, c.name, c.v)
			sep = ", "
		}
	}
	return b.String()
}

// reportCount is one named count of a Report.
type reportCount struct {
	name string
	v    int64
}

// setApart lists the counts of records dropped or set apart, each documented at its field.
func (r Report) setApart() []reportCount {
	return []reportCount{
		{"unknown ids (dropped)", r.UnknownIDs},
		{"self-links", r.SelfLinks},
		{"duplicates", r.Duplicates},
		{"examples without labels", r.EmptyRows},
		{"below data.interactions.threshold (dropped)", r.BelowThreshold},
		{"entities without feature rows", r.NoFeatures},
		{"undecodable names", r.UndecodedNames},
		{"last lines without a line break (kept)", r.Unterminated},
	}
}
