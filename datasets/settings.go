package datasets

import (
	"fmt"
	"reflect"
	"strconv"

	"github.com/samplingbias/workbench/internal/setting"
)

// Source is the loader of a dataset, Settings.Source.
type Source string

// Sources (see the package documentation for each). Every one has a loader in load.go.
const (
	SourceWikilinks    Source = "wikilinks"
	SourceXMC          Source = "xmc"
	SourceInteractions Source = "interactions"
	SourceSynthetic    Source = "synthetic"
)

var sources = []Source{SourceWikilinks, SourceXMC, SourceInteractions, SourceSynthetic}

// UnmarshalText sets s from its name; an unknown name is an error that lists the allowed ones.
func (s *Source) UnmarshalText(b []byte) error { return setting.Unmarshal(s, b, sources) }

// ReadsFiles reports whether the source loads files, which Settings.Path names (the empty
// source is DefaultSource); synthetic generates its data and refuses a path.
func (s Source) ReadsFiles() bool { return s != SourceSynthetic }

// SplitKind is how pairs are split into train and test, SplitSettings.Kind.
type SplitKind string

// Split kinds (see SplitSettings.Kind).
const (
	SplitRandom   SplitKind = "random"
	SplitQuery    SplitKind = "query"
	SplitTemporal SplitKind = "temporal"
	SplitFiles    SplitKind = "files"
	// SplitLeaveLastOut puts each query's (user's) last pair by time in test.
	SplitLeaveLastOut SplitKind = "leave_last_out"
)

var splitKinds = []SplitKind{SplitRandom, SplitQuery, SplitTemporal, SplitFiles, SplitLeaveLastOut}

// UnmarshalText sets k from its name; an unknown name is an error that lists the allowed ones.
func (k *SplitKind) UnmarshalText(b []byte) error { return setting.Unmarshal(k, b, splitKinds) }

// XMCFormat is the file format of an xmc source, XMCSettings.Format.
type XMCFormat string

// XMC formats (see XMCSettings.Format).
const (
	XMCFormatARFF XMCFormat = "arff"
	XMCFormatText XMCFormat = "text"
)

var xmcFormats = []XMCFormat{XMCFormatARFF, XMCFormatText}

// UnmarshalText sets f from its name; an unknown name is an error that lists the allowed ones.
func (f *XMCFormat) UnmarshalText(b []byte) error { return setting.Unmarshal(f, b, xmcFormats) }

// Reward maps a rating to a pair's reward, InteractionsSettings.Reward.
type Reward string

// Reward mappings (see InteractionsSettings.Reward).
const (
	RewardScale     Reward = "scale"
	RewardThreshold Reward = "threshold"
	RewardRaw       Reward = "raw"
	RewardOne       Reward = "one"
)

var rewards = []Reward{RewardScale, RewardThreshold, RewardRaw, RewardOne}

// UnmarshalText sets r from its name; an unknown name is an error that lists the allowed ones.
func (r *Reward) UnmarshalText(b []byte) error { return setting.Unmarshal(r, b, rewards) }

// Defaults filled in by Resolve; a field's comment names its constant.
const (
	DefaultSource         = SourceWikilinks
	DefaultMinCount       = 2
	DefaultOOVBuckets     = 1000
	DefaultTestFraction   = 0.1
	DefaultFile           = "ratings.csv"
	DefaultUser           = "userId"
	DefaultItem           = "movieId"
	DefaultTime           = "timestamp"
	DefaultRating         = "rating"
	DefaultReward         = RewardScale
	DefaultRatingScale    = 5
	DefaultThreshold      = 4
	DefaultSeparator      = "|"
	DefaultSyntheticItems = 2000
	DefaultQueries        = 5000
	DefaultInteractions   = 100000
	DefaultZipf           = 1
	DefaultClusters       = 20
	DefaultAffinity       = 0.9
	DefaultDays           = 10
)

// DefaultValidationFraction is the default SplitSettings.ValidationFraction.
const DefaultValidationFraction = 0.1

// columnNone is the column spec that names no column.
const columnNone = "none"

// Settings is the [data] section. The zero value loads the embedded Wikispeedia link graph
// with a seeded random 90/10 split of its links.
type Settings struct {
	// Source is the loader: one of the Source constants; default DefaultSource.
	Source Source `toml:"source"`
	// Path is the data directory, or a file: the links file (wikilinks), the train file (xmc;
	// with split kind files its test file is xmc.test or the one *test* file beside it) or the
	// interactions file (interactions), the other files then being looked up in its directory.
	// Empty with wikilinks loads the Wikispeedia graph embedded in the module; required for xmc
	// and interactions; an error with synthetic, which reads no files. Files may be
	// gzip-compressed (read transparently; "name.gz" is read when "name" does not exist).
	Path string `toml:"path"`
	// MinCount: in a hashed field built from tokens (title n-grams, categories, feature-file
	// values), a token held by fewer than MinCount entities has no id of its own and goes to an
	// out-of-vocabulary hash bucket. Id fields (page_id, user_id, item_id) keep every token.
	// Default DefaultMinCount.
	MinCount int `toml:"min_count"`
	// OOVBuckets is the number of out-of-vocabulary hash buckets of every hashed field.
	// Default DefaultOOVBuckets.
	OOVBuckets int `toml:"oov_buckets"`

	Split        SplitSettings        `toml:"split"`
	Wikilinks    WikilinksSettings    `toml:"wikilinks"`
	XMC          XMCSettings          `toml:"xmc"`
	Interactions InteractionsSettings `toml:"interactions"`
	Synthetic    SyntheticSettings    `toml:"synthetic"`
}

// Timed reports whether the resolved settings load pairs with timestamps, which alone have the
// users' sequences (Dataset.Sequences): the synthetic source, and interactions whose time column
// is not "none".
func (s *Settings) Timed() bool {
	switch s.Source {
	case SourceSynthetic:
		return true
	case SourceInteractions:
		return s.Interactions.Time != columnNone
	}
	return false
}

// SplitSettings is the [data.split] table.
type SplitSettings struct {
	// Kind is "random" (by interaction), "query" (all pairs of a random TestFraction of the
	// queries that have pairs go to test), "temporal", "files" (the xmc train/test files) or
	// "leave_last_out": each query's (user's) last pair by timestamp is its test pair and the
	// rest train; of pairs tied at a query's last timestamp the one last in the source's order
	// (the file's row order) is the test pair; a query with a single pair keeps it in train and
	// has no test pair. leave_last_out and temporal need timestamps.
	// Default: SplitFiles for xmc, SplitRandom otherwise.
	Kind SplitKind `toml:"kind"`
	// TestFraction is the fraction of pairs (random), of queries (query) or of the latest
	// pairs by time (temporal; pairs tied with the first test time go to test too) put in test.
	// Not for leave_last_out. Default DefaultTestFraction.
	TestFraction float64 `toml:"test_fraction"`
	// TestDays, when > 0 with kind temporal, puts the last TestDays day buckets in test instead
	// of the latest TestFraction of pairs. Default 0.
	TestDays int `toml:"test_days"`
	// Validation sets a validation set apart (Dataset.Valid), for model selection: training never sees
	// it and no query's history contains it. With leave_last_out it is each query's second-to-last
	// pair by time (ties as for the test pair: the later in the source's order is the later pair), the
	// validation pair of SASRec's protocol (Kang & McAuley, "Self-Attentive Sequential
	// Recommendation", ICDM 2018); a query with fewer than three pairs has none (its pairs split as
	// without validation), so the test set is the same with and without validation. With temporal it
	// is the ValidationFraction of pairs just before the test window. Only for those two kinds
	// (docs/sequences.md, section 4). Default false: no validation set, and the split is the one
	// without these keys.
	Validation bool `toml:"validation"`
	// ValidationUsers, with leave_last_out and validation, gives a validation pair to that many
	// queries only, drawn uniformly by the split's seed among the queries with at least three pairs
	// (the others keep their second-to-last pair in train), as Petrov & Macdonald (gSASRec, RecSys
	// 2023) and Khrylchenko et al. ("Correcting the LogQ Correction", 2025) use 512 validation users.
	// More than the queries with three pairs is an error. Default 0: every query with at least three
	// pairs.
	ValidationUsers int `toml:"validation_users"`
	// ValidationFraction, with temporal and validation, is the fraction of all pairs put in
	// validation: the latest pairs before the test window (pairs tied with the first validation
	// time go to validation too), whether the window is TestFraction or TestDays. With
	// TestFraction, the two fractions sum to less than 1. Default DefaultValidationFraction.
	ValidationFraction float64 `toml:"validation_fraction"`
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
	Format XMCFormat `toml:"format"`
	// Train and Test are the file names inside Path. Default: the single file in Path whose
	// name matches *train*.arff or *train*.txt (*test*... for Test), optionally gzipped; when
	// Path is a file, it is the train file. Test is needed only by split kind "files"; with
	// another kind the examples of both files (when a test file exists) are pooled and split.
	Train string `toml:"train"`
	Test  string `toml:"test"`
	// Labels is the number of label attributes of an ARFF file: the last Labels attributes, or,
	// when a Mulan label file is read (LabelsXML), the number it must list, those it names being
	// the labels. Default 0: the label attributes are those named in the label file.
	Labels int `toml:"labels"`
	// LabelsXML is the Mulan label file inside Path. Default: the single *.xml file in Path,
	// needed when Labels is 0; with Labels set it is read when Path holds one, and Labels must
	// agree with it (with no *.xml file, or several, Labels alone gives the labels).
	LabelsXML string `toml:"labels_xml"`
}

// InteractionsSettings is the [data.interactions] table. The defaults read MovieLens's
// ratings.csv.
type InteractionsSettings struct {
	// File is the interactions file inside Path. Default DefaultFile (or Path itself when it is
	// a file).
	File string `toml:"file"`
	// Delimiter is the one-character column delimiter, or "tab". Default: tab for *.tsv (and
	// *.tsv.gz), comma otherwise. Comma-separated files may quote fields (RFC 4180).
	Delimiter string `toml:"delimiter"`
	// NoHeader says the file has no header row (columns are then given by 0-based index).
	// Default false: the first row names the columns.
	NoHeader bool `toml:"no_header"`
	// User, Item, Time and Rating name columns, by header name or 0-based index. Defaults
	// DefaultUser, DefaultItem, DefaultTime and DefaultRating. Time and Rating may be "none":
	// no timestamps (no day buckets) / no rating. Header names, ids and values are read without
	// the spaces around them ("b, 12 " is user "b" and item "12").
	User string `toml:"user"`
	Item string `toml:"item"`
	// Time names the timestamps' column, as User names the users' (default DefaultTime; "none":
	// no timestamps, no day buckets). A timestamp is unix seconds (UTC): an integer or a decimal
	// number whose fractional part is dropped, rounding down (1600000000.9 is 1600000000, -0.5
	// is -1); negative ones, before 1970, are allowed. A timestamp must lie in the years 1000 to
	// 2999: another is an error naming its line, which says when the value is in that range as
	// milliseconds, microseconds or nanoseconds (divide the column by 1000, 10^6 or 10^9).
	Time string `toml:"time"`
	// Rating names the ratings' column, as User names the users' (default DefaultRating;
	// "none": no rating).
	Rating string `toml:"rating"`
	// Reward maps a rating to the pair's reward: "scale" (reward = rating/RatingScale),
	// "threshold" (rows with rating >= Threshold are kept with reward 1, the others dropped and
	// counted), "raw" (reward = rating) or "one" (reward 1). Default DefaultReward, or
	// RewardOne when Rating is "none".
	Reward Reward `toml:"reward"`
	// RatingScale divides ratings under "scale" (another value under another reward is an
	// error). Default DefaultRatingScale.
	RatingScale float64 `toml:"rating_scale"`
	// Threshold is the lowest kept rating under "threshold" (another value under another
	// reward is an error). Default DefaultThreshold.
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
	// value whole. Default DefaultSeparator.
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
	// Items, Queries and Interactions are the sizes. Defaults DefaultSyntheticItems,
	// DefaultQueries, DefaultInteractions.
	Items        int `toml:"items"`
	Queries      int `toml:"queries"`
	Interactions int `toml:"interactions"`
	// Zipf is the popularity exponent s > 0. Default DefaultZipf.
	Zipf float64 `toml:"zipf"`
	// Clusters is the number of planted clusters. Default DefaultClusters.
	Clusters int `toml:"clusters"`
	// Affinity in (0, 1] is the probability that a pair's query comes from its item's
	// cluster. Default DefaultAffinity.
	Affinity float64 `toml:"affinity"`
	// Days is the number of day buckets. Default DefaultDays.
	Days int `toml:"days"`
	// Drift in [0, 1) is the fraction of the popularity ranking that rotates per day. Default 0.
	Drift float64 `toml:"drift"`
	// ClusterFeature adds the planted cluster as a field "cluster" on both sides. Default false.
	ClusterFeature bool `toml:"cluster_feature"`
}

// Resolve fills zero fields with their defaults, in place, and validates. Errors start with
// the TOML key relative to the [data] section.
func (s *Settings) Resolve() error {
	setting.Default(&s.Source, DefaultSource)
	setting.Default(&s.MinCount, DefaultMinCount)
	setting.Default(&s.OOVBuckets, DefaultOOVBuckets)
	if err := setting.First(
		setting.OneOf("source", s.Source, sources),
		setting.Require("path", s.Path != "" || (s.Source != SourceXMC && s.Source != SourceInteractions),
			"required for source %s", s.Source),
		setting.Require("path", s.Path == "" || s.Source.ReadsFiles(),
			"unused by source synthetic, which generates its data: remove it"),
		setting.Require("min_count", s.MinCount >= 1, "must be >= 1, got %d", s.MinCount),
		setting.Range("oov_buckets", s.OOVBuckets, setting.Closed(1, 1<<24)),
		s.Split.resolve(s.Source),
	); err != nil {
		return err
	}
	if err := s.otherLoaders(); err != nil {
		return err
	}
	switch s.Source {
	case SourceXMC:
		return s.XMC.resolve()
	case SourceInteractions:
		return s.Interactions.resolve()
	case SourceSynthetic:
		return s.Synthetic.resolve()
	}
	return nil
}

// otherLoaders rejects settings written in the table of a loader other than the source's, which
// nothing would read.
func (s *Settings) otherLoaders() error {
	for _, t := range []struct {
		source Source
		set    bool
	}{
		{SourceWikilinks, !reflect.ValueOf(s.Wikilinks).IsZero()},
		{SourceXMC, !reflect.ValueOf(s.XMC).IsZero()},
		{SourceInteractions, !reflect.ValueOf(s.Interactions).IsZero()},
		{SourceSynthetic, !reflect.ValueOf(s.Synthetic).IsZero()},
	} {
		if t.set && t.source != s.Source {
			return fmt.Errorf("%s: only read by source %s, not %s: remove the [data.%s] table or set data.source = %q", t.source, t.source, s.Source, t.source, t.source)
		}
	}
	return nil
}

// sizeKey is the key that sizes the test part of the resolved split, for an error about its
// size: split.test_days when it is set, split.kind for the splits without a size (files,
// leave_last_out), split.test_fraction otherwise.
func (s *SplitSettings) sizeKey() string {
	switch {
	case s.TestDays > 0:
		return "split.test_days"
	case s.Kind == SplitFiles || s.Kind == SplitLeaveLastOut:
		return "split.kind"
	}
	return "split.test_fraction"
}

func (s *SplitSettings) resolve(source Source) error {
	if source == SourceXMC {
		setting.Default(&s.Kind, SplitFiles)
	}
	setting.Default(&s.Kind, SplitRandom)
	lastOut := s.Kind == SplitLeaveLastOut
	var fraction error // leave_last_out has none: OnlyFor below rejects one written
	if !lastOut {
		setting.Default(&s.TestFraction, DefaultTestFraction)
		fraction = setting.Range("split.test_fraction", s.TestFraction, setting.Open(0.0, 1))
	}
	timed := s.Kind == SplitTemporal || lastOut
	window := s.Validation && s.Kind == SplitTemporal
	var validFraction error // only a temporal validation window has one: OnlyFor below rejects one written otherwise
	if window {
		setting.Default(&s.ValidationFraction, DefaultValidationFraction)
		validFraction = setting.Range("split.validation_fraction", s.ValidationFraction, setting.Open(0.0, 1))
		if validFraction == nil && s.TestDays == 0 && s.TestFraction+s.ValidationFraction >= 1 {
			validFraction = fmt.Errorf("split.validation_fraction: %v with split.test_fraction %v leaves no pair to train on; their sum must be < 1",
				s.ValidationFraction, s.TestFraction)
		}
	}
	return setting.First(
		setting.OneOf("split.kind", s.Kind, splitKinds),
		setting.Require("split.kind", s.Kind != SplitFiles || source == SourceXMC,
			"files is only for source xmc (source is %s)", source),
		setting.Require("split.kind", !timed || (source != SourceXMC && source != SourceWikilinks),
			"%s needs timestamps, which source %s does not have", s.Kind, source),
		setting.OnlyFor("split.test_fraction", s.TestFraction != 0, !lastOut,
			"not for kind leave_last_out (each query's last pair is its test pair); leave it unset"),
		fraction,
		setting.NotNegative("split.test_days", s.TestDays, ""),
		setting.OnlyFor("split.test_days", s.TestDays > 0, s.Kind == SplitTemporal, "only for kind temporal (kind is %s)", s.Kind),
		setting.OnlyFor("split.validation", s.Validation, timed, "only for kinds leave_last_out and temporal (kind is %s)", s.Kind),
		setting.NotNegative("split.validation_users", s.ValidationUsers, "every query with at least three pairs"),
		setting.OnlyFor("split.validation_users", s.ValidationUsers != 0, lastOut && s.Validation,
			"only for kind leave_last_out with split.validation = true (kind is %s, validation %v)", s.Kind, s.Validation),
		setting.OnlyFor("split.validation_fraction", s.ValidationFraction != 0, window,
			"only for kind temporal with split.validation = true (kind is %s, validation %v)", s.Kind, s.Validation),
		validFraction,
	)
}

func (s *XMCSettings) resolve() error {
	return setting.First(
		setting.EnumFor("xmc.format", s.Format, xmcFormats, s.Format != "", ""), // empty: by the file name
		setting.NotNegative("xmc.labels", s.Labels, ""),
	)
}

func (s *InteractionsSettings) resolve() error {
	setting.Default(&s.File, DefaultFile)
	setting.Default(&s.User, DefaultUser)
	setting.Default(&s.Item, DefaultItem)
	setting.Default(&s.Time, DefaultTime)
	setting.Default(&s.Rating, DefaultRating)
	if s.Rating == columnNone {
		setting.Default(&s.Reward, RewardOne)
	}
	setting.Default(&s.Reward, DefaultReward)
	// A rating scale or threshold that the reward mapping does not read would be ignored
	// silently (rows below a threshold kept under "scale"): written with another value than
	// its default, it is an error. The default is accepted, as a resolved config holds it.
	unusedScale := setting.OnlyFor("interactions.rating_scale", s.RatingScale != 0 && s.RatingScale != DefaultRatingScale,
		s.Reward == RewardScale, "only read by interactions.reward = %q (reward is %s)", RewardScale, s.Reward)
	unusedThreshold := setting.OnlyFor("interactions.threshold", s.Threshold != 0 && s.Threshold != DefaultThreshold,
		s.Reward == RewardThreshold, "only read by interactions.reward = %q (reward is %s)", RewardThreshold, s.Reward)
	setting.Default(&s.RatingScale, DefaultRatingScale)
	setting.Default(&s.Threshold, DefaultThreshold)
	if err := setting.First(
		checkDelimiter("interactions.delimiter", s.Delimiter),
		setting.Require("interactions.user", s.User != columnNone, "required (cannot be none)"),
		checkColumn("interactions.user", s.User, s.NoHeader),
		setting.Require("interactions.item", s.Item != columnNone, "required (cannot be none)"),
		checkColumn("interactions.item", s.Item, s.NoHeader),
		checkColumn("interactions.time", s.Time, s.NoHeader),
		checkColumn("interactions.rating", s.Rating, s.NoHeader),
		setting.OneOf("interactions.reward", s.Reward, rewards),
		setting.Require("interactions.reward", s.Reward == RewardOne || s.Rating != columnNone,
			"%s needs a rating column (interactions.rating is none)", s.Reward),
		setting.Require("interactions.rating_scale", s.RatingScale > 0, "must be > 0, got %v", s.RatingScale),
		unusedScale,
		unusedThreshold,
	); err != nil {
		return err
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
	setting.Default(&f.Key, key)
	setting.Default(&f.Separator, DefaultSeparator)
	if err := setting.First(
		setting.Require(prefix+".file", f.File != "", "required"),
		setting.Require(prefix+".columns", len(f.Columns) > 0, "required (at least one column)"),
		checkDelimiter(prefix+".delimiter", f.Delimiter),
	); err != nil {
		return err
	}
	for _, c := range append([]string{f.Key}, f.Columns...) {
		if err := setting.First(
			setting.Require(prefix, c != columnNone, "column none is not allowed here"),
			checkColumn(prefix, c, f.NoHeader),
		); err != nil {
			return err
		}
	}
	return nil
}

func (s *SyntheticSettings) resolve() error {
	setting.Default(&s.Items, DefaultSyntheticItems)
	setting.Default(&s.Queries, DefaultQueries)
	setting.Default(&s.Interactions, DefaultInteractions)
	setting.Default(&s.Zipf, DefaultZipf)
	setting.Default(&s.Clusters, DefaultClusters)
	setting.Default(&s.Affinity, DefaultAffinity)
	setting.Default(&s.Days, DefaultDays)
	size := setting.Closed(1, 1<<30)
	return setting.First(
		setting.Range("synthetic.items", s.Items, size),
		setting.Range("synthetic.queries", s.Queries, size),
		setting.Range("synthetic.interactions", s.Interactions, size),
		setting.Range("synthetic.clusters", s.Clusters, size),
		setting.Range("synthetic.days", s.Days, size),
		setting.Require("synthetic.interactions", s.Interactions >= s.Days,
			"must be >= synthetic.days (%d), got %d", s.Days, s.Interactions),
		setting.Range("synthetic.zipf", s.Zipf, setting.OpenClosed(0.0, 10)),
		setting.Range("synthetic.affinity", s.Affinity, setting.OpenClosed(0.0, 1)),
		setting.Range("synthetic.drift", s.Drift, setting.ClosedOpen(0.0, 1)),
	)
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
	if spec == columnNone {
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
