package datasets

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDeliciousShipped checks data/delicious against its PROVENANCE.md: 983 labels, 500
// features, 12,920 train and 3,185 test rows, 10 + 4 rows without labels, 246,088 + 60,229
// label occurrences, 239,549 + 55,065 feature occurrences, every label in train.
func TestDeliciousShipped(t *testing.T) {
	checkProvenance(t, os.DirFS("../data/delicious"), "delicious-train.arff", "delicious-test.arff", "delicious.xml", "README.md")
	d := mustLoad(t, Settings{Source: "xmc", Path: "../data/delicious"}, 1)
	r := d.Report
	if d.Name != "delicious" || d.Items != 983 || d.Queries != 12920+3185 || r.Records != 16105 {
		t.Errorf("name %q, %d items, %d queries, %d records; want delicious, 983, 16105, 16105", d.Name, d.Items, d.Queries, r.Records)
	}
	if len(d.Train) != 246088 || len(d.Test) != 60229 || r.EmptyRows != 14 || r.Duplicates != 0 || r.ColdTestItems != 0 {
		t.Errorf("train %d test %d empty %d dup %d cold items %d; want 246088 60229 14 0 0",
			len(d.Train), len(d.Test), r.EmptyRows, r.Duplicates, r.ColdTestItems)
	}
	for _, p := range d.Train {
		if p.Query >= 12920 {
			t.Fatalf("train pair %+v from a test row", p)
		}
	}
	for _, p := range d.Test {
		if p.Query < 12920 {
			t.Fatalf("test pair %+v from a train row", p)
		}
	}
	f := d.QueryFeatures.Field("feature")
	if f.Vocab != 500 || len(f.IDs) != 239549+55065 || f.Weights != nil {
		t.Errorf("feature field: vocab %d, %d ids, weights %v; want 500, 294614, nil (all 1)", f.Vocab, len(f.IDs), f.Weights != nil)
	}
	if d.ItemNames[0] != "TAG_.imported" || d.ItemNames[982] != "TAG_youtube" || !slices.Contains(d.ItemNames, `TAG_m\'usica`) {
		t.Errorf("label names %q ... %q", d.ItemNames[0], d.ItemNames[982])
	}
	counts := d.ItemCounts()
	if slices.Min(counts) != 18 || slices.Max(counts) != 5197 {
		t.Errorf("label frequencies in [%d, %d], want [18, 5197]", slices.Min(counts), slices.Max(counts))
	}
	// The first train row is {60 1,248 1,279 1,316 1,490 1,577 1,...}: features 60..490,
	// labels 577-500 = 77 ("@attribute TAG_audio {0,1}" on line 580 of the header), ...
	if ids, _ := f.Bag(0); !slices.Equal(ids, []int32{60, 248, 279, 316, 490}) {
		t.Errorf("row 0 features %v", ids)
	}
	if d.Train[0].Query != 0 || d.Train[0].Item != 77 || d.ItemNames[77] != "TAG_audio" {
		t.Errorf("first pair %+v, label %q", d.Train[0], d.ItemNames[d.Train[0].Item])
	}
}

// TestARFFFixture checks testdata/arff (labels named by mini.xml, or the last 3 or 2
// attributes by xmc.labels).
func TestARFFFixture(t *testing.T) {
	type row struct {
		feats  []int32
		vals   []float32
		labels []int32
	}
	check := func(name string, d *Dataset, features int, want []row, names []string) {
		t.Helper()
		f := d.QueryFeatures.Field("feature")
		if d.Queries != len(want) || d.Items != len(names) || f.Vocab != features || !slices.Equal(d.ItemNames, names) {
			t.Errorf("%s: %d queries, %d items %q, %d features", name, d.Queries, d.Items, d.ItemNames, f.Vocab)
		}
		pos := d.KnownPositives()
		for q, w := range want {
			ids, vals := f.Bag(q)
			if !slices.Equal(ids, w.feats) || !slices.Equal(vals, w.vals) || !slices.Equal(pos[q], w.labels) {
				t.Errorf("%s: row %d: features %v %v labels %v; want %v %v %v", name, q, ids, vals, pos[q], w.feats, w.vals, w.labels)
			}
		}
	}
	want := []row{
		{[]int32{0, 1}, []float32{1, 2.5}, []int32{0, 2}},
		{[]int32{2}, []float32{1}, []int32{1}},
		{[]int32{0}, []float32{1}, nil},
		{[]int32{2}, []float32{1}, []int32{0, 1}},
		{[]int32{1, 0}, []float32{3, 1}, []int32{2}},
		{[]int32{1}, []float32{0.5}, []int32{2}},
		{[]int32{0}, []float32{1}, []int32{0, 1}},
	}
	names := []string{"TAG_a", `TAG_m\'b`, "TAG_c"}
	for _, x := range []XMCSettings{{}, {Labels: 3}, {Labels: 3, LabelsXML: "mini.xml"}, {Train: "mini-train.arff", Test: "mini-test.arff", Format: "arff"}} {
		d := mustLoad(t, Settings{Source: "xmc", Path: "testdata/arff", XMC: x}, 1)
		check("xml", d, 3, want, names)
		r := d.Report
		if r.Records != 7 || r.EmptyRows != 1 || r.Duplicates != 1 || len(d.Train) != 6 || len(d.Test) != 3 || d.Name != "arff" {
			t.Errorf("%+v: report\n%v", x, r)
		}
	}
	// Two labels, in a folder without the label file (which lists three): TAG_a becomes feature 3.
	bare := writeFiles(t, map[string]string{
		"mini-train.arff": string(readFile(t, "testdata/arff/mini-train.arff")),
		"mini-test.arff":  string(readFile(t, "testdata/arff/mini-test.arff")),
	})
	d := mustLoad(t, Settings{Source: "xmc", Path: bare, XMC: XMCSettings{Labels: 2}}, 1)
	two := []row{
		{[]int32{0, 1, 3}, []float32{1, 2.5, 1}, []int32{1}},
		{[]int32{2}, []float32{1}, []int32{0}},
		{[]int32{0}, []float32{1}, nil},
		{[]int32{2, 3}, []float32{1, 1}, []int32{0}},
		{[]int32{1, 0}, []float32{3, 1}, []int32{1}},
		{[]int32{1}, []float32{0.5}, []int32{1}},
		{[]int32{0, 3}, []float32{1, 1}, []int32{0}},
	}
	check("labels=2", d, 4, two, names[1:])

	// A file path is the train file; a query split pools both files.
	d = mustLoad(t, Settings{Source: "xmc", Path: "testdata/arff/mini-train.arff", XMC: XMCSettings{Test: "mini-test.arff"}, Split: SplitSettings{Kind: "query", TestFraction: 0.3}}, 1)
	if d.Name != "mini-train" || d.Queries != 7 || len(d.Train)+len(d.Test) != 9 {
		t.Errorf("file path, query split: %q %d queries %d pairs", d.Name, d.Queries, len(d.Train)+len(d.Test))
	}
}

// TestXMCLabelsAgainstXML: xmc.labels is checked against the one label file of the folder,
// named or not, and a count it does not list is an error naming the key, the file and both
// counts; without a label file, or with several and none named, xmc.labels alone gives the last
// attributes as labels.
func TestXMCLabelsAgainstXML(t *testing.T) {
	const hdr = "@relation r\n@attribute a numeric\n@attribute b {0,1}\n@attribute L1 {0,1}\n@attribute L2 {0,1}\n@data\n"
	const xml = `<labels><label name="L1"/><label name="L2"/></labels>`
	arff := map[string]string{"x-train.arff": hdr + "{0 1,2 1}\n{1 1,3 1}\n", "x-test.arff": hdr + "{0 1,3 1}\n"}
	with := func(extra map[string]string) map[string]string {
		m := maps.Clone(arff)
		maps.Copy(m, extra)
		return m
	}
	for _, c := range []struct {
		name   string
		files  map[string]string
		x      XMCSettings
		want   string   // the error, %s standing for the file it names (in the folder); "" for none
		shown  string   // that file, "" for the folder
		labels []string // the labels read
	}{
		{"xml only", with(map[string]string{"l.xml": xml}), XMCSettings{}, "", "", []string{"L1", "L2"}},
		{"labels agree", with(map[string]string{"l.xml": xml}), XMCSettings{Labels: 2}, "", "", []string{"L1", "L2"}},
		{"labels more", with(map[string]string{"l.xml": xml}), XMCSettings{Labels: 3},
			"xmc.labels: 3, but the label file %s lists 2 labels (leave it unset to take them from the file)", "l.xml", nil},
		{"labels fewer", with(map[string]string{"l.xml": xml}), XMCSettings{Labels: 1},
			"xmc.labels: 1, but the label file %s lists 2 labels (leave it unset to take them from the file)", "l.xml", nil},
		{"labels fewer, xml named", with(map[string]string{"l.xml": xml}), XMCSettings{Labels: 1, LabelsXML: "l.xml"},
			"xmc.labels: 1, but the label file %s lists 2 labels (leave it unset to take them from the file)", "l.xml", nil},
		{"labels fewer, gzipped xml", with(map[string]string{"l.xml.gz": xml}), XMCSettings{Labels: 1},
			"xmc.labels: 1, but the label file %s lists 2 labels (leave it unset to take them from the file)", "l.xml.gz", nil},
		{"labels, no xml", arff, XMCSettings{Labels: 1}, "", "", []string{"L2"}},
		{"labels, two xml", with(map[string]string{"l.xml": xml, "m.xml": xml}), XMCSettings{Labels: 1}, "", "", []string{"L2"}},
		{"two xml", with(map[string]string{"l.xml": xml, "m.xml": xml}), XMCSettings{}, "xmc.labels_xml: 2 files in %s match *.xml (set xmc.labels_xml)", "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, c.files)
			d, err := Load(Settings{Source: "xmc", Path: dir, XMC: c.x}, 1)
			if c.want != "" {
				if want := fmt.Sprintf(c.want, filepath.Join(dir, c.shown)); err == nil || err.Error() != want {
					t.Errorf("error %v, want %s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(d.ItemNames, c.labels) {
				t.Errorf("labels %q, want %q", d.ItemNames, c.labels)
			}
		})
	}
}

// TestXMCTextFixture checks testdata/xmctext.
func TestXMCTextFixture(t *testing.T) {
	d := mustLoad(t, Settings{Source: "xmc", Path: "testdata/xmctext"}, 1)
	r := d.Report
	if d.Queries != 5 || d.Items != 3 || r.Records != 5 || r.EmptyRows != 1 || r.Duplicates != 2 || len(d.Train) != 5 || len(d.Test) != 1 {
		t.Errorf("%d queries %d items, report\n%v", d.Queries, d.Items, r)
	}
	f := d.QueryFeatures.Field("feature")
	wantFeats := [][]int32{{0, 3}, {1}, {2}, nil, {0}}
	wantVals := [][]float32{{1, 0.5}, {2}, {1}, nil, {1.5}}
	wantLabels := [][]int32{{0, 2}, nil, {1}, {0, 2}, {2}}
	pos := d.KnownPositives()
	for q := range 5 {
		ids, vals := f.Bag(q)
		if !slices.Equal(ids, wantFeats[q]) || !slices.Equal(vals, wantVals[q]) || !slices.Equal(pos[q], wantLabels[q]) {
			t.Errorf("row %d: %v %v %v", q, ids, vals, pos[q])
		}
	}
	if f.Vocab != 4 || d.ItemNames != nil || d.ItemFeatures.Field("label_id").Vocab != 3 {
		t.Errorf("vocab %d, names %v", f.Vocab, d.ItemNames)
	}
	if d.Test[0] != (Interaction{Query: 4, Item: 2, Reward: 1}) {
		t.Errorf("test pair %+v", d.Test[0])
	}
}

// TestXMCTextBOMAndBlankLines: the text fixture with a byte-order mark before its header, a
// blank line between rows and blank lines at the end loads as the fixture does.
func TestXMCTextBOMAndBlankLines(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"train.txt", "test.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata/xmctext", name))
		if err != nil {
			t.Fatal(err)
		}
		header, rows, _ := strings.Cut(string(b), "\n")
		rows = strings.Replace(rows, "\n", "\n\n", 1)
		if err := os.WriteFile(filepath.Join(dir, name), []byte("\ufeff"+header+"\r\n"+rows+"\n  \n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := mustLoad(t, Settings{Source: "xmc", Path: "testdata/xmctext"}, 1)
	got := mustLoad(t, Settings{Source: "xmc", Path: dir}, 1)
	if got.Queries != want.Queries || got.Report.Records != want.Report.Records || got.Report.EmptyRows != want.Report.EmptyRows ||
		!slices.Equal(got.Train, want.Train) || !slices.Equal(got.Test, want.Test) {
		t.Errorf("%d queries, report\n%v\nwant %d queries, report\n%v", got.Queries, got.Report, want.Queries, want.Report)
	}
}

// TestXMCMalformed checks the file:line errors of malformed ARFF, XML and text files.
func TestXMCMalformed(t *testing.T) {
	const hdr = "@relation r\n@attribute a numeric\n@attribute b {0,1}\n@attribute L {0,1}\n@data\n"
	const xml = `<labels><label name="L"/></labels>`
	const test = hdr + "{0 1,2 1}\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"string attribute", map[string]string{"x-train.arff": "@relation r\n@attribute a string\n", "x-test.arff": test, "l.xml": xml},
			`x-train.arff:2: attribute "a": unsupported type "string" (expected numeric, real, integer or {nominal values})`},
		{"row before @data", map[string]string{"x-train.arff": "@relation r\n1,2\n", "x-test.arff": test, "l.xml": xml},
			`x-train.arff:2: expected @relation, @attribute or @data, got "1,2"`},
		{"no @data", map[string]string{"x-train.arff": "@relation r\n@attribute a numeric\n", "x-test.arff": test, "l.xml": xml},
			`x-train.arff:2: end of file before @data`},
		{"unclosed quote", map[string]string{"x-train.arff": "@attribute 'a numeric\n", "x-test.arff": test, "l.xml": xml},
			`x-train.arff:1: attribute name: missing closing '`},
		{"dense count", map[string]string{"x-train.arff": hdr + "1,0,1\n1,0\n", "x-test.arff": test, "l.xml": xml},
			`x-train.arff:7: expected 3 comma-separated values (or a sparse {index value, ...} row), got 2`},
		{"index out of range", map[string]string{"x-train.arff": hdr + "{0 1,7 1}\n", "x-test.arff": test, "l.xml": xml},
			`x-train.arff:6: expected "index value" with index in [0, 3), got "7 1"`},
		{"no value", map[string]string{"x-train.arff": hdr + "{0}\n", "x-test.arff": test, "l.xml": xml},
			`x-train.arff:6: expected "index value" with index in [0, 3), got "0"`},
		{"label value", map[string]string{"x-train.arff": hdr + "{0 1,2 2}\n", "x-test.arff": test, "l.xml": xml},
			`x-train.arff:6: label attribute 2 (L): value "2" must be 0 or 1`},
		{"feature value", map[string]string{"x-train.arff": hdr + "{0 abc,2 1}\n", "x-test.arff": test, "l.xml": xml},
			`x-train.arff:6: attribute 0 (a): value "abc" is not a finite number`},
		{"infinite value", map[string]string{"x-train.arff": hdr + "Inf,0,1\n", "x-test.arff": test, "l.xml": xml},
			`x-train.arff:6: attribute 0 (a): value "Inf" is not a finite number`},
		{"unterminated sparse", map[string]string{"x-train.arff": hdr + "{0 1,2 1\n", "x-test.arff": test, "l.xml": xml},
			`x-train.arff:6: sparse row must end with '}'`},
		{"test header differs", map[string]string{"x-train.arff": hdr + "{0 1,2 1}\n", "x-test.arff": strings.Replace(test, "@attribute b", "@attribute c", 1), "l.xml": xml},
			`x-test.arff:3: attribute 1 is "c"; in the train file it is "b"`},
		{"test header longer", map[string]string{"x-train.arff": hdr + "{0 1,2 1}\n", "x-test.arff": strings.Replace(test, "@data", "@attribute z numeric\n@data", 1), "l.xml": xml},
			`x-test.arff:5: attribute 3 ("z") is beyond the train file's 3 attributes`},
		{"test header shorter", map[string]string{"x-train.arff": hdr + "{0 1,2 1}\n", "x-test.arff": "@attribute a numeric\n@data\n", "l.xml": xml},
			`x-test.arff:2: header has 1 attributes; the train file has 3`},
		{"repeated attribute", map[string]string{"x-train.arff": "@attribute a numeric\n@attribute a numeric\n@attribute L {0,1}\n@data\n", "x-test.arff": test, "l.xml": xml},
			`x-train.arff:2: repeated attribute name "a"`},
		{"label not an attribute", map[string]string{"x-train.arff": hdr, "x-test.arff": test, "l.xml": `<labels><label name="L"/><label name="Q"/></labels>`},
			`l.xml: label "Q" is not an attribute of `},
		{"bad xml", map[string]string{"x-train.arff": hdr, "x-test.arff": test, "l.xml": "<labels>\n<label name=\"L\">\n</labelz>"},
			`l.xml:3: XML syntax error on line 3: element <label> closed by </labelz>`},
		{"label without name", map[string]string{"x-train.arff": hdr, "x-test.arff": test, "l.xml": "<labels>\n<label/></labels>"},
			`l.xml:2: <label> without a name attribute`},
		{"no xml", map[string]string{"x-train.arff": hdr, "x-test.arff": test},
			`xmc.labels_xml: 0 files in `},
		{"no test", map[string]string{"x-train.arff": hdr, "l.xml": xml},
			`xmc.test: 0 files in `},
		{"text torn last row", map[string]string{"train.txt": "2 2 3\n0 0:1\n1 0:1 1:0.", "test.txt": "0 2 3\n"},
			`train.txt:3: the file ends without a line break in this line, which looks cut (its last value "0." ends like a number cut short; expected a row "l1,l2 f:v f:v"); if the line is complete, end the file with a line break`},
		{"text header", map[string]string{"train.txt": "x 1 2\n", "test.txt": "0 1 2\n"},
			`train.txt:1: expected a header "N F L" (rows, features, labels: three non-negative integers), got "x 1 2"`},
		{"text header extra", map[string]string{"train.txt": "1 1 2 3\n", "test.txt": "0 1 2\n"},
			`train.txt:1: expected a header "N F L" (rows, features, labels), got "1 1 2 3"`},
		{"text empty", map[string]string{"train.txt": "", "test.txt": "0 1 2\n"},
			`train.txt:1: empty file; expected a header "N F L" (rows, features, labels)`},
		{"text label range", map[string]string{"train.txt": "1 2 3\n5 0:1\n", "test.txt": "0 2 3\n"},
			`train.txt:2: label "5": expected an integer in [0, 3)`},
		{"text empty label", map[string]string{"train.txt": "1 2 3\n1,,2 0:1\n", "test.txt": "0 2 3\n"},
			`train.txt:2: label "": expected an integer in [0, 3)`},
		{"text feature colon", map[string]string{"train.txt": "1 2 3\n0 abc\n", "test.txt": "0 2 3\n"},
			`train.txt:2: expected feature:value, got "abc"`},
		{"text feature range", map[string]string{"train.txt": "1 2 3\n0 2:1\n", "test.txt": "0 2 3\n"},
			`train.txt:2: feature "2": expected an integer in [0, 2)`},
		{"text value", map[string]string{"train.txt": "1 2 3\n0 1:x\n", "test.txt": "0 2 3\n"},
			`train.txt:2: feature 1: value "x" is not a finite number`},
		{"text rows", map[string]string{"train.txt": "3 2 3\n0 1:1\n1\n", "test.txt": "0 2 3\n"},
			`train.txt:1: header declares 3 rows, the file has 2`},
		{"text test sizes", map[string]string{"train.txt": "1 2 3\n0 1:1\n", "test.txt": "1 2 4\n0 1:1\n"},
			`test.txt:1: header declares 2 features and 4 labels; the train file has 2 and 3`},
		{"text too many labels", map[string]string{"train.txt": "1 2 99999999\n0 1:1\n", "test.txt": "0 2 3\n"},
			`train.txt:1: header declares 99999999 labels; at most 16777216 are supported`},
		{"empty test set", map[string]string{"train.txt": "1 2 3\n0 1:1\n", "test.txt": "1 2 3\n 0:1\n"},
			`split.kind: the test set of `},
	} {
		dir := writeFiles(t, c.files)
		_, err := Load(Settings{Source: "xmc", Path: dir}, 1)
		if err == nil {
			t.Errorf("%s: no error, want %s", c.name, c.want)
			continue
		}
		want := c.want
		if strings.Contains(want, ":") && !strings.HasPrefix(want, "xmc.") && !strings.HasPrefix(want, "split") {
			want = filepath.Join(dir, want)
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error\n%v\nwant\n%s", c.name, err, want)
		}
	}
}

// TestXMCGzPath names a file of which only the .gz copy exists.
func TestXMCGzPath(t *testing.T) {
	d := mustLoad(t, Settings{Source: "xmc", Path: "../data/delicious/delicious-train.arff", Split: SplitSettings{Kind: "query"}}, 1)
	if d.Name != "delicious-train" || d.Queries != 12920 || d.Items != 983 || len(d.Train)+len(d.Test) != 246088 {
		t.Errorf("%q: %d queries, %d items, %d pairs; want delicious-train, 12920, 983, 246088", d.Name, d.Queries, d.Items, len(d.Train)+len(d.Test))
	}
}
