package datasets

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// movielens is the settings for data/movielens-latest-small with genres as item features.
func movielens() Settings {
	return Settings{Source: "interactions", Path: "../data/movielens-latest-small",
		Interactions: InteractionsSettings{ItemFeatures: []FeatureFile{{File: "movies.csv", Columns: []string{"genres"}}}}}
}

// TestMovieLensShipped checks data/movielens-latest-small against its README.txt: 100,836
// ratings by 610 users, 9,742 movies (9,724 of them rated); timestamps from 828124615 to
// 1537799250 (PROVENANCE.md), i.e. UTC days 9584 to 17798: 8,215 day buckets.
func TestMovieLensShipped(t *testing.T) {
	checkProvenance(t, os.DirFS("../data/movielens-latest-small"), "README.txt", "ratings.csv", "movies.csv", "links.csv", "tags.csv")
	d := mustLoad(t, movielens(), 1)
	r := d.Report
	if d.Queries != 610 || d.Items != 9742 || r.Records != 100836 || r.Pairs != 100836 || r.Duplicates != 0 || r.NoFeatures != 0 {
		t.Errorf("%d users, %d movies, report\n%v", d.Queries, d.Items, r)
	}
	if d.Days != 8215 || len(d.Test) != 10084 {
		t.Errorf("%d days, %d test pairs; want 8215, round(0.1·100836) = 10084", d.Days, len(d.Test))
	}
	rated := map[int32]bool{}
	for _, p := range slices.Concat(d.Train, d.Test) {
		rated[p.Item] = true
		if p.Reward < 0.1 || p.Reward > 1 || p.Time < 828124615 || p.Time > 1537799250 {
			t.Fatalf("pair %+v: reward outside [0.5/5, 5/5] or time outside the README's range", p)
		}
	}
	if len(rated) != 9724 {
		t.Errorf("%d rated movies, want 9724", len(rated))
	}
	// movies.csv line 2: 1,Toy Story (1995),Adventure|Animation|Children|Comedy|Fantasy
	if d.ItemNames[0] != "1" {
		t.Fatalf("first item %q, want movie 1", d.ItemNames[0])
	}
	if got := bagTokens(d.ItemFeatures.Field("genres"), 0); !slices.Equal(got, []string{"Adventure", "Animation", "Children", "Comedy", "Fantasy"}) {
		t.Errorf("Toy Story genres %q", got)
	}
	// ratings.csv line 2: 1,1,4.0,964982703
	first := slices.IndexFunc(d.Train, func(p Interaction) bool { return p.Time == 964982703 && p.Item == 0 })
	if first < 0 || d.QueryNames[d.Train[first].Query] != "1" || d.Train[first].Reward != 0.8 {
		t.Errorf("rating of user 1 for movie 1 not found with reward 4/5")
	}

	tmp := movielens()
	tmp.Split = SplitSettings{Kind: "temporal", TestDays: 365}
	d = mustLoad(t, tmp, 1)
	lastTrain := d.Train[len(d.Train)-1]
	if int(lastTrain.Day) >= d.Days-365 || int(d.Test[0].Day) < d.Days-365 || d.Test[0].Time <= lastTrain.Time {
		t.Errorf("temporal by days: last train day %d, first test day %d of %d", lastTrain.Day, d.Test[0].Day, d.Days)
	}
	days := d.TrainDays()
	n := 0
	for day, ps := range days {
		for _, p := range ps {
			if int(p.Day) != day {
				t.Fatalf("TrainDays()[%d] holds a pair of day %d", day, p.Day)
			}
		}
		n += len(ps)
	}
	if len(days) != d.Days || n != len(d.Train) {
		t.Errorf("TrainDays: %d days, %d pairs; want %d, %d", len(days), n, d.Days, len(d.Train))
	}
}

// fixture returns settings for testdata/ratings.
func fixture() Settings {
	return Settings{Source: "interactions", Path: "testdata/ratings", MinCount: 1, OOVBuckets: 3,
		Split: SplitSettings{TestFraction: 0.4},
		Interactions: InteractionsSettings{File: "ratings.tsv", User: "user", Item: "item", Time: "ts", Rating: "score",
			ItemFeatures: []FeatureFile{{File: "items.csv", Key: "id", Columns: []string{"tags", "title"}}}}}
}

// TestInteractionsFixture checks testdata/ratings: column names, quoted CSV fields, feature
// tokens, catalog order, duplicates, day buckets and the reward mappings.
func TestInteractionsFixture(t *testing.T) {
	d := mustLoad(t, fixture(), 1)
	r := d.Report
	if !slices.Equal(d.ItemNames, []string{"i1", "i2", "i4", "i3"}) || !slices.Equal(d.QueryNames, []string{"u1", "u2", "u3"}) {
		t.Errorf("items %q users %q", d.ItemNames, d.QueryNames)
	}
	if r.Records != 5 || r.Pairs != 5 || r.Duplicates != 1 || r.NoFeatures != 1 || d.Days != 3 {
		t.Errorf("days %d, report\n%v", d.Days, r)
	}
	tags, title := d.ItemFeatures.Field("tags"), d.ItemFeatures.Field("title")
	for e, want := range [][]string{{"a", "b"}, {"a", "b"}, {"a", "c"}, nil} {
		if got := bagTokens(tags, e); !slices.Equal(got, want) {
			t.Errorf("item %d tags %q, want %q", e, got, want)
		}
	}
	if got := bagTokens(title, 1); !slices.Equal(got, []string{`Quote "x"`}) {
		t.Errorf("title of i2 %q", got)
	}
	if got := bagTokens(title, 0); !slices.Equal(got, []string{"Movie, The (1999)"}) {
		t.Errorf("title of i1 %q", got)
	}
	if tags.Vocab != 3+3 || tags.Lookup("zzz") < 3 || tags.Lookup("c") != 2 {
		t.Errorf("tags vocab %d, lookup zzz %d, c %d", tags.Vocab, tags.Lookup("zzz"), tags.Lookup("c"))
	}
	type pr struct {
		user, item string
		time       int64
		day        int32
		reward     float32
	}
	got := func(d *Dataset) []pr {
		var out []pr
		for _, p := range slices.Concat(d.Train, d.Test) {
			out = append(out, pr{d.QueryNames[p.Query], d.ItemNames[p.Item], p.Time, p.Day, p.Reward})
		}
		slices.SortFunc(out, func(a, b pr) int { return int(a.time - b.time) })
		return out
	}
	// Days: 86400 s is UTC day 1 (day bucket 0), 172700 s still day 1, 172800 s day 2, 259200.9 s day 3.
	want := []pr{{"u1", "i1", 86400, 0, 1}, {"u1", "i2", 86500, 0, 0.6}, {"u2", "i1", 172700, 0, 0.4}, {"u2", "i1", 172800, 1, 0.8}, {"u3", "i3", 259200, 2, 0.2}}
	if g := got(d); !slices.Equal(g, want) {
		t.Errorf("pairs %v\nwant %v", g, want)
	}
	// Temporal, 40%: the two latest pairs.
	s := fixture()
	s.Split.Kind = "temporal"
	d = mustLoad(t, s, 1)
	if len(d.Test) != 2 || d.Test[0].Time != 172800 || d.Test[1].Time != 259200 {
		t.Errorf("temporal test %v", d.Test)
	}
	for _, c := range []struct {
		mode   Reward
		dedupe bool
		want   []pr
	}{
		{"raw", false, []pr{{"u1", "i1", 86400, 0, 5}, {"u1", "i2", 86500, 0, 3}, {"u2", "i1", 172700, 0, 2}, {"u2", "i1", 172800, 1, 4}, {"u3", "i3", 259200, 2, 1}}},
		{"one", true, []pr{{"u1", "i1", 86400, 0, 1}, {"u1", "i2", 86500, 0, 1}, {"u2", "i1", 172700, 0, 1}, {"u3", "i3", 259200, 2, 1}}},
		{"threshold", false, []pr{{"u1", "i1", 86400, 0, 1}, {"u2", "i1", 172800, 1, 1}}},
	} {
		s := fixture()
		s.Interactions.Reward, s.Interactions.Dedupe = c.mode, c.dedupe
		s.Split.TestFraction = 0.5
		d := mustLoad(t, s, 1)
		if g := got(d); !slices.Equal(g, c.want) {
			t.Errorf("%s: pairs %v\nwant %v", c.mode, g, c.want)
		}
		if c.mode == "threshold" && (d.Report.BelowThreshold != 3 || d.Items != 4 || d.Queries != 3) {
			t.Errorf("threshold: report\n%v", d.Report)
		}
	}
}

// TestInteractionsNoHeader reads a headerless CSV by column index, without timestamps.
func TestInteractionsNoHeader(t *testing.T) {
	dir := writeFiles(t, map[string]string{"log.csv": "a,x\nb,y\na,y\nc,x\n", "u.csv": "a,g1;g2\nz,g2\n"})
	d := mustLoad(t, Settings{Source: "interactions", Path: filepath.Join(dir, "log.csv"), Split: SplitSettings{Kind: "query", TestFraction: 0.34},
		Interactions: InteractionsSettings{NoHeader: true, User: "0", Item: "1", Time: "none", Rating: "none",
			QueryFeatures: []FeatureFile{{File: "u.csv", NoHeader: true, Key: "0", Columns: []string{"1"}, Separator: ";"}}}}, 1)
	if d.Name != "log" || d.Queries != 4 || d.Items != 2 || d.Days != 0 || len(d.Train)+len(d.Test) != 4 {
		t.Errorf("%q: %d users %d items %d days %d pairs", d.Name, d.Queries, d.Items, d.Days, len(d.Train)+len(d.Test))
	}
	if !slices.Equal(d.QueryNames, []string{"a", "z", "b", "c"}) {
		t.Errorf("users %q", d.QueryNames)
	}
	// g1 is held by one user only: below the default min_count 2, it goes to a bucket.
	if got := bagTokens(d.QueryFeatures.Field("column1"), 0); !slices.Equal(got, []string{"#oov", "g2"}) {
		t.Errorf("column1 of a: %q", got)
	}
	// Query split: round(0.34 · 3 users with pairs) = 1 user's pairs in test.
	if n := testQueries(t, d); n != 1 {
		t.Errorf("%d test users, want 1", n)
	}
}

// TestInteractionsSpaces: ids, header names and feature-file keys are read without the spaces
// around them ("u, 12, 5" as written by hand), so "12 " and "12" are one item and its feature
// row is found.
func TestInteractionsSpaces(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"log.csv":   "user, item\na,12\nb, 12 \na,13\n",
		"items.csv": "item , genre\n 12,x\n13 ,y\n",
	})
	d := mustLoad(t, Settings{Source: "interactions", Path: filepath.Join(dir, "log.csv"), Split: SplitSettings{Kind: "query", TestFraction: 0.5},
		Interactions: InteractionsSettings{User: "user", Item: "item", Time: "none", Rating: "none",
			ItemFeatures: []FeatureFile{{File: "items.csv", Key: "item", Columns: []string{"genre"}}}}}, 1)
	if !slices.Equal(d.ItemNames, []string{"12", "13"}) || !slices.Equal(d.QueryNames, []string{"a", "b"}) {
		t.Errorf("items %q, users %q, want [12 13] and [a b]", d.ItemNames, d.QueryNames)
	}
	if d.Report.NoFeatures != 0 {
		t.Errorf("%d items without a feature row, want 0", d.Report.NoFeatures)
	}
	if f := d.ItemFeatures.Field("genre"); f == nil {
		t.Errorf("no field genre (header names are trimmed)")
	}
}

// TestInteractionsMalformed checks the errors of malformed CSV input.
func TestInteractionsMalformed(t *testing.T) {
	const hdr = "userId,movieId,rating,timestamp\n"
	for _, c := range []struct {
		name     string
		ratings  string
		movies   string
		settings func(*InteractionsSettings)
		want     string
	}{
		{"short row", hdr + "1,2,3,4\n1,2\n", "", nil, "ratings.csv:3: expected 4 columns (userId, movieId, rating, timestamp), got 2"},
		// A row with an extra column.
		{"extra column", hdr + "1,2,3,4\n6,313,3.0,845555546,extra\n", "", nil, "ratings.csv:3: expected 4 columns (userId, movieId, rating, timestamp), got 5"},
		{"extra column without header", "1,2,3,4\n6,313,3.0,845555546,extra\n", "", func(s *InteractionsSettings) {
			s.NoHeader, s.User, s.Item, s.Rating, s.Time = true, "0", "1", "2", "3"
		}, "ratings.csv:2: expected 4 columns, as the first row, got 5"},
		// The last row cut mid-line (no line break, fewer fields).
		{"torn last row", hdr + "1,2,3,4\n6,31", "", nil, "ratings.csv:3: expected 4 columns (userId, movieId, rating, timestamp), got 2"},
		// An unterminated quote is reported where the quoted field starts,
		// not at the end of the file; also when it opens in a later line of a multi-line record.
		{"open quote mid-file", hdr + "1,2,3,4\n1,\"2,3,4\n" + strings.Repeat("5,6,7,8\n", 50), "", nil,
			"ratings.csv:3: the quoted field that starts on this line is never closed (the quote runs to line 53)"},
		{"open quote in a multi-line record", hdr + "1,\"multi\nline\",\"3,4\n" + strings.Repeat("5,6,7,8\n", 5), "", nil,
			"ratings.csv:3: the quoted field that starts on this line is never closed (the quote runs to line 8)"},
		// Rewards weigh the pairs' losses; a negative one is an error.
		{"negative reward", hdr + "1,2,3,4\n1,3,-1,4\n", "", nil, "ratings.csv:3: column 2: rating -1 gives the negative reward -0.2 (interactions.reward = scale)"},
		{"negative raw reward", hdr + "1,2,-0.5,4\n", "", func(s *InteractionsSettings) { s.Reward = "raw" },
			"ratings.csv:2: column 2: rating -0.5 gives the negative reward -0.5 (interactions.reward = raw)"},
		{"reward beyond float32", hdr + "1,2,1e39,4\n", "", func(s *InteractionsSettings) { s.Reward = "raw" },
			"ratings.csv:2: column 2: rating 1e+39 gives a reward beyond float32 (interactions.reward = raw)"},
		{"rating", hdr + "1,2,x,4\n", "", nil, `ratings.csv:2: column 2: rating "x" is not a finite number`},
		{"nan rating", hdr + "1,2,NaN,4\n", "", nil, `ratings.csv:2: column 2: rating "NaN" is not a finite number`},
		{"time", hdr + "1,2,3,yesterday\n", "", nil, `ratings.csv:2: data.interactions.time: column 3: timestamp "yesterday": expected unix seconds`},
		{"bare quote", hdr + "1,2,3,4\n1,a\"b,3,4\n", "", nil, `ratings.csv:3: column 4: bare " in non-quoted-field`},
		{"open quote", hdr + "1,\"2,3,4\n", "", nil, `ratings.csv:2: column 10: extraneous or missing " in quoted-field`},
		{"empty id", hdr + ",2,3,4\n", "", nil, `ratings.csv:2: empty user or item id (columns 0, 1)`},
		{"empty file", "", "", nil, `ratings.csv:1: empty file; expected a header row`},
		{"no column", "a,b\n", "", nil, `interactions.user: no column "userId" in `},
		// A missing column's error says which setting fixes it.
		{"no user column", "a,movieId,rating,timestamp\n", "", nil,
			`ratings.csv (header: a, movieId, rating, timestamp); set data.interactions.user to one of these names or to a 0-based column index`},
		{"no rating column", "userId,movieId,timestamp\n1,2,3\n", "", nil,
			`ratings.csv (header: userId, movieId, timestamp); if the file has no ratings, set data.interactions.rating = "none"; else set data.interactions.rating to one of these names or to a 0-based column index`},
		{"no time column", "userId,movieId,rating\n1,2,3\n", "", nil,
			`ratings.csv (header: userId, movieId, rating); if the file has no timestamps, set data.interactions.time = "none"; else`},
		// A column index past the file's columns names its key: at the header, or at the first
		// row of a file without one.
		{"index out of header", hdr + "1,2,3,4\n", "", func(s *InteractionsSettings) { s.Rating = "9" },
			`interactions.rating: column 9 is past the 4 columns of `},
		{"index out of a headerless row", "1,2,3,4\n", "", func(s *InteractionsSettings) {
			s.NoHeader, s.User, s.Item, s.Rating, s.Time = true, "0", "1", "2", "7"
		}, `ratings.csv:1: expected at least 8 columns (data.interactions.time = 7), got 4`},
		{"feature key", hdr + "1,2,3,4\n", "id,genres\n2,a\n", nil, `interactions.item_features[0].key: no column "movieId" in `},
		{"feature column", hdr + "1,2,3,4\n", "movieId,genres\n2,a\n", func(s *InteractionsSettings) { s.ItemFeatures[0].Columns = []string{"genre"} },
			`interactions.item_features[0].columns: no column "genre" in `},
		{"feature twice", hdr + "1,2,3,4\n", "movieId,genres\n2,a\n", func(s *InteractionsSettings) { s.ItemFeatures[0].Columns = []string{"genres", "1"} },
			`interactions.item_features[0].columns: field "genres" is defined twice`},
		{"feature short row", hdr + "1,2,3,4\n", "movieId,genres\n2\n", nil, `movies.csv:2: expected 2 columns (movieId, genres), got 1`},
		{"feature extra column", hdr + "1,2,3,4\n", "movieId,genres\n2,a,b\n", nil, `movies.csv:2: expected 2 columns (movieId, genres), got 3`},
		{"feature empty id", hdr + "1,2,3,4\n", "movieId,genres\n,a\n", nil, `movies.csv:2: empty id in column 0`},
		// One column named for two settings would pair each user with itself.
		{"item names the user column", hdr + "1,2,3,4\n", "", func(s *InteractionsSettings) { s.Item = "userId" },
			`ratings.csv, which data.interactions.user = "userId" names too: each names its own column`},
		{"rating by index names the time column", hdr + "1,2,3,4\n", "", func(s *InteractionsSettings) { s.Rating = "3" },
			`ratings.csv, which data.interactions.time = "timestamp" names too`},
		// A file whose lines end in CR alone is one line: said, not printed as a header.
		{"CR line breaks", strings.ReplaceAll(hdr+"1,2,3,4\n5,6,7,8\n", "\n", "\r"), "", nil,
			`ratings.csv:1: the lines end in a carriage return alone (CR, as on classic Mac OS)`},
		{"long header", strings.Repeat("c,", 30) + "c\n", "", nil, `(header: c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, … (31 columns))`},
		// No pair left: the error names the file and what dropped its records.
		{"no pairs", hdr + "1,2,1,4\n1,3,2,5\n", "", func(s *InteractionsSettings) { s.Reward = "threshold" },
			`ratings.csv (3 rows): interactions: 2 records read, 0 pairs kept (0 train, 0 test); below data.interactions.threshold (dropped): 2`},
	} {
		files := map[string]string{"ratings.csv": c.ratings}
		s := Settings{Source: "interactions"}
		if c.movies != "" {
			files["movies.csv"] = c.movies
			s.Interactions.ItemFeatures = []FeatureFile{{File: "movies.csv", Columns: []string{"genres"}}}
		}
		if c.settings != nil {
			c.settings(&s.Interactions)
		}
		s.Path = writeFiles(t, files)
		_, err := Load(s, 1)
		want := c.want
		if strings.Contains(want, ".csv:") {
			want = filepath.Join(s.Path, want)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error\n%v\nwant\n%s", c.name, err, want)
		}
	}
}

// TestParseTime checks the timestamps data.interactions.time documents: unix seconds, a
// fractional part dropped by rounding down, negative ones (before 1970) allowed.
func TestParseTime(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     int64
	}{
		{"integer", "1600000000", 1600000000},
		{"spaces around", " 1600000000 ", 1600000000},
		{"fraction dropped", "1600000000.9", 1600000000},
		{"exponent", "1.6e9", 1600000000},
		{"before 1970", "-86400", -86400},
		{"negative fraction rounds down", "-0.5", -1},
		{"the first second of the year 1000", "-30610224000", -30610224000},
		{"the last second of the year 2999", "32503679999", 32503679999},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseTime(c.in)
			if err != nil || got != c.want {
				t.Errorf("parseTime(%q) = %d, %v; want %d", c.in, got, err, c.want)
			}
		})
	}
}

// TestInteractionsTimeRange checks that a timestamp outside the years 1000 to 2999, read as unix
// seconds, is an error naming its file, line and key, which says when the value would be in
// range in a finer unit: one millisecond timestamp among seconds, or a whole file of them.
func TestInteractionsTimeRange(t *testing.T) {
	const (
		hdr   = "userId,movieId,rating,timestamp\n"
		after = `read as unix seconds is after the year 2999 (accepted: the years 1000 to 2999)`
	)
	for _, c := range []struct{ name, ratings, want string }{
		{"one millisecond timestamp among seconds", hdr + "1,2,3,1600010269\n1,3,3,1600000000000\n1,4,3,1600000001\n",
			`ratings.csv:3: data.interactions.time: column 3: timestamp "1600000000000" ` + after + `; milliseconds? divide by 1000`},
		{"milliseconds throughout", hdr + "1,2,3,1600010269000\n1,3,3,1600010270000\n",
			`ratings.csv:2: data.interactions.time: column 3: timestamp "1600010269000" ` + after + `; milliseconds? divide by 1000`},
		{"microseconds", hdr + "1,2,3,1600010269000000\n",
			`ratings.csv:2: data.interactions.time: column 3: timestamp "1600010269000000" ` + after + `; microseconds? divide by 10^6`},
		{"nanoseconds", hdr + "1,2,3,1600010269000000000\n",
			`ratings.csv:2: data.interactions.time: column 3: timestamp "1600010269000000000" ` + after + `; nanoseconds? divide by 10^9`},
		{"the year 3000", hdr + "1,2,3,32503680000.5\n",
			`ratings.csv:2: data.interactions.time: column 3: timestamp "32503680000.5" ` + after + `; milliseconds? divide by 1000`},
		{"milliseconds before 1970", hdr + "1,2,3,1600010269\n1,3,3,-100000000000\n",
			`ratings.csv:3: data.interactions.time: column 3: timestamp "-100000000000" read as unix seconds is before the year 1000 (accepted: the years 1000 to 2999); milliseconds? divide by 1000`},
		{"in no unit", hdr + "1,2,3,1e30\n",
			`ratings.csv:2: data.interactions.time: column 3: timestamp "1e30" ` + after},
		{"infinite", hdr + "1,2,3,-Inf\n",
			`ratings.csv:2: data.interactions.time: column 3: timestamp "-Inf" read as unix seconds is before the year 1000 (accepted: the years 1000 to 2999)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Settings{Source: "interactions", Path: writeFiles(t, map[string]string{"ratings.csv": c.ratings})}
			_, err := Load(s, 1)
			if want := filepath.Join(s.Path, c.want); err == nil || err.Error() != want {
				t.Errorf("error\n%v\nwant\n%s", err, want)
			}
		})
	}
}

// TestTimeRangeFitsDays checks that minTime and maxTime are the unix times of the accepted years'
// bounds, and that those years span fewer days than the day buckets hold, so that no loaded file
// exceeds them.
func TestTimeRangeFitsDays(t *testing.T) {
	if lo, hi := time.Date(minYear, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), time.Date(maxYear+1, 1, 1, 0, 0, 0, 0, time.UTC).Unix(); lo != minTime || hi != maxTime {
		t.Errorf("minTime, maxTime = %d, %d; the years %d to %d are [%d, %d)", minTime, maxTime, minYear, maxYear, lo, hi)
	}
	if days := (maxTime-minTime)/secondsPerDay + 1; days > maxDays {
		t.Errorf("the years %d to %d span %d days; the day buckets hold %d", minYear, maxYear, days, maxDays)
	}
}
