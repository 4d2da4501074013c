package datasets

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// maxXMCLabels bounds the label count an XMC text header may declare (the label_id field
// takes memory in proportion to it).
const maxXMCLabels = 1 << 24

// xmcData is parsed multi-label data: examples with sparse weighted features and label sets.
type xmcData struct {
	features, labels int      // sizes of the feature and label spaces
	labelNames       []string // nil for the text layout
	featOff, featIDs []int32
	featVals         []float32
	labOff, labIDs   []int32
	rep              *Report
}

func newXMCData(rep *Report) *xmcData {
	return &xmcData{featOff: []int32{0}, labOff: []int32{0}, rep: rep, features: -1, labels: -1}
}

func (x *xmcData) rows() int { return len(x.labOff) - 1 }

// endRow closes the current example after dropping repeated features and labels.
func (x *xmcData) endRow(l *lines) {
	start := x.featOff[len(x.featOff)-1]
	n := dedupe(x.featIDs[start:], x.featVals[start:], func(id int32) {
		x.rep.count(&x.rep.Duplicates, "%s:%d: repeated feature %d (dropped)", l.name, l.line, id)
	})
	x.featIDs, x.featVals = x.featIDs[:int(start)+n], x.featVals[:int(start)+n]
	start = x.labOff[len(x.labOff)-1]
	n = dedupe(x.labIDs[start:], nil, func(id int32) {
		x.rep.count(&x.rep.Duplicates, "%s:%d: repeated label %d (dropped)", l.name, l.line, id)
	})
	x.labIDs = x.labIDs[:int(start)+n]
	if n == 0 {
		x.rep.count(&x.rep.EmptyRows, "%s:%d: example without labels", l.name, l.line)
	}
	x.featOff = append(x.featOff, int32(len(x.featIDs)))
	x.labOff = append(x.labOff, int32(len(x.labIDs)))
	x.rep.Records++
}

// dedupe removes the later repeats of ids (and of their vals, when not nil) in place, calls
// dup for each, and returns the new length. Strictly increasing ids (the usual case) take one
// pass.
func dedupe(ids []int32, vals []float32, dup func(int32)) int {
	sorted := true
	for i := 1; i < len(ids) && sorted; i++ {
		sorted = ids[i-1] < ids[i]
	}
	if sorted {
		return len(ids)
	}
	seen := make(map[int32]bool, len(ids))
	n := 0
	for i, id := range ids {
		if seen[id] {
			dup(id)
			continue
		}
		seen[id] = true
		ids[n] = id
		if vals != nil {
			vals[n] = vals[i]
		}
		n++
	}
	return n
}

// loadXMC reads multi-label data: every example is a query with its sparse input features,
// every label an item, and every (example, label) a pair (Rawat et al. 2021, section 5.2).
func loadXMC(s Settings) (*Unsplit, error) {
	src, file, err := splitPath(s.Path)
	if err != nil {
		return nil, err
	}
	return readXMC(src, file, datasetName(s.Path), s, maxXMCLabels)
}

// readXMC reads the train and test files of src (file, when not "", is the train file),
// accepting text headers of at most maxLabels labels.
func readXMC(src files, file, name string, s Settings, maxLabels int) (*Unsplit, error) {
	x := s.XMC
	train, test, err := xmcFiles(src, file, s)
	if err != nil {
		return nil, err
	}
	format := xmcFormat(x, train)
	rep := Report{Source: SourceXMC}
	data := newXMCData(&rep)
	var read func(string) error
	if format == XMCFormatText {
		read = func(f string) error { return readXMCText(src, f, data, maxLabels) }
	} else {
		xmlFile, err := labelsFile(src, x)
		if err != nil {
			return nil, err
		}
		spec, err := labelSpec(src, x, xmlFile)
		if err != nil {
			return nil, err
		}
		if spec.file != "" {
			rep.Files = append(rep.Files, fmt.Sprintf("%s (%d labels)", spec.file, len(spec.order)))
		}
		var schema *arffSchema
		read = func(f string) (err error) {
			schema, err = readARFF(src, f, spec, schema, data)
			return err
		}
	}
	if err := read(train); err != nil {
		return nil, err
	}
	testRow := data.rows()
	if test != "" {
		if err := read(test); err != nil {
			return nil, err
		}
	}
	return data.dataset(name, testRow), nil
}

// xmcFiles returns the train and test files of src: xmc.train and xmc.test, else the one file
// matching *train* and *test* (.arff or .txt, maybe .gz). When file is not "" it is the train
// file, and the test file is only looked up when split kind files needs it. test is "" when
// none is read.
func xmcFiles(src files, file string, s Settings) (train, test string, err error) {
	x := s.XMC
	train, test = x.Train, x.Test
	if train == "" {
		if train = file; train == "" {
			if train, err = findOne(src, "xmc.train", true, "*train*.arff", "*train*.txt"); err != nil {
				return "", "", err
			}
		}
	}
	if test == "" && (file == "" || s.Split.Kind == SplitFiles) {
		if test, err = findOne(src, "xmc.test", s.Split.Kind == SplitFiles, "*test*.arff", "*test*.txt"); err != nil {
			return "", "", err
		}
	}
	if test == train {
		return "", "", fmt.Errorf("xmc.test: %s is the train file too (set xmc.train and xmc.test)", src.show(test))
	}
	return train, test, nil
}

// xmcFormat is xmc.format, or the format of the train file's name when unset.
func xmcFormat(x XMCSettings, train string) XMCFormat {
	if x.Format != "" {
		return x.Format
	}
	if strings.HasSuffix(strings.TrimSuffix(train, ".gz"), ".arff") {
		return XMCFormatARFF
	}
	return XMCFormatText
}

// labelsFile is the Mulan label file an ARFF source reads: xmc.labels_xml, else the one *.xml
// file of src. With xmc.labels set, that file is read only to check the count against it, and
// none is read when src has no *.xml file or several; "" when none is read.
func labelsFile(src files, x XMCSettings) (string, error) {
	if x.LabelsXML != "" {
		return x.LabelsXML, nil
	}
	if x.Labels == 0 {
		return findOne(src, "xmc.labels_xml", true, "*.xml")
	}
	all, err := matching(src, "xmc.labels_xml", "*.xml")
	if err != nil || len(all) != 1 {
		return "", err
	}
	return all[0], nil
}

// findOne returns the file of src matching one of the patterns (or pattern+".gz"): an error
// unless exactly one matches, or "" when none does and the file is not required.
func findOne(src files, key string, required bool, patterns ...string) (string, error) {
	all, err := matching(src, key, patterns...)
	if err != nil {
		return "", err
	}
	if len(all) == 1 || (len(all) == 0 && !required) {
		return strings.Join(all, ""), nil
	}
	return "", fmt.Errorf("%s: %d files in %s match %s (set %s)", key, len(all), src.dir, strings.Join(patterns, " or "), key)
}

// matching returns the files of src matching one of the patterns (or pattern+".gz"), the
// error of a bad pattern naming key.
func matching(src files, key string, patterns ...string) ([]string, error) {
	var all []string
	for _, p := range patterns {
		m, err := src.glob(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		all = append(all, m...)
	}
	return all, nil
}

// dataset builds the dataset; examples from row testRow on come from the test file.
func (x *xmcData) dataset(name string, testRow int) *Unsplit {
	n := x.rows()
	pairs := make([]Interaction, 0, len(x.labIDs))
	testFrom := 0
	for r := range n {
		if r == testRow {
			testFrom = len(pairs)
		}
		for _, y := range x.labIDs[x.labOff[r]:x.labOff[r+1]] {
			pairs = append(pairs, Interaction{Query: int32(r), Item: y, Reward: 1})
		}
	}
	if testRow == n {
		testFrom = len(pairs)
	}
	feat := Field{Name: "feature", Vocab: x.features, Known: x.features, Offsets: x.featOff, IDs: x.featIDs, Weights: x.featVals}
	allOne := true
	for _, v := range x.featVals {
		allOne = allOne && v == 1
	}
	if allOne {
		feat.Weights = nil
	}
	d := &Dataset{
		Name: name, Queries: n, Items: x.labels,
		ItemNames:     x.labelNames,
		QueryFeatures: &Features{Fields: []Field{feat}},
		ItemFeatures:  &Features{Fields: []Field{IDField("label_id", x.labels)}},
		Report:        *x.rep,
	}
	return &Unsplit{Dataset: d, Pairs: pairs, TestFrom: testFrom}
}

// readXMCText reads the Extreme Classification Repository text layout: a header "N F L",
// then N rows "l1,l2,... f:v f:v ..." with 0-based label and feature ids (a row without labels
// starts with its first feature, or is empty).
func readXMCText(src files, file string, x *xmcData, maxLabels int) error {
	l, err := src.open(file)
	if err != nil {
		return err
	}
	if err := parseXMCText(l, x, maxLabels); err != nil {
		l.done()
		return err
	}
	if err := l.done(); err != nil {
		return err
	}
	x.rep.Files = append(x.rep.Files, l.summary())
	return nil
}

func parseXMCText(l *lines, x *xmcData, maxLabels int) error {
	if !l.next() {
		if l.err != nil {
			return l.err
		}
		return &ParseError{File: l.name, Line: 1, Msg: `empty file; expected a header "N F L" (rows, features, labels)`}
	}
	var hdr [3]int
	rest := l.text
	for i := range hdr {
		var tok []byte
		tok, rest = nextToken(rest)
		v, ok := atoi(tok)
		if !ok {
			return l.errorf(`expected a header "N F L" (rows, features, labels: three non-negative integers), got %q`, clip(l.text))
		}
		hdr[i] = v
	}
	if tok, _ := nextToken(rest); tok != nil {
		return l.errorf(`expected a header "N F L" (rows, features, labels), got %q`, clip(l.text))
	}
	rows, feats, labels := hdr[0], hdr[1], hdr[2]
	if labels > maxLabels {
		return l.errorf("header declares %d labels; at most %d are supported", labels, maxLabels)
	}
	if x.features >= 0 && (feats != x.features || labels != x.labels) {
		return l.errorf("header declares %d features and %d labels; the train file has %d and %d", feats, labels, x.features, x.labels)
	}
	x.features, x.labels = feats, labels
	headerLine, start := l.line, x.rows()
	var last lastValues
	for l.next() {
		if len(bytes.TrimSpace(l.text)) == 0 {
			continue // a blank line is no example (one without labels still lists its features)
		}
		if err := x.textRow(l); err != nil {
			return l.tornOr(err)
		}
		if err := l.unterminated(&last, lastValue(l.text), `a row "l1,l2 f:v f:v"`, x.rep); err != nil {
			return err
		}
	}
	if l.err != nil {
		return l.err
	}
	if got := x.rows() - start; got != rows {
		return &ParseError{File: l.name, Line: headerLine, Msg: fmt.Sprintf("header declares %d rows, the file has %d", rows, got)}
	}
	return nil
}

// textRow parses one row of the text layout.
func (x *xmcData) textRow(l *lines) error {
	rest := l.text
	tok, after := nextToken(rest)
	if tok != nil && bytes.IndexByte(tok, ':') < 0 {
		rest = after
		for len(tok) > 0 {
			var lab []byte
			if i := bytes.IndexByte(tok, ','); i >= 0 {
				lab, tok = tok[:i], tok[i+1:]
			} else {
				lab, tok = tok, nil
			}
			y, ok := atoi(lab)
			if !ok || y >= x.labels {
				return l.errorf("label %q: expected an integer in [0, %d)", clip(lab), x.labels)
			}
			x.labIDs = append(x.labIDs, int32(y))
		}
	}
	for {
		tok, rest = nextToken(rest)
		if tok == nil {
			break
		}
		i := bytes.IndexByte(tok, ':')
		if i < 0 {
			return l.errorf("expected feature:value, got %q", clip(tok))
		}
		f, ok := atoi(tok[:i])
		if !ok || f >= x.features {
			return l.errorf("feature %q: expected an integer in [0, %d)", clip(tok[:i]), x.features)
		}
		v, err := parseValue(tok[i+1:])
		if err != nil {
			return l.errorf("feature %d: %v", f, err)
		}
		x.featIDs = append(x.featIDs, int32(f))
		x.featVals = append(x.featVals, v)
	}
	x.endRow(l)
	return nil
}

// lastValue returns the last value of an XMC row: what follows its last separator (space,
// tab, comma or colon), a sparse ARFF row's closing brace left out.
func lastValue(row []byte) []byte {
	row = bytes.TrimRight(bytes.TrimSpace(row), "}")
	row = bytes.TrimSpace(row)
	return row[bytes.LastIndexAny(row, " \t,:")+1:]
}

// nextToken returns the first space- or tab-separated token of b and the rest (nil, nil at
// the end).
func nextToken(b []byte) (tok, rest []byte) {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	if i == len(b) {
		return nil, nil
	}
	j := i
	for j < len(b) && b[j] != ' ' && b[j] != '\t' {
		j++
	}
	return b[i:j], b[j:]
}

// atoi parses a non-negative decimal integer below 2^31.
func atoi(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 10 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= math.MaxInt32
}

// parseValue parses a finite number.
func parseValue(b []byte) (float32, error) {
	if len(b) == 1 && b[0] >= '0' && b[0] <= '9' {
		return float32(b[0] - '0'), nil
	}
	v, err := strconv.ParseFloat(string(b), 32)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("value %q is not a finite number", clip(b))
	}
	return float32(v), nil
}

// clip shortens b for messages.
func clip(b []byte) string {
	const n = 60
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// arffLabels says which ARFF attributes are labels: those named in a Mulan label file, or
// the last count attributes.
type arffLabels struct {
	names map[string]bool // the label names
	order []string        // the label names in file order
	file  string
	count int
}

// labelSpec finds the label attributes as XMCSettings says.
func labelSpec(src files, x XMCSettings, xmlFile string) (arffLabels, error) {
	if xmlFile == "" {
		return arffLabels{count: x.Labels}, nil
	}
	names, shown, err := readLabelsXML(src, xmlFile)
	if err != nil {
		return arffLabels{}, err
	}
	if x.Labels != 0 && x.Labels != len(names) {
		return arffLabels{}, fmt.Errorf("xmc.labels: %d, but the label file %s lists %d labels (leave it unset to take them from the file)",
			x.Labels, shown, len(names))
	}
	spec := arffLabels{names: make(map[string]bool, len(names)), order: names, file: shown}
	for _, n := range names {
		spec.names[n] = true
	}
	return spec, nil
}

// readLabelsXML returns the names of the <label name="..."> elements of a Mulan label file,
// nested ones included, in document order.
func readLabelsXML(src files, file string) ([]string, string, error) {
	r, shown, closer, err := src.reader(file)
	if err != nil {
		return nil, "", err
	}
	defer closer()
	dec := xml.NewDecoder(r)
	var names []string
	seen := map[string]bool{}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := dec.InputPos()
		if err != nil {
			return nil, "", &ParseError{File: shown, Line: line, Msg: err.Error()}
		}
		el, ok := tok.(xml.StartElement)
		if !ok || el.Name.Local != "label" {
			continue
		}
		name := ""
		for _, a := range el.Attr {
			if a.Name.Local == "name" {
				name = a.Value
			}
		}
		switch {
		case name == "":
			return nil, "", &ParseError{File: shown, Line: line, Msg: `<label> without a name attribute`}
		case seen[name]:
			return nil, "", &ParseError{File: shown, Line: line, Msg: fmt.Sprintf("repeated label %q", name)}
		}
		seen[name] = true
		names = append(names, name)
	}
	if len(names) == 0 {
		return nil, "", fmt.Errorf("%s: no <label name=\"...\"> elements", shown)
	}
	return names, shown, nil
}

// arffSchema is the attribute list of an ARFF header and each attribute's role.
type arffSchema struct {
	names []string
	role  []int32 // >= 0: feature id; < 0: label id -(role+1)
}

// readARFF reads an ARFF file (header, then sparse "{i v, j v}" or dense "v,v,..." rows).
// The first file's header gives the schema; a later file's header must list the same
// attributes.
func readARFF(src files, file string, spec arffLabels, schema *arffSchema, x *xmcData) (*arffSchema, error) {
	l, err := src.open(file)
	if err != nil {
		return nil, err
	}
	schema, err = parseARFF(l, spec, schema, x)
	if err != nil {
		l.done()
		return nil, err
	}
	if err := l.done(); err != nil {
		return nil, err
	}
	x.rep.Files = append(x.rep.Files, l.summary())
	return schema, nil
}

func parseARFF(l *lines, spec arffLabels, schema *arffSchema, x *xmcData) (*arffSchema, error) {
	names, nameLines, err := arffHeader(l)
	if err != nil {
		return nil, err
	}
	if schema == nil {
		if schema, err = newSchema(l.name, names, nameLines, spec, x); err != nil {
			return nil, err
		}
	} else {
		for i := range max(len(names), len(schema.names)) {
			switch {
			case i >= len(names):
				return nil, l.errorf("header has %d attributes; the train file has %d", len(names), len(schema.names))
			case i >= len(schema.names):
				return nil, &ParseError{File: l.name, Line: nameLines[i], Msg: fmt.Sprintf("attribute %d (%q) is beyond the train file's %d attributes", i, names[i], len(schema.names))}
			case names[i] != schema.names[i]:
				return nil, &ParseError{File: l.name, Line: nameLines[i], Msg: fmt.Sprintf("attribute %d is %q; in the train file it is %q", i, names[i], schema.names[i])}
			}
		}
	}
	var last lastValues
	for l.next() {
		t := bytes.TrimSpace(l.text)
		if len(t) == 0 || t[0] == '%' {
			continue
		}
		if err := x.arffRow(l, t, schema); err != nil {
			return nil, l.tornOr(err)
		}
		if t[0] == '{' { // a sparse row marks its own end with '}'
			continue
		}
		if err := l.unterminated(&last, lastValue(t), "a row of comma-separated values or a sparse {index value, ...} row", x.rep); err != nil {
			return nil, err
		}
	}
	return schema, l.err
}

// arffHeader reads the header up to @data and returns the attribute names and their lines.
func arffHeader(l *lines) (names []string, nameLines []int, err error) {
	for l.next() {
		t := bytes.TrimSpace(l.text)
		if len(t) == 0 || t[0] == '%' {
			continue
		}
		kw, rest := nextToken(t)
		switch strings.ToLower(string(kw)) {
		case "@relation":
		case "@attribute":
			name, err := arffAttribute(rest)
			if err != nil {
				return nil, nil, l.errorf("%v", err)
			}
			names = append(names, name)
			nameLines = append(nameLines, l.line)
		case "@data":
			if len(names) == 0 {
				return nil, nil, l.errorf("@data before any @attribute")
			}
			return names, nameLines, nil
		default:
			return nil, nil, l.errorf("expected @relation, @attribute or @data, got %q", clip(t))
		}
	}
	if l.err != nil {
		return nil, nil, l.err
	}
	return nil, nil, l.errorf("end of file before @data")
}

// arffAttribute parses "name type" after @attribute; name may be quoted with ' or ".
func arffAttribute(b []byte) (string, error) {
	b = bytes.TrimSpace(b)
	var name string
	if len(b) > 0 && (b[0] == '\'' || b[0] == '"') {
		q := b[0]
		var sb strings.Builder
		i := 1
		for ; i < len(b) && b[i] != q; i++ {
			if b[i] == '\\' && i+1 < len(b) {
				i++
			}
			sb.WriteByte(b[i])
		}
		if i == len(b) {
			return "", fmt.Errorf("attribute name: missing closing %c", q)
		}
		name, b = sb.String(), b[i+1:]
	} else {
		tok, rest := nextToken(b)
		name, b = string(tok), rest
	}
	typ := strings.ToLower(string(bytes.TrimSpace(b)))
	switch {
	case name == "":
		return "", fmt.Errorf("expected @attribute <name> <type>")
	case typ == "numeric" || typ == "real" || typ == "integer":
	case len(typ) >= 2 && typ[0] == '{' && typ[len(typ)-1] == '}':
	default:
		return "", fmt.Errorf("attribute %q: unsupported type %q (expected numeric, real, integer or {nominal values})", name, typ)
	}
	return name, nil
}

// newSchema decides the role of every attribute; label ids follow the attribute order.
func newSchema(file string, names []string, nameLines []int, spec arffLabels, x *xmcData) (*arffSchema, error) {
	if spec.names == nil && spec.count > len(names) {
		return nil, fmt.Errorf("xmc.labels: %d labels, but %s declares %d attributes", spec.count, file, len(names))
	}
	s := &arffSchema{names: names, role: make([]int32, len(names))}
	seen := make(map[string]bool, len(names))
	var labels []string
	for i, n := range names {
		if seen[n] {
			return nil, &ParseError{File: file, Line: nameLines[i], Msg: fmt.Sprintf("repeated attribute name %q", n)}
		}
		seen[n] = true
		isLabel := spec.names[n]
		if spec.names == nil {
			isLabel = i >= len(names)-spec.count
		}
		if isLabel {
			s.role[i] = -int32(len(labels)) - 1
			labels = append(labels, n)
		} else {
			s.role[i] = int32(i - len(labels))
		}
	}
	if spec.names != nil && len(labels) != len(spec.names) {
		for _, n := range spec.order {
			if !seen[n] {
				return nil, fmt.Errorf("%s: label %q is not an attribute of %s", spec.file, n, file)
			}
		}
	}
	x.features, x.labels, x.labelNames = len(names)-len(labels), len(labels), labels
	return s, nil
}

// arffRow parses one data row t.
func (x *xmcData) arffRow(l *lines, t []byte, s *arffSchema) error {
	if t[0] != '{' {
		n := bytes.Count(t, []byte{','}) + 1
		if n != len(s.role) {
			return l.errorf("expected %d comma-separated values (or a sparse {index value, ...} row), got %d", len(s.role), n)
		}
		for i := range n {
			v := t
			if j := bytes.IndexByte(t, ','); j >= 0 {
				v, t = t[:j], t[j+1:]
			}
			if err := x.arffValue(l, s, i, bytes.TrimSpace(v)); err != nil {
				return err
			}
		}
		x.endRow(l)
		return nil
	}
	if t[len(t)-1] != '}' {
		return l.errorf("sparse row must end with '}'")
	}
	t = bytes.TrimSpace(t[1 : len(t)-1])
	for len(t) > 0 {
		e := t
		if j := bytes.IndexByte(t, ','); j >= 0 {
			e, t = t[:j], t[j+1:]
		} else {
			t = nil
		}
		idx, val := nextToken(e)
		val = bytes.TrimSpace(val)
		i, ok := atoi(idx)
		if !ok || i >= len(s.role) || len(val) == 0 {
			return l.errorf("expected \"index value\" with index in [0, %d), got %q", len(s.role), clip(bytes.TrimSpace(e)))
		}
		if err := x.arffValue(l, s, i, val); err != nil {
			return err
		}
	}
	x.endRow(l)
	return nil
}

// arffValue records value v of attribute i: a label when it is 1 (it must be 0 or 1), a
// feature with weight v when v is not 0.
func (x *xmcData) arffValue(l *lines, s *arffSchema, i int, v []byte) error {
	f, err := parseValue(v)
	if err != nil {
		return l.errorf("attribute %d (%s): %v", i, s.names[i], err)
	}
	if r := s.role[i]; r < 0 {
		if f != 0 && f != 1 {
			return l.errorf("label attribute %d (%s): value %q must be 0 or 1", i, s.names[i], clip(v))
		}
		if f == 1 {
			x.labIDs = append(x.labIDs, -r-1)
		}
	} else if f != 0 {
		x.featIDs = append(x.featIDs, r)
		x.featVals = append(x.featVals, f)
	}
	return nil
}
