package datasets

import (
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func TestResolveDefaults(t *testing.T) {
	var s Settings
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	want := Settings{Source: "wikilinks", MinCount: 2, OOVBuckets: 1000, Split: SplitSettings{Kind: "random", TestFraction: 0.1}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("zero value resolves to %+v, want %+v", s, want)
	}
	again := s
	if err := again.Resolve(); err != nil || !reflect.DeepEqual(again, s) {
		t.Errorf("Resolve is not idempotent: %+v, %v", again, err)
	}

	x := Settings{Source: "xmc", Path: "p"}
	if err := x.Resolve(); err != nil || x.Split.Kind != "files" {
		t.Errorf("xmc: split kind %q, %v", x.Split.Kind, err)
	}

	i := Settings{Source: "interactions", Path: "p", Interactions: InteractionsSettings{ItemFeatures: []FeatureFile{{File: "m.csv", Columns: []string{"g"}}}}}
	if err := i.Resolve(); err != nil {
		t.Fatal(err)
	}
	wantI := InteractionsSettings{File: "ratings.csv", User: "userId", Item: "movieId", Time: "timestamp", Rating: "rating",
		Reward: "scale", RatingScale: 5, Threshold: 4,
		ItemFeatures: []FeatureFile{{File: "m.csv", Columns: []string{"g"}, Key: "movieId", Separator: "|"}}}
	if !reflect.DeepEqual(i.Interactions, wantI) {
		t.Errorf("interactions resolve to %+v, want %+v", i.Interactions, wantI)
	}
	noRating := Settings{Source: "interactions", Path: "p", Interactions: InteractionsSettings{Rating: "none"}}
	if err := noRating.Resolve(); err != nil || noRating.Interactions.Reward != "one" {
		t.Errorf("rating none: reward %q, %v", noRating.Interactions.Reward, err)
	}

	y := Settings{Source: "synthetic"}
	if err := y.Resolve(); err != nil {
		t.Fatal(err)
	}
	wantY := SyntheticSettings{Items: 2000, Queries: 5000, Interactions: 100000, Zipf: 1, Clusters: 20, Affinity: 0.9, Days: 10}
	if y.Synthetic != wantY {
		t.Errorf("synthetic resolves to %+v, want %+v", y.Synthetic, wantY)
	}
}

func TestResolveErrors(t *testing.T) {
	inter := func(f func(*InteractionsSettings)) Settings {
		s := Settings{Source: "interactions", Path: "p"}
		f(&s.Interactions)
		return s
	}
	for _, c := range []struct {
		s    Settings
		want string
	}{
		{Settings{Source: "csv"}, `source: unknown "csv" (allowed: wikilinks, xmc, interactions, synthetic)`},
		{Settings{Source: "xmc"}, `path: required for source xmc`},
		{Settings{Source: "interactions"}, `path: required for source interactions`},
		{Settings{Source: "synthetic", Path: "pairs.tsv"}, `path: unused by source synthetic, which generates its data: remove it`},
		{Settings{MinCount: -1}, `min_count: must be >= 1, got -1`},
		{Settings{OOVBuckets: -2}, `oov_buckets: must be in [1, 16777216], got -2`},
		{Settings{Split: SplitSettings{Kind: "time"}}, `split.kind: unknown "time" (allowed: random, query, temporal, files, leave_last_out)`},
		{Settings{Split: SplitSettings{Kind: "files"}}, `split.kind: files is only for source xmc (source is wikilinks)`},
		{Settings{Split: SplitSettings{Kind: "temporal"}}, `split.kind: temporal needs timestamps, which source wikilinks does not have`},
		{Settings{Split: SplitSettings{TestFraction: 1}}, `split.test_fraction: must be in (0, 1), got 1`},
		{Settings{Split: SplitSettings{TestDays: -1}}, `split.test_days: must be >= 0, got -1`},
		{Settings{Split: SplitSettings{TestDays: 3}}, `split.test_days: only for kind temporal (kind is random)`},
		{Settings{Split: SplitSettings{Validation: true}}, `split.validation: only for kinds leave_last_out and temporal (kind is random)`},
		{Settings{Source: "xmc", Path: "p", Split: SplitSettings{Validation: true}}, `split.validation: only for kinds leave_last_out and temporal (kind is files)`},
		{Settings{Source: "synthetic", Split: SplitSettings{Kind: "query", Validation: true}}, `split.validation: only for kinds leave_last_out and temporal (kind is query)`},
		{Settings{Source: "synthetic", Split: SplitSettings{Kind: "leave_last_out", ValidationUsers: 512}},
			`split.validation_users: only for kind leave_last_out with split.validation = true (kind is leave_last_out, validation false)`},
		{Settings{Source: "synthetic", Split: SplitSettings{Kind: "temporal", Validation: true, ValidationUsers: 512}},
			`split.validation_users: only for kind leave_last_out with split.validation = true (kind is temporal, validation true)`},
		{Settings{Source: "synthetic", Split: SplitSettings{Kind: "leave_last_out", Validation: true, ValidationUsers: -1}},
			`split.validation_users: must be >= 0 (0 = every query with at least three pairs), got -1`},
		{Settings{Source: "synthetic", Split: SplitSettings{Kind: "leave_last_out", Validation: true, ValidationFraction: 0.1}},
			`split.validation_fraction: only for kind temporal with split.validation = true (kind is leave_last_out, validation true)`},
		{Settings{Source: "synthetic", Split: SplitSettings{Kind: "temporal", ValidationFraction: 0.1}},
			`split.validation_fraction: only for kind temporal with split.validation = true (kind is temporal, validation false)`},
		{Settings{Source: "synthetic", Split: SplitSettings{Kind: "temporal", Validation: true, ValidationFraction: 1}},
			`split.validation_fraction: must be in (0, 1), got 1`},
		{Settings{Source: "synthetic", Split: SplitSettings{Kind: "temporal", Validation: true, TestFraction: 0.5, ValidationFraction: 0.5}},
			`split.validation_fraction: 0.5 with split.test_fraction 0.5 leaves no pair to train on; their sum must be < 1`},
		{Settings{Split: SplitSettings{Kind: "leave_last_out", Validation: true}}, `split.kind: leave_last_out needs timestamps, which source wikilinks does not have`},
		{Settings{Source: "xmc", Path: "p", XMC: XMCSettings{Format: "svm"}}, `xmc.format: unknown "svm" (allowed: arff, text)`},
		{Settings{Source: "xmc", Path: "p", XMC: XMCSettings{Labels: -3}}, `xmc.labels: must be >= 0, got -3`},
		{inter(func(s *InteractionsSettings) { s.User = "none" }), `interactions.user: required (cannot be none)`},
		{inter(func(s *InteractionsSettings) { s.Item = "-1" }), `interactions.item: column index must be >= 0, got -1`},
		{inter(func(s *InteractionsSettings) { s.NoHeader = true }), `interactions.user: "userId" names a column but the file has no header (no_header); use a 0-based index`},
		{inter(func(s *InteractionsSettings) { s.Delimiter = ";;" }), `interactions.delimiter: must be one character other than a quote or line break, or "tab", got ";;"`},
		{inter(func(s *InteractionsSettings) { s.Reward = "log" }), `interactions.reward: unknown "log" (allowed: scale, threshold, raw, one)`},
		{inter(func(s *InteractionsSettings) { s.Rating, s.Reward = "none", "threshold" }), `interactions.reward: threshold needs a rating column (interactions.rating is none)`},
		{inter(func(s *InteractionsSettings) { s.RatingScale = -5 }), `interactions.rating_scale: must be > 0, got -5`},
		{inter(func(s *InteractionsSettings) { s.Threshold = 3.5 }), `interactions.threshold: only read by interactions.reward = "threshold" (reward is scale)`},
		{inter(func(s *InteractionsSettings) { s.Rating, s.Threshold = "none", 3 }), `interactions.threshold: only read by interactions.reward = "threshold" (reward is one)`},
		{inter(func(s *InteractionsSettings) { s.Reward, s.RatingScale = "threshold", 10 }), `interactions.rating_scale: only read by interactions.reward = "scale" (reward is threshold)`},
		{inter(func(s *InteractionsSettings) { s.ItemFeatures = []FeatureFile{{Columns: []string{"g"}}} }), `interactions.item_features[0].file: required`},
		{inter(func(s *InteractionsSettings) { s.QueryFeatures = []FeatureFile{{File: "u.csv"}} }), `interactions.query_features[0].columns: required (at least one column)`},
		{inter(func(s *InteractionsSettings) {
			s.ItemFeatures = []FeatureFile{{File: "m.csv", Columns: []string{"g"}, Delimiter: "\""}}
		}), `interactions.item_features[0].delimiter: must be one character other than a quote or line break, or "tab", got "\""`},
		{Settings{Source: "synthetic", Synthetic: SyntheticSettings{Items: -1}}, `synthetic.items: must be in [1, 1073741824], got -1`},
		{Settings{Source: "synthetic", Synthetic: SyntheticSettings{Interactions: 5, Days: 6}}, `synthetic.interactions: must be >= synthetic.days (6), got 5`},
		{Settings{Source: "synthetic", Synthetic: SyntheticSettings{Zipf: -1}}, `synthetic.zipf: must be in (0, 10], got -1`},
		{Settings{Source: "synthetic", Synthetic: SyntheticSettings{Affinity: 1.5}}, `synthetic.affinity: must be in (0, 1], got 1.5`},
		{Settings{Source: "synthetic", Synthetic: SyntheticSettings{Drift: 1}}, `synthetic.drift: must be in [0, 1), got 1`},
	} {
		err := c.s.Resolve()
		if err == nil || err.Error() != c.want {
			t.Errorf("%+v: error %v, want %s", c.s, err, c.want)
		}
		if _, err := Load(c.s, 1); err == nil || !strings.HasPrefix(err.Error(), strings.SplitN(c.want, ":", 2)[0]) {
			t.Errorf("Load does not resolve: %v", err)
		}
	}
}

// TestSettingsTOML decodes a [data] section as the experiments command does (strictly) and
// loads it.
func TestSettingsTOML(t *testing.T) {
	const doc = `
[data]
source = "interactions"
path = "../data/movielens-latest-small"
min_count = 1
oov_buckets = 10

[data.split]
kind = "temporal"
test_days = 30

[data.interactions]
reward = "threshold"
threshold = 4.5

[[data.interactions.item_features]]
file = "movies.csv"
columns = ["genres"]
`
	var cfg struct {
		Data Settings `toml:"data"`
	}
	md, err := toml.Decode(doc, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		t.Fatalf("undecoded keys %v", u)
	}
	d := mustLoad(t, cfg.Data, 1)
	r := d.Report
	if d.Items != 9742 || d.Queries != 610 || r.Records != 100836 || r.BelowThreshold == 0 || int64(len(d.Train)+len(d.Test))+r.BelowThreshold != 100836 {
		t.Errorf("%d items %d users, report\n%v", d.Items, d.Queries, r)
	}
	// movies.csv has 20 distinct genre values: 19 genres and "(no genres listed)".
	if d.ItemFeatures.Field("genres").Vocab != 20+10 {
		t.Errorf("genres vocab %d, want 20 genres + 10 buckets", d.ItemFeatures.Field("genres").Vocab)
	}
	for _, p := range d.Test {
		if int(p.Day) < d.Days-30 {
			t.Fatalf("test pair %+v before the last 30 days", p)
		}
	}
}

// TestValidationTOML: the validation keys of [data.split] as a config writes them, decoded
// strictly and resolved, with temporal's default fraction.
func TestValidationTOML(t *testing.T) {
	for _, c := range []struct {
		doc  string
		want SplitSettings
	}{
		{"kind = \"leave_last_out\"\nvalidation = true\nvalidation_users = 512\n",
			SplitSettings{Kind: SplitLeaveLastOut, Validation: true, ValidationUsers: 512}},
		{"kind = \"temporal\"\nvalidation = true\n",
			SplitSettings{Kind: SplitTemporal, TestFraction: DefaultTestFraction, Validation: true, ValidationFraction: DefaultValidationFraction}},
		{"kind = \"temporal\"\ntest_days = 7\nvalidation = true\nvalidation_fraction = 0.05\n",
			SplitSettings{Kind: SplitTemporal, TestFraction: DefaultTestFraction, TestDays: 7, Validation: true, ValidationFraction: 0.05}},
	} {
		var cfg struct {
			Data Settings `toml:"data"`
		}
		md, err := toml.Decode("[data]\nsource = \"synthetic\"\n[data.split]\n"+c.doc, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		if u := md.Undecoded(); len(u) > 0 {
			t.Fatalf("undecoded keys %v", u)
		}
		if err := cfg.Data.Resolve(); err != nil {
			t.Fatal(err)
		}
		if cfg.Data.Split != c.want {
			t.Errorf("%q resolves to %+v, want %+v", c.doc, cfg.Data.Split, c.want)
		}
	}
}
