package docs

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/samplingbias/workbench/internal/setting"
	"github.com/samplingbias/workbench/workbench"
)

// module is the module path; a package's directory is its import path below it, relative to the
// repository root ("..").
const module = "github.com/samplingbias/workbench"

// writeEnv, set to 1, makes TestConfigDoc write docs/config.md instead of comparing it.
const writeEnv = "WORKBENCH_WRITE_CONFIG_DOC"

// TestConfigDoc: docs/config.md equals the reference generated from the Config type (its toml
// and affects tags, by reflection), the doc comments of the settings fields and the Default
// constants they name (from the packages' source), and the allowed names of every enum (from its
// UnmarshalText). Regenerate with
//
//	WORKBENCH_WRITE_CONFIG_DOC=1 go test -run TestConfigDoc ./docs/
func TestConfigDoc(t *testing.T) {
	got, err := configDoc()
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv(writeEnv) == "1" {
		if err := os.WriteFile("config.md", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("config.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/config.md is not up to date with the settings declarations; regenerate it with\n\t%s=1 go test -run TestConfigDoc ./docs/\nfirst differing line: %s", writeEnv, firstDiff(got, want))
	}
}

// machineDependent are the keys whose default Resolve takes from the machine, with what; the
// reference shows the doc comment's words for them.
var machineDependent = map[string]string{
	"eval.workers": "runtime.GOMAXPROCS(0)",
}

// dependentDefaults are the keys whose doc comment states the default of another value of a
// key they depend on, with the reason; every other stated default must be what Resolve fills.
var dependentDefaults = map[string]string{
	"estimator.hashes": "DefaultHashes is multihash's; the default kind, streaming, has one array",
}

// TestConfigDocDefaults checks the defaults the doc comments state (the Default constants
// they name) against the code: where a section's zero value, resolved by its Resolve method,
// fills a key, it fills the stated default.
func TestConfigDocDefaults(t *testing.T) {
	sections, err := collect()
	if err != nil {
		t.Fatal(err)
	}
	resolved, err := resolvedDefaults()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, s := range sections {
		for _, r := range s.rows {
			v, ok := resolved[r.key]
			if r.stated == "" || !ok || isZero(v) || dependentDefaults[r.key] != "" {
				continue
			}
			checked++
			var want map[string]any
			if _, err := toml.Decode("v = "+r.stated, &want); err != nil || !reflect.DeepEqual(numbers(want["v"]), numbers(v)) {
				t.Errorf("%s: the doc comment states the default %s, Resolve fills %v", r.key, r.stated, v)
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked %d defaults; the sections resolve more than 50", checked)
	}
}

// numbers makes every integer of a decoded TOML value a float64, so that 10 and 10.0 compare
// equal.
func numbers(v any) any {
	switch v := v.(type) {
	case int64:
		return float64(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = numbers(x)
		}
		return out
	}
	return v
}

// resolvedDefaults returns, by dotted key, the values that each config section's zero value
// holds once its Resolve method has filled the defaults (for the default choices of the
// section's other keys).
func resolvedDefaults() (map[string]any, error) {
	out := map[string]any{}
	ct := reflect.TypeFor[workbench.Config]()
	for i := range ct.NumField() {
		f := ct.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		p := reflect.New(f.Type)
		r, ok := p.Interface().(interface{ Resolve() error })
		if !ok {
			continue
		}
		if err := r.Resolve(); err != nil {
			return nil, fmt.Errorf("[%s]: the zero value does not resolve: %w", name, err)
		}
		var buf bytes.Buffer
		if err := toml.NewEncoder(&buf).Encode(p.Interface()); err != nil {
			return nil, err
		}
		var m map[string]any
		if _, err := toml.Decode(buf.String(), &m); err != nil {
			return nil, err
		}
		maps.Copy(out, flatten(name, m))
	}
	return out, nil
}

// tomlValue writes a decoded TOML value as TOML.
func tomlValue(v any) (string, error) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(map[string]any{"v": v}); err != nil {
		return "", err
	}
	return strings.TrimSpace(strings.TrimPrefix(buf.String(), "v = ")), nil
}

// flatten returns the values of a decoded TOML table by dotted key below prefix.
func flatten(prefix string, m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			maps.Copy(out, flatten(prefix+"."+k, sub))
			continue
		}
		out[prefix+"."+k] = v
	}
	return out
}

// isZero reports whether a decoded TOML value is its type's zero.
func isZero(v any) bool {
	return v == nil || reflect.ValueOf(v).IsZero() || reflect.ValueOf(v).Kind() == reflect.Slice && reflect.ValueOf(v).Len() == 0
}

// firstDiff returns the first line where a and b differ.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("%d:\ngenerated: %s\nfile:      %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d (one is longer)", min(len(la), len(lb))+1)
}

// row is one key of the reference.
type row struct {
	key, typ, def, allowed, doc string
	stated                      string // the default the doc comment states, if it does
}

// section is one TOML table of the reference.
type section struct {
	name, doc string
	rows      []row
}

// configDoc renders docs/config.md.
func configDoc() ([]byte, error) {
	sections, err := collect()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`# Config reference

<!-- Generated from the settings declarations by TestConfigDoc (docs/config_test.go); do not edit.
Regenerate with: WORKBENCH_WRITE_CONFIG_DOC=1 go test -run TestConfigDoc ./docs/ -->

Every key of an experiment's TOML config, by table: its TOML type, its default (the value the
table's Resolve fills when the other keys keep their defaults, else the value the doc comment
names; empty where the default depends on other keys or on the machine, as the meaning says),
the allowed names of an enum, and the meaning, from the doc comment of the setting. Every key is
optional; a key the config does not know, a value of the wrong type or a name not allowed is an
error naming the file, the line and the key. "affects" says what a change of the table's keys
changes: training (the runs are trained again), evaluation (saved models are evaluated again),
figures (only the report is redrawn), the grid (which runs exist) or nothing.
`)
	for _, s := range sections {
		fmt.Fprintf(&b, "\n## %s\n\n", s.name)
		if s.doc != "" {
			fmt.Fprintf(&b, "%s\n\n", s.doc)
		}
		b.WriteString("| key | type | default | allowed | meaning |\n|---|---|---|---|---|\n")
		for _, r := range s.rows {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", r.key, r.typ, cell(code(r.def)), r.allowed, cell(r.doc))
		}
	}
	return b.Bytes(), nil
}

// code writes a value as inline code, or nothing.
func code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + s + "`"
}

// cell makes a doc comment one table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}

// collect walks the Config type: top-level keys first, then each table in declaration order.
func collect() ([]section, error) {
	resolved, err := resolvedDefaults()
	if err != nil {
		return nil, err
	}
	c := &collector{src: map[string]*pkgSource{}, resolved: resolved}
	top := section{name: "Top level", doc: "Keys outside any table."}
	var tables []section
	if err := c.walk(reflect.TypeFor[workbench.Config](), "", "", &top, &tables); err != nil {
		return nil, err
	}
	return append([]section{top}, tables...), nil
}

// collector reads the packages' sources once each.
type collector struct {
	src      map[string]*pkgSource
	resolved map[string]any          // by dotted key, see resolvedDefaults
	open     map[reflect.Type]string // the table types walk is inside, by their key
}

// walk adds the keys of struct type t, whose table is prefix (empty at the top), to sec, and
// its sub-tables to tables.
func (c *collector) walk(t reflect.Type, prefix, affects string, sec *section, tables *[]section) error {
	src, err := c.source(t.PkgPath())
	if err != nil {
		return err
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		key := name
		if prefix != "" {
			key = prefix + "." + name
		}
		doc := src.fieldDoc(t.Name(), f.Name)
		aff := f.Tag.Get("affects")
		if aff == "" {
			aff = affects
		}
		ft := f.Type
		table := ft.Kind() == reflect.Struct
		array := ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct
		if table || array {
			if array {
				ft = ft.Elem()
			}
			tsrc, err := c.source(ft.PkgPath())
			if err != nil {
				return err
			}
			sub := section{name: "[" + key + "]", doc: tableDoc(doc, tsrc.typeDoc(ft), aff)}
			if array {
				sub.name = "[[" + key + "]]"
			}
			if outer, ok := c.open[ft]; ok {
				// A table nested in a table of its own type (a mixture's [[sampler.of]] are samplers).
				sub.doc = strings.TrimSpace(sub.doc + " Each has the keys of [" + outer + "].")
				*tables = append(*tables, sub)
				continue
			}
			if c.open == nil {
				c.open = map[reflect.Type]string{}
			}
			c.open[ft] = key
			var subs []section
			err = c.walk(ft, key, aff, &sub, &subs)
			delete(c.open, ft)
			if err != nil {
				return err
			}
			*tables = append(*tables, sub)
			*tables = append(*tables, subs...)
			continue
		}
		def, err := c.defaultOf(src, f.Name, doc)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		if prefix == "" {
			doc = strings.TrimSpace(doc + " Affects: " + aff + ".")
		}
		r := row{key: key, typ: tomlType(ft), def: def, stated: def, allowed: allowed(ft), doc: doc}
		if v, ok := c.resolved[key]; ok && !isZero(v) && machineDependent[key] == "" {
			if r.def, err = tomlValue(v); err != nil {
				return err
			}
		}
		sec.rows = append(sec.rows, r)
	}
	return nil
}

// tableDoc is the paragraph under a table's heading: the Config field's comment, or the first
// sentence of the type's, and what the table affects.
func tableDoc(fieldDoc, typeDoc, affects string) string {
	d := cell(fieldDoc)
	if d == "" {
		d = cell(firstSentence(typeDoc))
	}
	return strings.TrimSpace(d + " Affects: " + affects + ".")
}

// firstSentence returns s up to its first ". ".
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

// tomlType names the TOML type of a Go field type.
func tomlType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		if allowed(t) != "" {
			return "string (enum)"
		}
		return "string"
	case reflect.Int, reflect.Int64:
		return "integer"
	case reflect.Float64:
		return "float"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice:
		return "array of " + tomlType(t.Elem())
	case reflect.Map:
		return "table"
	case reflect.Interface:
		return "any"
	}
	return t.String()
}

// allowed lists the names an enum type accepts, from the error its UnmarshalText gives an
// unknown name; it is empty for other types.
func allowed(t reflect.Type) string {
	u, ok := reflect.New(t).Interface().(encoding.TextUnmarshaler)
	if !ok {
		return ""
	}
	var unknown *setting.UnknownError
	if err := u.UnmarshalText([]byte("\x00not a name")); !errors.As(err, &unknown) {
		return ""
	}
	return "`" + strings.Join(unknown.Allowed, "`, `") + "`"
}

// defaultConst finds the Default constants a doc comment names, e.g. "default DefaultAlpha" or
// "estimators.DefaultInit"; defaultName a constant named after the word default ("default
// ExperimentRetrieval", but not "Default: SplitFiles for xmc", a default that depends on other
// keys); defaultLiteral a value written after it ("default [1]", "Default 0").
var (
	defaultConst   = regexp.MustCompile(`\b(?:([a-z]+)\.)?(Default[A-Z][A-Za-z0-9]*)\b`)
	defaultName    = regexp.MustCompile(`\b[Dd]efault ([A-Z][A-Za-z0-9]*)\b`)
	defaultLiteral = regexp.MustCompile(`\b[Dd]efault:? (\[[-0-9., ]*\]|-?[0-9][0-9.e-]*[0-9]|[0-9]|false|true)`)
)

// defaultOf returns the default of field that doc states, written as TOML, or "". Where doc
// names several Default constants ("Defaults DefaultUser, DefaultItem, ..."), the one that
// contains the field's name is the field's.
func (c *collector) defaultOf(src *pkgSource, field, doc string) (string, error) {
	ms := defaultConst.FindAllStringSubmatch(doc, -1)
	if len(ms) == 0 {
		if m := defaultName.FindStringSubmatch(doc); m != nil {
			if _, ok := src.consts[m[1]]; ok {
				return c.constValue(src, m[1])
			}
		}
		if m := defaultLiteral.FindStringSubmatch(doc); m != nil {
			return m[1], nil
		}
		return "", nil
	}
	m := ms[0]
	for _, x := range ms {
		if strings.Contains(x[2], field) {
			m = x
			break
		}
	}
	p := src
	if m[1] != "" {
		path, ok := src.imports[m[1]]
		if !ok {
			return "", fmt.Errorf("the doc comment names %s.%s, a package %s does not import", m[1], m[2], src.path)
		}
		var err error
		if p, err = c.source(path); err != nil {
			return "", err
		}
	}
	return c.constValue(p, m[2])
}

// constValue writes the value of constant name of package p as TOML: a literal as it is
// written (a string in double quotes), another constant by its value.
func (c *collector) constValue(p *pkgSource, name string) (string, error) {
	e, ok := p.consts[name]
	if !ok {
		return "", fmt.Errorf("package %s declares no constant %s, nor a function of it that returns one value", p.path, name)
	}
	switch e := e.(type) {
	case *ast.CompositeLit:
		elts := make([]string, len(e.Elts))
		for i, x := range e.Elts {
			v, err := c.exprValue(p, x)
			if err != nil {
				return "", err
			}
			elts[i] = v
		}
		return "[" + strings.Join(elts, ", ") + "]", nil
	case *ast.Ident:
		return c.constValue(p, e.Name)
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			if path, ok := p.imports[x.Name]; ok {
				q, err := c.source(path)
				if err != nil {
					return "", err
				}
				return c.constValue(q, e.Sel.Name)
			}
		}
	}
	return c.exprValue(p, e)
}

// exprValue writes a constant expression of package p as TOML: a constant by its value, an
// arithmetic expression evaluated (1 << 20 is 1048576).
func (c *collector) exprValue(p *pkgSource, e ast.Expr) (string, error) {
	if id, ok := e.(*ast.Ident); ok && id.Name != "true" && id.Name != "false" {
		return c.constValue(p, id.Name)
	}
	var b bytes.Buffer
	if err := printer.Fprint(&b, token.NewFileSet(), e); err != nil {
		return "", err
	}
	if _, ok := e.(*ast.BinaryExpr); ok {
		tv, err := types.Eval(token.NewFileSet(), nil, token.NoPos, b.String())
		if err != nil || tv.Value == nil {
			return "", fmt.Errorf("package %s: cannot evaluate %s: %v", p.path, b.String(), err)
		}
		return tv.Value.ExactString(), nil
	}
	return b.String(), nil
}

// pkgSource is what the reference reads from one package's source.
type pkgSource struct {
	path    string
	structs map[string]*ast.TypeSpec // by type name
	types   map[string]string        // a type's doc comment
	consts  map[string]ast.Expr      // a constant's value expression, or what a function of no arguments returns
	imports map[string]string        // import name -> path
}

// source parses the non-test files of the module's package path.
func (c *collector) source(path string) (*pkgSource, error) {
	if s, ok := c.src[path]; ok {
		return s, nil
	}
	rel, ok := strings.CutPrefix(path, module)
	if !ok {
		return nil, fmt.Errorf("package %s is outside the module", path)
	}
	dir := filepath.Join("..", filepath.FromSlash(strings.TrimPrefix(rel, "/")))
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	s := &pkgSource{path: path, structs: map[string]*ast.TypeSpec{}, types: map[string]string{},
		consts: map[string]ast.Expr{}, imports: map[string]string{}}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, im := range f.Imports {
			p := strings.Trim(im.Path.Value, `"`)
			n := p[strings.LastIndex(p, "/")+1:]
			if im.Name != nil {
				n = im.Name.Name
			}
			s.imports[n] = p
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Type.Params.NumFields() == 0 && fn.Body != nil && len(fn.Body.List) == 1 {
				if r, ok := fn.Body.List[0].(*ast.ReturnStmt); ok && len(r.Results) == 1 {
					s.consts[fn.Name.Name] = r.Results[0]
				}
			}
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range g.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					doc := spec.Doc
					if doc == nil && len(g.Specs) == 1 {
						doc = g.Doc
					}
					s.types[spec.Name.Name] = doc.Text()
					s.structs[spec.Name.Name] = spec
				case *ast.ValueSpec:
					if g.Tok != token.CONST {
						continue
					}
					for i, n := range spec.Names {
						if i < len(spec.Values) {
							s.consts[n.Name] = spec.Values[i]
						}
					}
				}
			}
		}
	}
	c.src[path] = s
	return s, nil
}

// typeDoc returns the doc comment of type t, if it is declared in this package.
func (s *pkgSource) typeDoc(t reflect.Type) string { return s.types[t.Name()] }

// fieldDoc returns the doc comment of field name of struct typeName. A field without a comment
// takes the comment of the field above it when that comment names it ("Delimiter and NoHeader
// are as in ...").
func (s *pkgSource) fieldDoc(typeName, name string) string {
	spec, ok := s.structs[typeName]
	if !ok {
		return ""
	}
	st, ok := spec.Type.(*ast.StructType)
	if !ok {
		return ""
	}
	prev := ""
	for _, f := range st.Fields.List {
		doc := strings.TrimSpace(f.Doc.Text())
		if doc == "" && regexp.MustCompile(`\b`+regexp.QuoteMeta(name)+`\b`).MatchString(prev) {
			doc = prev
		}
		for _, n := range f.Names {
			if n.Name == name {
				return doc
			}
		}
		prev = doc
	}
	return ""
}
