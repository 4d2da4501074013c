package datasets

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Settings is the [data] section. The zero value loads the embedded Wikispeedia link graph
// with a seeded random 90/10 split of its links.
type Settings struct {
	// Source is the loader: "wikilinks" (default), "xmc", "interactions" or "synthetic".
	Source string `toml:"source"`
	// Path is the data directory, or a file: the links file (wikilinks), the train file (xmc)
	// or the interactions file (interactions), the other files then being looked up in its
	// directory. Empty with wikilinks loads the Wikispeedia graph embedded in the module;
	// required for xmc and interactions; unused by synthetic. Files may be gzip-compressed
	// (read transparently; "name.gz" is read when "name" does not exist).
	Path string `toml:"path"`
	// MinCount: in a hashed field built from tokens (title n-grams, categories, feature-file
	// values), a token held by fewer than MinCount entities has no id of its own and goes to an
	// out-of-vocabulary hash bucket. Id fields (page_id, user_id, item_id) keep every token.
	// Default 2.
	MinCount int `toml:"min_count"`
	// OOVBuckets is the number of out-of-vocabulary hash buckets of every hashed field.
	// Default 1000.
	OOVBuckets int `toml:"oov_buckets"`

	Split        SplitSettings        `toml:"split"`
	Wikilinks    WikilinksSettings    `toml:"wikilinks"`
	XMC          XMCSettings          `toml:"xmc"`
	Interactions InteractionsSettings `toml:"interactions"`
	Synthetic    SyntheticSettings    `toml:"synthetic"`
}

// SplitSettings is the [data.split] table.
type SplitSettings struct {
	// Kind is "random" (by interaction), "query" (all pairs of a random TestFraction of the
	// queries that have pairs go to test), "temporal" or "files" (the xmc train/test files).
	// Default: "files" for xmc, "random" otherwise.
	Kind string `toml:"kind"`
	// TestFraction is the fraction of pairs (random), of queries (query) or of the latest
	// pairs by time (temporal; pairs tied with the first test time go to test too) put in test.
	// Default 0.1.
	TestFraction float64 `toml:"test_fraction"`
	// TestDays, when > 0 with kind temporal, puts the last TestDays day buckets in test instead
	// of the latest TestFraction of pairs. Default 0.
	TestDays int `toml:"test_days"`
}

// WikilinksSettings is the [data.wikilinks] table.
type WikilinksSettings struct {
	// KeepSelfLinks keeps links from a page to itself. Default false: they are dropped (and
	// counted in Report.SelfLinks either way).
	KeepSelfLinks bool `toml:"keep_self_links"`
}

// XMCSettings is the [data.xmc] table.
type XMCSettings struct {
	// Format is "arff" (Mulan sparse or dense ARFF) or "text" (Extreme Classification
	// Repository: an "N F L" header, then "l1,l2 f:v f:v" rows, 0-based ids). Default: arff
	// when the train file's name ends in .arff (or .arff.gz), text otherwise.
	Format string `toml:"format"`
	// Train and Test are the file names inside Path. Default: the single file in Path whose
	// name matches *train*.arff or *train*.txt (*test*... for Test), optionally gzipped; when
	// Path is a file, it is the train file. Test is needed only by split kind "files"; with
	// another kind the examples of both files (when a test file exists) are pooled and split.
	Train string `toml:"train"`
	Test  string `toml:"test"`
	// Labels is the number of label attributes of an ARFF file: the last Labels attributes.
	// Default 0: the label attributes are those named in the Mulan label file LabelsXML.
	Labels int `toml:"labels"`
	// LabelsXML is the Mulan label file inside Path. Default: the single *.xml file in Path
	// (used when Labels is 0). Setting both LabelsXML and Labels checks that they agree.
	LabelsXML string `toml:"labels_xml"`
}

// InteractionsSettings is the [data.interactions] table. The defaults read MovieLens's
// ratings.csv.
type InteractionsSettings struct {
	// File is the interactions file inside Path. Default "ratings.csv" (or Path itself when it
	// is a file).
	File string `toml:"file"`
	// Delimiter is the one-character column delimiter, or "tab". Default: tab for *.tsv (and
	// *.tsv.gz), comma otherwise. Comma-separated files may quote fields (RFC 4180).
	Delimiter string `toml:"delimiter"`
	// NoHeader says the file has no header row (columns are then given by 0-based index).
	// Default false: the first row names the columns.
	NoHeader bool `toml:"no_header"`
	// User, Item, Time and Rating name columns, by header name or 0-based index. Defaults
	// "userId", "movieId", "timestamp" (unix seconds) and "rating". Time and Rating may be
	// "none": no timestamps (no day buckets) / no rating.
	User   string `toml:"user"`
	Item   string `toml:"item"`
	Time   string `toml:"time"`
	Rating string `toml:"rating"`
	// Reward maps a rating to the pair's reward: "scale" (reward = rating/RatingScale),
	// "threshold" (rows with rating >= Threshold are kept with reward 1, the others dropped and
	// counted), "raw" (reward = rating) or "one" (reward 1). Default "scale", or "one" when
	// Rating is "none".
	Reward string `toml:"reward"`
	// RatingScale divides ratings under "scale". Default 5.
	RatingScale float64 `toml:"rating_scale"`
	// Threshold is the lowest kept rating under "threshold". Default 4.
	Threshold float64 `toml:"threshold"`
	// Dedupe drops repeated (user, item) rows, keeping the earliest (the first in file order
	// without timestamps). Default false: repeats are kept and counted in Report.Duplicates.
	Dedupe bool `toml:"dedupe"`
	// ItemFeatures and QueryFeatures are feature files; every id they list is an item (query)
	// even without interactions, in file order before the ids first seen in the interactions.
	ItemFeatures  []FeatureFile `toml:"item_features"`
	QueryFeatures []FeatureFile `toml:"query_features"`
}

// FeatureFile is one [[data.interactions.item_features]] (or query_features) entry: a
// CSV/TSV file with one row per entity whose Columns become categorical fields.
type FeatureFile struct {
	// File is the file name inside Path. Required.
	File string `toml:"file"`
	// Delimiter and NoHeader are as in InteractionsSettings.
	Delimiter string `toml:"delimiter"`
	NoHeader  bool   `toml:"no_header"`
	// Key is the id column. Default: the interactions' Item (for item features) or User (for
	// query features) column spec.
	Key string `toml:"key"`
	// Columns are the feature columns (header names or 0-based indices); each becomes a field
	// named after its header (or "column<i>" without a header). Required.
	Columns []string `toml:"columns"`
	// Separator splits a value into several tokens ("Adventure|Animation"); "none" keeps the
	// value whole. Default "|".
	Separator string `toml:"separator"`
}

// SyntheticSettings is the [data.synthetic] table.
//
// Generation: item i has popularity rank i+1 on day 0 and rank ((i + d·shift) mod Items)+1 on
// day d, shift = round(Drift·Items); each pair of day d draws its item from the Zipf law
// P(rank r) ∝ r^-Zipf, then with probability Affinity a query uniformly from the item's
// planted cluster (items and queries get uniformly random clusters), otherwise (or when the
// cluster has no query) a query uniformly from all queries. The item marginal of every day is thus exactly Zipf. Pairs are
// spread evenly over Days days, at uniformly random seconds of the day.
type SyntheticSettings struct {
	// Items, Queries and Interactions are the sizes. Defaults 2000, 5000, 100000.
	Items        int `toml:"items"`
	Queries      int `toml:"queries"`
	Interactions int `toml:"interactions"`
	// Zipf is the popularity exponent s > 0. Default 1.
	Zipf float64 `toml:"zipf"`
	// Clusters is the number of planted clusters. Default 20.
	Clusters int `toml:"clusters"`
	// Affinity in (0, 1] is the probability that a pair's query comes from its item's
	// cluster. Default 0.9.
	Affinity float64 `toml:"affinity"`
	// Days is the number of day buckets. Default 10.
	Days int `toml:"days"`
	// Drift in [0, 1) is the fraction of the popularity ranking that rotates per day. Default 0.
	Drift float64 `toml:"drift"`
	// ClusterFeature adds the planted cluster as a field "cluster" on both sides. Default false.
	ClusterFeature bool `toml:"cluster_feature"`
}

var sources = []string{"wikilinks", "xmc", "interactions", "synthetic"}

// Resolve fills zero fields with their defaults, in place, and validates. Errors start with
// the TOML key relative to the [data] section.
func (s *Settings) Resolve() error {
	if s.Source == "" {
		s.Source = "wikilinks"
	}
	if !slices.Contains(sources, s.Source) {
		return enumError("source", s.Source, sources)
	}
	if s.Path == "" && (s.Source == "xmc" || s.Source == "interactions") {
		return fmt.Errorf("path: required for source %s", s.Source)
	}
	setDefault(&s.MinCount, 2)
	setDefault(&s.OOVBuckets, 1000)
	if s.MinCount < 1 {
		return fmt.Errorf("min_count: must be >= 1, got %d", s.MinCount)
	}
	if s.OOVBuckets < 1 || s.OOVBuckets > 1<<24 {
		return fmt.Errorf("oov_buckets: must be in [1, %d], got %d", 1<<24, s.OOVBuckets)
	}
	if err := s.Split.resolve(s.Source); err != nil {
		return err
	}
	switch s.Source {
	case "xmc":
		return s.XMC.resolve()
	case "interactions":
		return s.Interactions.resolve()
	case "synthetic":
		return s.Synthetic.resolve()
	}
	return nil
}

func (s *SplitSettings) resolve(source string) error {
	kinds := []string{"random", "query", "temporal", "files"}
	if s.Kind == "" {
		s.Kind = "random"
		if source == "xmc" {
			s.Kind = "files"
		}
	}
	if !slices.Contains(kinds, s.Kind) {
		return enumError("split.kind", s.Kind, kinds)
	}
	if s.Kind == "files" && source != "xmc" {
		return fmt.Errorf("split.kind: files is only for source xmc (source is %s)", source)
	}
	if s.Kind == "temporal" && (source == "xmc" || source == "wikilinks") {
		return fmt.Errorf("split.kind: temporal needs timestamps, which source %s does not have", source)
	}
	setDefault(&s.TestFraction, 0.1)
	if !(s.TestFraction > 0 && s.TestFraction < 1) {
		return fmt.Errorf("split.test_fraction: must be in (0, 1), got %v", s.TestFraction)
	}
	if s.TestDays < 0 {
		return fmt.Errorf("split.test_days: must be >= 0, got %d", s.TestDays)
	}
	if s.TestDays > 0 && s.Kind != "temporal" {
		return fmt.Errorf("split.test_days: only for kind temporal (kind is %s)", s.Kind)
	}
	return nil
}

func (s *XMCSettings) resolve() error {
	formats := []string{"arff", "text"}
	if s.Format != "" && !slices.Contains(formats, s.Format) {
		return enumError("xmc.format", s.Format, formats)
	}
	if s.Labels < 0 {
		return fmt.Errorf("xmc.labels: must be >= 0, got %d", s.Labels)
	}
	return nil
}

func (s *InteractionsSettings) resolve() error {
	setDefault(&s.File, "ratings.csv")
	setDefault(&s.User, "userId")
	setDefault(&s.Item, "movieId")
	setDefault(&s.Time, "timestamp")
	setDefault(&s.Rating, "rating")
	if s.Rating == "none" {
		setDefault(&s.Reward, "one")
	}
	setDefault(&s.Reward, "scale")
	setDefault(&s.RatingScale, 5)
	setDefault(&s.Threshold, 4)
	if err := checkDelimiter("interactions.delimiter", s.Delimiter); err != nil {
		return err
	}
	for _, c := range []struct{ key, spec string }{
		{"user", s.User}, {"item", s.Item}, {"time", s.Time}, {"rating", s.Rating},
	} {
		if (c.key == "user" || c.key == "item") && c.spec == "none" {
			return fmt.Errorf("interactions.%s: required (cannot be none)", c.key)
		}
		if err := checkColumn("interactions."+c.key, c.spec, s.NoHeader); err != nil {
			return err
		}
	}
	rewards := []string{"scale", "threshold", "raw", "one"}
	if !slices.Contains(rewards, s.Reward) {
		return enumError("interactions.reward", s.Reward, rewards)
	}
	if s.Reward != "one" && s.Rating == "none" {
		return fmt.Errorf("interactions.reward: %s needs a rating column (interactions.rating is none)", s.Reward)
	}
	if !(s.RatingScale > 0) {
		return fmt.Errorf("interactions.rating_scale: must be > 0, got %v", s.RatingScale)
	}
	for _, side := range []struct {
		key, column string
		files       []FeatureFile
	}{{"item_features", s.Item, s.ItemFeatures}, {"query_features", s.User, s.QueryFeatures}} {
		for i := range side.files {
			if err := side.files[i].resolve(fmt.Sprintf("interactions.%s[%d]", side.key, i), side.column); err != nil {
				return err
			}
		}
	}
	return nil
}

func (f *FeatureFile) resolve(prefix, key string) error {
	setDefault(&f.Key, key)
	setDefault(&f.Separator, "|")
	if f.File == "" {
		return fmt.Errorf("%s.file: required", prefix)
	}
	if len(f.Columns) == 0 {
		return fmt.Errorf("%s.columns: required (at least one column)", prefix)
	}
	if err := checkDelimiter(prefix+".delimiter", f.Delimiter); err != nil {
		return err
	}
	for _, c := range append([]string{f.Key}, f.Columns...) {
		if c == "none" {
			return fmt.Errorf("%s: column none is not allowed here", prefix)
		}
		if err := checkColumn(prefix, c, f.NoHeader); err != nil {
			return err
		}
	}
	return nil
}

func (s *SyntheticSettings) resolve() error {
	setDefault(&s.Items, 2000)
	setDefault(&s.Queries, 5000)
	setDefault(&s.Interactions, 100000)
	setDefault(&s.Zipf, 1)
	setDefault(&s.Clusters, 20)
	setDefault(&s.Affinity, 0.9)
	setDefault(&s.Days, 10)
	const maxSize = 1 << 30
	for _, c := range []struct {
		key string
		v   int
	}{{"items", s.Items}, {"queries", s.Queries}, {"interactions", s.Interactions}, {"clusters", s.Clusters}, {"days", s.Days}} {
		if c.v < 1 || c.v > maxSize {
			return fmt.Errorf("synthetic.%s: must be in [1, %d], got %d", c.key, maxSize, c.v)
		}
	}
	switch {
	case s.Interactions < s.Days:
		return fmt.Errorf("synthetic.interactions: must be >= synthetic.days (%d), got %d", s.Days, s.Interactions)
	case !(s.Zipf > 0 && s.Zipf <= 10):
		return fmt.Errorf("synthetic.zipf: must be in (0, 10], got %v", s.Zipf)
	case !(s.Affinity > 0 && s.Affinity <= 1):
		return fmt.Errorf("synthetic.affinity: must be in (0, 1], got %v", s.Affinity)
	case !(s.Drift >= 0 && s.Drift < 1):
		return fmt.Errorf("synthetic.drift: must be in [0, 1), got %v", s.Drift)
	}
	return nil
}

func setDefault[T comparable](p *T, v T) {
	var zero T
	if *p == zero {
		*p = v
	}
}

func enumError(key, got string, allowed []string) error {
	return fmt.Errorf("%s: unknown %q (allowed: %s)", key, got, strings.Join(allowed, ", "))
}

func checkDelimiter(key, d string) error {
	if d == "" || d == "tab" {
		return nil
	}
	r := []rune(d)
	if len(r) != 1 || r[0] == '"' || r[0] == '\r' || r[0] == '\n' {
		return fmt.Errorf("%s: must be one character other than a quote or line break, or \"tab\", got %q", key, d)
	}
	return nil
}

// checkColumn checks a column spec: a 0-based index, "none", or a header name when the file
// has a header.
func checkColumn(key, spec string, noHeader bool) error {
	if spec == "none" {
		return nil
	}
	if n, err := strconv.Atoi(spec); err == nil {
		if n < 0 {
			return fmt.Errorf("%s: column index must be >= 0, got %d", key, n)
		}
		return nil
	}
	if noHeader {
		return fmt.Errorf("%s: %q names a column but the file has no header (no_header); use a 0-based index", key, spec)
	}
	return nil
}
