package datasets

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// loadInteractions reads a CSV/TSV of (user, item, timestamp, rating) rows and optional
// feature files: query = user, item = item.
func loadInteractions(s Settings) (*Unsplit, error) {
	src, file, err := splitPath(s.Path)
	if err != nil {
		return nil, err
	}
	return readInteractionData(src, file, datasetName(s.Path), s)
}

// readInteractionData reads the feature files and the interactions file of src (file, when
// not "", names the interactions file).
func readInteractionData(src files, file, name string, s Settings) (*Unsplit, error) {
	is := s.Interactions
	if file == "" {
		file = is.File
	}
	rep := Report{Source: SourceInteractions}
	users := newSide("user_id")
	items := newSide("item_id")
	for _, fl := range featureLists(is) {
		sd := items
		if fl.query {
			sd = users
		}
		for i, ff := range fl.list {
			if err := sd.readFeatures(src, fmt.Sprintf("interactions.%s[%d]", fl.key, i), ff, &rep); err != nil {
				return nil, err
			}
		}
	}
	pairs, err := readInteractions(src, file, is, users, items, &rep)
	if err != nil {
		return nil, err
	}
	d := &Dataset{
		Name:    name,
		Queries: len(users.names), Items: len(items.names),
		QueryNames: users.names, ItemNames: items.names,
		QueryFeatures: users.features(s, &rep),
		ItemFeatures:  items.features(s, &rep),
		Report:        rep,
	}
	return &Unsplit{Dataset: d, Pairs: pairs, Timed: is.Time != "none"}, nil
}

// featureList is one list of feature files: of items, or of queries (users).
type featureList struct {
	key   string
	query bool
	list  []FeatureFile
}

// featureLists are the feature files of is in the order they are read.
func featureLists(is InteractionsSettings) []featureList {
	return []featureList{{"item_features", false, is.ItemFeatures}, {"query_features", true, is.QueryFeatures}}
}

// table reads a CSV/TSV file record by record. Every record must have as many columns as the
// header (or, without a header, as the first record): a row with an extra column, or a last
// row cut short, is an error naming its line. As RFC 4180 allows, the last record need not end
// with a line break.
type table struct {
	r      *csv.Reader
	src    files
	file   string   // the name to reopen
	name   string   // as shown in messages
	header []string // nil without a header
	width  int      // the number of columns of every record (0 until the first is read)
	close  func() error
	rows   int // records read, the header included
	// tail is the stream the reader reads; last, lastLine and before are the last value and
	// line of the latest record and the lastValues of the records before it, to judge a final
	// record without a line break (see lastValues).
	tail     *tailReader
	last     []byte
	lastLine int
	values   lastValues
	before   lastValues
	// unterminated says that the last record had no line break and was kept.
	unterminated bool
	// widest is the largest column index a spec gave (-1: none), widestKey its config key.
	widest    int
	widestKey string
}

// tailReader remembers the last byte read.
type tailReader struct {
	r    io.Reader
	last byte
}

func (t *tailReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.last = p[n-1]
	}
	return n, err
}

// openTable opens file; delim "" means tab for *.tsv(.gz) and comma otherwise.
func openTable(src files, file, delim string, noHeader bool) (*table, error) {
	rd, shown, closer, err := src.reader(file)
	if err != nil {
		return nil, err
	}
	tail := &tailReader{r: rd}
	r := csv.NewReader(tail)
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	switch {
	case delim == "tab" || (delim == "" && strings.HasSuffix(strings.TrimSuffix(file, ".gz"), ".tsv")):
		r.Comma, r.LazyQuotes = '\t', true
	case delim != "":
		r.Comma = []rune(delim)[0]
	}
	t := &table{r: r, src: src, file: file, name: shown, close: closer, tail: tail, widest: -1}
	if noHeader {
		return t, nil
	}
	rec, err := t.read()
	if err != nil {
		closer()
		if errors.Is(err, io.EOF) {
			return nil, &ParseError{File: shown, Line: 1, Msg: "empty file; expected a header row"}
		}
		return nil, err
	}
	t.header = slices.Clone(rec)
	t.header[0] = strings.TrimPrefix(t.header[0], "\ufeff")
	if slices.ContainsFunc(t.header, func(f string) bool { return strings.ContainsRune(f, '\r') }) {
		closer()
		return nil, &ParseError{File: shown, Line: 1, Msg: "the lines end in a carriage return alone (CR, as on classic Mac OS), which ends no line here: convert the line breaks to LF or CR LF"}
	}
	t.values, t.lastLine = lastValues{}, 0 // a header's last value says nothing of the records'
	return t, nil
}

// read returns the next record (io.EOF at the end); the slice is reused by the next call.
func (t *table) read() ([]string, error) {
	rec, err := t.r.Read()
	var pe *csv.ParseError
	switch {
	case errors.As(err, &pe):
		if errors.Is(pe.Err, csv.ErrQuote) && pe.Line > pe.StartLine {
			if line, ok := t.openQuote(pe.StartLine); ok {
				return nil, &ParseError{File: t.name, Line: line, Msg: fmt.Sprintf("the quoted field that starts on this line is never closed (the quote runs to line %d)", pe.Line)}
			}
		}
		return nil, &ParseError{File: t.name, Line: pe.Line, Msg: fmt.Sprintf("column %d: %v", pe.Column, pe.Err)}
	case errors.Is(err, io.EOF):
		if t.lastLine > 0 && t.tail.last != '\n' {
			if reason := t.before.cut(t.last); reason != "" {
				return nil, &ParseError{File: t.name, Line: t.lastLine, Msg: tornMessage(reason)}
			}
			t.unterminated = true
		}
		return nil, err
	case err != nil: // a read error, e.g. a cut gzip stream
		line, _ := t.r.FieldPos(0)
		return nil, fmt.Errorf("%s: after line %d: %w", t.name, line, err)
	}
	t.rows++
	if t.width == 0 {
		t.width = len(rec)
	}
	if len(rec) != t.width {
		what := fmt.Sprintf("%d columns, as the first row", t.width)
		if t.header != nil {
			what = fmt.Sprintf("%d columns (%s)", t.width, t.shownHeader())
		}
		return nil, t.errorf("expected %s, got %d", what, len(rec))
	}
	t.last = append(t.last[:0], rec[len(rec)-1]...)
	t.lastLine, _ = t.r.FieldPos(0)
	t.before = t.values
	t.values.add(t.last)
	return rec, nil
}

// finish adds the file to rep: its summary, and its last record when that had no line break.
func (t *table) finish(rep *Report) {
	rep.Files = append(rep.Files, t.summary())
	if t.unterminated {
		countUnterminated(rep, t.name, t.lastLine)
	}
}

// openQuote returns the line of the quoted field that the record starting at line start leaves
// open: it reads the file again from that line with the quoting rules of RFC 4180 (a field
// that starts with a quote runs to the next quote not doubled). It reports false when it finds
// no open quote (the error was another quoting fault) or cannot read the file again.
func (t *table) openQuote(start int) (int, bool) {
	rd, _, closer, err := t.src.reader(t.file)
	if err != nil {
		return 0, false
	}
	defer closer()
	br := bufio.NewReader(rd)
	line := 1
	for line < start {
		b, err := br.ReadByte()
		if err != nil {
			return 0, false
		}
		if b == '\n' {
			line++
		}
	}
	var (
		fieldStart = true
		inQuote    bool
		opened     int
	)
	for {
		c, _, err := br.ReadRune()
		if err != nil {
			return opened, inQuote
		}
		switch {
		case inQuote && c == '"':
			next, _, err := br.ReadRune()
			switch {
			case err != nil:
				inQuote = false
			case next != '"': // a doubled quote stays in the field
				br.UnreadRune()
				inQuote = false
			}
		case inQuote:
			if c == '\n' {
				line++
			}
		case fieldStart && c == '"':
			inQuote, opened = true, line
		case c == '\n':
			line++
			fieldStart = true
			continue
		}
		fieldStart = !inQuote && c == t.r.Comma
	}
}

// summary describes the file for Report.Files.
func (t *table) summary() string { return fmt.Sprintf("%s (%d rows)", t.name, t.rows) }

// errorf returns a ParseError at the line of the current record.
func (t *table) errorf(format string, args ...any) error {
	line, _ := t.r.FieldPos(0)
	return &ParseError{File: t.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// column resolves a column spec (header name or 0-based index) to an index; "none" is -1.
func (t *table) column(key, spec string) (int, error) {
	if spec == columnNone {
		return -1, nil
	}
	if i, err := strconv.Atoi(spec); err == nil {
		if t.header != nil && i >= len(t.header) {
			return 0, fmt.Errorf("%s: column %d is past the %d columns of %s (header: %s)", key, i, len(t.header), t.name, t.shownHeader())
		}
		if i > t.widest {
			t.widest, t.widestKey = i, key
		}
		return i, nil
	}
	if i := slices.IndexFunc(t.header, func(h string) bool { return strings.TrimSpace(h) == spec }); i >= 0 {
		return i, nil
	}
	fix := fmt.Sprintf("set data.%s to one of these names or to a 0-based column index", key)
	if holds := optionalColumn(key); holds != "" {
		fix = fmt.Sprintf("if the file has no %s, set data.%s = %q; else %s", holds, key, columnNone, fix)
	}
	return 0, fmt.Errorf("%s: no column %q in %s (header: %s); %s", key, spec, t.name, t.shownHeader(), fix)
}

// shownHeader lists the header's names for a message, the first 20 of a longer one.
func (t *table) shownHeader() string {
	const most = 20
	if len(t.header) <= most {
		return strings.Join(t.header, ", ")
	}
	return fmt.Sprintf("%s, … (%d columns)", strings.Join(t.header[:most], ", "), len(t.header))
}

// optionalColumn returns what the column of key holds when an interactions file may lack it
// (column spec "none"), else "".
func optionalColumn(key string) string {
	switch key {
	case "interactions.time":
		return "timestamps"
	case "interactions.rating":
		return "ratings"
	}
	return ""
}

// record returns the next record, checking that it has more than maxCol columns.
func (t *table) record(maxCol int) ([]string, error) {
	rec, err := t.read()
	if err != nil {
		return nil, err
	}
	if len(rec) <= maxCol {
		what := ""
		if t.widest == maxCol {
			what = fmt.Sprintf(" (data.%s = %d)", t.widestKey, maxCol)
		}
		return nil, t.errorf("expected at least %d columns%s, got %d", maxCol+1, what, len(rec))
	}
	return rec, nil
}

// side is the entity list of one side (users or items) and its feature tokens.
type side struct {
	idField string
	index   map[string]int32
	names   []string
	fields  []string     // feature field names, in order of definition
	tokens  [][][]string // per field, per entity: tokens
	listed  []bool       // the entity has a feature row
}

func newSide(idField string) *side { return &side{idField: idField, index: map[string]int32{}} }

// id returns the entity named name, adding it when new.
func (s *side) id(name string) int32 {
	if id, ok := s.index[name]; ok {
		return id
	}
	id := int32(len(s.names))
	s.index[name] = id
	s.names = append(s.names, name)
	return id
}

// readFeatures reads one feature file: every row lists an entity and its feature values.
func (s *side) readFeatures(src files, key string, ff FeatureFile, rep *Report) error {
	t, err := openTable(src, ff.File, ff.Delimiter, ff.NoHeader)
	if err != nil {
		return err
	}
	defer t.close()
	kcol, err := t.column(key+".key", ff.Key)
	if err != nil {
		return err
	}
	cols := make([]int, len(ff.Columns))
	first := len(s.fields)
	maxCol := kcol
	for i, c := range ff.Columns {
		if cols[i], err = t.column(key+".columns", c); err != nil {
			return err
		}
		name := fmt.Sprintf("column%d", cols[i])
		if t.header != nil && cols[i] < len(t.header) {
			name = strings.TrimSpace(t.header[cols[i]])
		}
		if name == s.idField || slices.Contains(s.fields, name) {
			return fmt.Errorf("%s.columns: field %q is defined twice", key, name)
		}
		s.fields = append(s.fields, name)
		s.tokens = append(s.tokens, nil)
		maxCol = max(maxCol, cols[i])
	}
	seen := map[int32]bool{}
	for {
		rec, err := t.record(maxCol)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		id := strings.TrimSpace(rec[kcol])
		if id == "" {
			return t.errorf("empty id in column %d", kcol)
		}
		e := s.id(id)
		if seen[e] {
			line, _ := t.r.FieldPos(0)
			rep.count(&rep.Duplicates, "%s:%d: repeated id %q (row dropped)", t.name, line, id)
			continue
		}
		seen[e] = true
		for int(e) >= len(s.listed) {
			s.listed = append(s.listed, false)
		}
		s.listed[e] = true
		for i, c := range cols {
			f := first + i
			for int(e) >= len(s.tokens[f]) {
				s.tokens[f] = append(s.tokens[f], nil)
			}
			for _, tok := range splitValue(rec[c], ff.Separator) {
				s.tokens[f][e] = append(s.tokens[f][e], tok)
			}
		}
	}
	t.finish(rep)
	return nil
}

// splitValue splits v at sep ("none": no split) into trimmed non-empty tokens.
func splitValue(v, sep string) []string {
	parts := []string{v}
	if sep != "none" {
		parts = strings.Split(v, sep)
	}
	out := parts[:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// features builds the side's fields: the id field, then the feature-file fields.
func (s *side) features(set Settings, rep *Report) *Features {
	ids := newTokenBags(s.idField, true)
	for _, n := range s.names {
		ids.add(n)
		ids.end()
	}
	fs := &Features{Fields: []Field{ids.field(set.MinCount, set.OOVBuckets)}}
	for f, name := range s.fields {
		b := newTokenBags(name, false)
		for e := range s.names {
			if e < len(s.tokens[f]) {
				for _, tok := range s.tokens[f][e] {
					b.add(tok)
				}
			}
			b.end()
		}
		fs.Fields = append(fs.Fields, b.field(set.MinCount, set.OOVBuckets))
	}
	if len(s.fields) > 0 {
		for e, n := range s.names {
			if e >= len(s.listed) || !s.listed[e] {
				rep.count(&rep.NoFeatures, "%s %q has no feature row", s.idField, n)
			}
		}
	}
	return fs
}

// readInteractions reads the interaction rows.
func readInteractions(src files, file string, is InteractionsSettings, users, items *side, rep *Report) ([]Interaction, error) {
	t, err := openTable(src, file, is.Delimiter, is.NoHeader)
	if err != nil {
		return nil, err
	}
	defer t.close()
	var col [4]int
	keys := []struct{ key, spec string }{{"user", is.User}, {"item", is.Item}, {"time", is.Time}, {"rating", is.Rating}}
	for i, c := range keys {
		if col[i], err = t.column("interactions."+c.key, c.spec); err != nil {
			return nil, err
		}
		// One column read as two (the items as the users, say) would train on nonsense pairs.
		if j := slices.Index(col[:i], col[i]); col[i] >= 0 && j >= 0 {
			return nil, fmt.Errorf("interactions.%s: %q is column %d of %s, which data.interactions.%s = %q names too: each names its own column",
				c.key, c.spec, col[i], t.name, keys[j].key, keys[j].spec)
		}
	}
	ucol, icol, tcol, rcol := col[0], col[1], col[2], col[3]
	maxCol := slices.Max(col[:])
	var pairs []Interaction
	first := map[uint64]int{} // (user, item) -> index of its kept pair
	for {
		rec, err := t.record(maxCol)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		rep.Records++
		user, item := strings.TrimSpace(rec[ucol]), strings.TrimSpace(rec[icol])
		if user == "" || item == "" {
			return nil, t.errorf("empty user or item id (columns %d, %d)", ucol, icol)
		}
		p := Interaction{Query: users.id(user), Item: items.id(item), Reward: 1}
		if tcol >= 0 {
			if p.Time, err = parseTime(rec[tcol]); err != nil {
				return nil, t.errorf("data.interactions.time: column %d: %v", tcol, err)
			}
		}
		if rcol >= 0 {
			r, err := strconv.ParseFloat(strings.TrimSpace(rec[rcol]), 64)
			if err != nil || math.IsNaN(r) || math.IsInf(r, 0) {
				return nil, t.errorf("column %d: rating %q is not a finite number", rcol, rec[rcol])
			}
			switch is.Reward {
			case RewardScale, RewardRaw:
				if p.Reward, err = ratingReward(r, is); err != nil {
					return nil, t.errorf("column %d: %v", rcol, err)
				}
			case RewardThreshold:
				if r < is.Threshold {
					line, _ := t.r.FieldPos(0)
					rep.count(&rep.BelowThreshold, "%s:%d: rating %v below %v (dropped)", t.name, line, r, is.Threshold)
					continue
				}
			}
		}
		key := uint64(p.Query)<<32 | uint64(p.Item)
		k, dup := first[key]
		if !dup {
			first[key] = len(pairs)
			pairs = append(pairs, p)
			continue
		}
		line, _ := t.r.FieldPos(0)
		action := "kept"
		if is.Dedupe {
			action = "dropped, the earliest is kept"
			if p.Time < pairs[k].Time {
				pairs[k] = p
			}
		} else {
			pairs = append(pairs, p)
		}
		rep.count(&rep.Duplicates, "%s:%d: repeated user %q item %q (%s)", t.name, line, rec[ucol], rec[icol], action)
	}
	t.finish(rep)
	return pairs, nil
}

// ratingReward maps rating r to its reward under the "scale" or "raw" mapping. A reward is the
// weight of its pair's loss (Yi et al. eq. 4, whose rewards are in [0, 1]): a negative one would
// reverse the pair's gradient, so it is an error. A reward above 1 is allowed: it only weighs
// the pair more (the "raw" mapping of 1-5 star ratings gives such weights on purpose).
func ratingReward(r float64, is InteractionsSettings) (float32, error) {
	v := r
	if is.Reward == RewardScale {
		v = r / is.RatingScale
	}
	switch w := float32(v); {
	case w < 0:
		return 0, fmt.Errorf("rating %v gives the negative reward %v (interactions.reward = %s); rewards weigh each pair's loss and must be >= 0", r, w, is.Reward)
	case math.IsInf(float64(w), 0):
		return 0, fmt.Errorf("rating %v gives a reward beyond float32 (interactions.reward = %s)", r, is.Reward)
	default:
		return w, nil
	}
}

// Timestamps lie in the years minYear to maxYear as unix seconds, [minTime, maxTime): any date
// of interaction data, and fewer days than the day buckets hold (maxDays). A timestamp in
// milliseconds of any date after 1971-01-12 is past maxTime. minTime and maxTime are the unix
// times of 1000-01-01 and 3000-01-01, UTC (TestTimeRangeFitsDays checks them with package time).
const (
	minYear, maxYear = 1000, 2999
	minTime          = -30610224000
	maxTime          = 32503680000
)

// finerUnits are the units a timestamp out of range may be in instead of seconds, each with
// what divides it into seconds.
var finerUnits = []struct {
	name string
	per  float64
	div  string
}{{"milliseconds", 1e3, "1000"}, {"microseconds", 1e6, "10^6"}, {"nanoseconds", 1e9, "10^9"}}

// parseTime parses unix seconds (InteractionsSettings.Time): an integer, or a decimal number
// rounded down, in [minTime, maxTime). The error of a value out of that range names the finer
// unit in which it would be in range, if any.
func parseTime(s string) (int64, error) {
	s = strings.TrimSpace(s)
	f, err := strconv.ParseFloat(s, 64) // exact for every integer in range
	if err != nil || math.IsNaN(f) {
		return 0, fmt.Errorf("timestamp %q: expected unix seconds", s)
	}
	inRange := func(v float64) bool { return v >= float64(minTime) && v < float64(maxTime) }
	if inRange(f) {
		return int64(math.Floor(f)), nil
	}
	where := fmt.Sprintf("after the year %d", maxYear)
	if f < 0 {
		where = fmt.Sprintf("before the year %d", minYear)
	}
	msg := fmt.Sprintf("timestamp %q read as unix seconds is %s (accepted: the years %d to %d)", s, where, minYear, maxYear)
	for _, u := range finerUnits {
		if inRange(f / u.per) {
			return 0, fmt.Errorf("%s; %s? divide by %s", msg, u.name, u.div)
		}
	}
	return 0, errors.New(msg)
}
