package configdoc

import (
	"bytes"
	"encoding"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/samplingbias/workbench/internal/schema"
)

// Row is one key of the reference.
type Row struct {
	Key, Type, Default, Allowed, Meaning string
}

// Section is one TOML table of the reference.
type Section struct {
	Name, Doc string
	Rows      []Row
}

// Generate renders docs/config.md from the sources of the repository whose root is root.
func Generate(root string) ([]byte, error) {
	sections, err := Collect(root)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`# Config reference

<!-- Generated from the settings declarations by package internal/configdoc; do not edit.
Regenerate with: go generate ./docs/ -->

Every key of an experiment's TOML config, by table: its TOML type, its default (the value the
table's Resolve fills when the other keys keep their defaults, else the value the doc comment
names; empty where the default depends on other keys or on the machine, as the meaning says),
the names an enum allows (those the config accepts in some setting of the other keys), and the
meaning, from the doc comment of the setting. Every key is optional; a key the config does not
know, a value of the wrong type or a name not allowed is an error naming the file, the line and
the key. A key written with its zero value (0, "", false, []) where that would be replaced by the
default is an error too; where a written 0 is a setting of its own, the meaning says what it
means. "affects" says what a change of the table's keys changes: training (the runs are trained
again), evaluation (saved models are evaluated again), figures (only the report is redrawn), the
grid (which runs exist) or nothing.
`)
	for _, s := range sections {
		fmt.Fprintf(&b, "\n## %s\n\n", s.Name)
		if s.Doc != "" {
			fmt.Fprintf(&b, "%s\n\n", s.Doc)
		}
		b.WriteString("| key | type | default | allowed | meaning |\n|---|---|---|---|---|\n")
		for _, r := range s.Rows {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", r.Key, r.Type, cell(code(r.Default)), r.Allowed, cell(r.Meaning))
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

// Collect walks the schema of workbench.Config: top-level keys first, then each table in
// declaration order.
func Collect(root string) ([]Section, error) {
	tb := Schema()
	resolved, err := resolvedDefaults(tb)
	if err != nil {
		return nil, err
	}
	c := &collector{sources: sources{root: root, src: map[string]*pkgSource{}}, resolved: resolved, schema: tb,
		contexts: Contexts(tb), allowed: map[string]string{}}
	top := Section{Name: "Top level", Doc: "Keys outside any table."}
	var tables []Section
	if err := c.walk(tb, "", "", &top, &tables, map[*schema.Table]string{}); err != nil {
		return nil, err
	}
	return append([]Section{top}, tables...), nil
}

// collector holds what the walk reads once.
type collector struct {
	sources
	resolved map[string]reflect.Value // by dotted key, see resolvedDefaults
	schema   *schema.Table
	contexts []map[string]any
	allowed  map[string]string // by Go type: its allowed names, as the reference writes them
}

// walk adds the keys of table tb, whose key is prefix (empty at the top), to sec, and its
// sub-tables to tables; open maps the tables walk is inside to their keys.
func (c *collector) walk(tb *schema.Table, prefix, affects string, sec *Section, tables *[]Section, open map[*schema.Table]string) error {
	open[tb] = prefix
	defer delete(open, tb)
	src, err := c.source(tb.Type.PkgPath())
	if err != nil {
		return err
	}
	for _, f := range tb.Fields {
		key := f.Name
		if prefix != "" {
			key = prefix + "." + f.Name
		}
		doc := src.fieldDoc(tb.Type.Name(), f.Go.Name)
		aff := f.Affects
		if aff == "" {
			aff = affects
		}
		if f.Kind == schema.KindTable || f.Kind == schema.KindArray {
			tsrc, err := c.source(f.Table.Type.PkgPath())
			if err != nil {
				return err
			}
			tdoc, err := c.words(tsrc, f.Table, doc)
			if err != nil {
				return err
			}
			if tdoc == "" {
				if tdoc, err = c.words(tsrc, f.Table, firstSentence(tsrc.types[f.Table.Type.Name()])); err != nil {
					return err
				}
			}
			sub := Section{Name: "[" + key + "]", Doc: strings.TrimSpace(cell(tdoc) + " Affects: " + aff + ".")}
			if f.Kind == schema.KindArray {
				sub.Name = "[[" + key + "]]"
			}
			if outer, ok := open[f.Table]; ok {
				// A table nested in a table of its own type (a mixture's [[sampler.of]] are
				// samplers): its keys are those of the outer one, listed once more, not nested again.
				sub.Doc = strings.TrimSpace(sub.Doc + " Each has the keys of [" + outer + "], which mean the same here.")
				if err := c.rows(f.Table, key, aff, &sub); err != nil {
					return err
				}
				*tables = append(*tables, sub)
				continue
			}
			var subs []Section
			if err := c.walk(f.Table, key, aff, &sub, &subs, open); err != nil {
				return err
			}
			*tables = append(*tables, sub)
			*tables = append(*tables, subs...)
			continue
		}
		r, err := c.row(src, tb, f, key, doc)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		if prefix == "" || aff != affects {
			r.Meaning = strings.TrimSpace(r.Meaning + " Affects: " + aff + ".")
		}
		sec.Rows = append(sec.Rows, r)
	}
	return nil
}

// rows adds to sec the value keys of tb under prefix, without walking its tables.
func (c *collector) rows(tb *schema.Table, prefix, affects string, sec *Section) error {
	src, err := c.source(tb.Type.PkgPath())
	if err != nil {
		return err
	}
	for _, f := range tb.Fields {
		if f.Kind == schema.KindTable || f.Kind == schema.KindArray {
			continue
		}
		key := prefix + "." + f.Name
		r, err := c.row(src, tb, f, key, src.fieldDoc(tb.Type.Name(), f.Go.Name))
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		sec.Rows = append(sec.Rows, r)
	}
	return nil
}

// row is the reference's row of field f of table tb, of key key and doc comment doc.
func (c *collector) row(src *pkgSource, tb *schema.Table, f *schema.Field, key, doc string) (Row, error) {
	def, err := c.defaultOf(src, f.Go.Name, doc)
	if err != nil {
		return Row{}, err
	}
	if v, ok := c.resolved[key]; ok && !isZero(v) && f.Zero == "" {
		if def, err = tomlValue(v.Interface()); err != nil {
			return Row{}, err
		}
	}
	meaning, err := c.words(src, tb, doc)
	if err != nil {
		return Row{}, err
	}
	if f.Zero != "" {
		meaning = strings.TrimSpace(meaning + " A written 0 means " + f.Zero + ".")
	}
	allowed, err := c.allowedOf(f, key)
	if err != nil {
		return Row{}, err
	}
	return Row{Key: key, Type: tomlType(f.Go.Type), Default: def, Allowed: allowed, Meaning: meaning}, nil
}

// allowedOf writes the names the enum of field f (of key) allows: those the loader accepts for
// key in some context; the keys of an array of tables, which the contexts do not reach, take the
// names of their type.
func (c *collector) allowedOf(f *schema.Field, key string) (string, error) {
	names := Names(f.Go.Type)
	if len(names) == 0 {
		return "", nil
	}
	if done, ok := c.allowed[key]; ok {
		return done, nil
	}
	if !insideArray(c.schema, key) {
		names = slices.DeleteFunc(slices.Clone(names), func(n string) bool {
			var v any = n
			if f.Go.Type.Kind() == reflect.Slice {
				v = []any{n}
			}
			return !Accepts(c.contexts, key, v)
		})
	}
	out := ""
	if len(names) > 0 {
		out = "`" + strings.Join(names, "`, `") + "`"
	}
	c.allowed[key] = out
	return out, nil
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
	case reflect.Pointer:
		return tomlType(t.Elem())
	case reflect.String:
		if Names(t) != nil {
			return "string (enum)"
		}
		return "string"
	case reflect.Int, reflect.Int64:
		return "integer"
	case reflect.Uint8:
		if reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
			return "string" // a name, as metrics.Slice's "all"
		}
	case reflect.Float64:
		return "float"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Struct {
			return "array of tables"
		}
		return "array of " + tomlType(t.Elem())
	case reflect.Map:
		return "table"
	case reflect.Interface:
		return "any"
	}
	return t.String()
}

// tomlValue writes a Go value as TOML.
func tomlValue(v any) (string, error) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(map[string]any{"v": v}); err != nil {
		return "", err
	}
	return strings.TrimSpace(strings.TrimPrefix(buf.String(), "v = ")), nil
}

// isZero reports whether v is its type's zero, an empty list included.
func isZero(v reflect.Value) bool {
	return !v.IsValid() || v.IsZero() || (v.Kind() == reflect.Slice && v.Len() == 0)
}

// resolvedDefaults returns, by dotted key, the values that each config section's zero value
// holds once its Resolve method has filled the defaults (for the default choices of the
// section's other keys).
func resolvedDefaults(tb *schema.Table) (map[string]reflect.Value, error) {
	out := map[string]reflect.Value{}
	for _, f := range tb.Fields {
		if f.Kind != schema.KindTable {
			continue
		}
		p := reflect.New(f.Go.Type)
		r, ok := p.Interface().(interface{ Resolve() error })
		if !ok {
			continue
		}
		if err := r.Resolve(); err != nil {
			return nil, fmt.Errorf("[%s]: the zero value does not resolve: %w", f.Name, err)
		}
		f.Table.Walk(f.Name+".", p.Elem(), func(key string, v reflect.Value) { out[key] = v })
	}
	return out, nil
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
			if v, ok, err := c.constValue(src, m[1]); ok || err != nil {
				return v, err
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
	v, err := c.qualified(src, m[1], m[2])
	if err != nil {
		return "", err
	}
	if v == "" {
		return "", fmt.Errorf("the doc comment names %s, a constant package %s does not declare", m[0], src.path)
	}
	return v, nil
}

// qualified is the TOML value of constant name of package src, or of the package src imports
// as pkg (when pkg is not empty); "" if there is none.
func (c *collector) qualified(src *pkgSource, pkg, name string) (string, error) {
	p := src
	if pkg != "" {
		path, ok := src.imports[pkg]
		if !ok || !strings.HasPrefix(path, module) {
			return "", nil
		}
		var err error
		if p, err = c.source(path); err != nil {
			return "", err
		}
	}
	v, _, err := c.constValue(p, name)
	return v, err
}

// goWord is a Go identifier in a doc comment, with the package it is qualified by and a call's
// parentheses: "DefaultK()", "estimators.DefaultInit", "SplitFiles", "HeadMin".
var goWord = regexp.MustCompile(`\b(?:([a-z][a-z0-9]*)\.)?([A-Z][A-Za-z0-9]*)(\(\))?`)

// constantsOf matches "one of the X constants", which a config's author reads as the allowed
// names.
var constantsOf = regexp.MustCompile(`\b(?:one of )?the [A-Z][A-Za-z0-9]* constants\b`)

// words writes doc for a config's author: a constant of the settings' packages (a Default
// constant or function, an enum's name) as its TOML value, a field of the table tb by its key,
// and "the X constants" as the allowed names.
func (c *collector) words(src *pkgSource, tb *schema.Table, doc string) (string, error) {
	doc = strings.Join(strings.Fields(doc), " ")
	doc = constantsOf.ReplaceAllStringFunc(doc, func(m string) string {
		if strings.HasPrefix(m, "one of ") {
			return "one of the allowed names"
		}
		return "the allowed names"
	})
	var err error
	out := goWord.ReplaceAllStringFunc(doc, func(w string) string {
		m := goWord.FindStringSubmatch(w)
		pkg, name := m[1], m[2]
		if pkg == "" && tb != nil {
			if f := fieldNamed(tb, name); f != nil {
				return "`" + f.Name + "`"
			}
		}
		v, e := c.qualified(src, pkg, name)
		if e != nil {
			err = e
		}
		if v == "" || (pkg != "" && src.imports[pkg] == "") {
			return w
		}
		return v
	})
	return out, err
}

// fieldNamed is the field of tb whose Go name is name.
func fieldNamed(tb *schema.Table, name string) *schema.Field {
	for _, f := range tb.Fields {
		if f.Go.Name == name {
			return f
		}
	}
	return nil
}

// Constants lists the exported constants (and functions of no arguments returning one value)
// of the packages that declare the config's settings: the Go names a config's author cannot see.
func Constants(root string) ([]string, error) {
	c := &sources{root: root, src: map[string]*pkgSource{}}
	seen := map[string]bool{}
	var walk func(tb *schema.Table) error
	walk = func(tb *schema.Table) error {
		p, err := c.source(tb.Type.PkgPath())
		if err != nil {
			return err
		}
		for name := range p.consts {
			if name[0] >= 'A' && name[0] <= 'Z' {
				seen[name] = true
			}
		}
		for _, f := range tb.Fields {
			if f.Table != nil && f.Table != tb {
				if err := walk(f.Table); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(Schema()); err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(seen)), nil
}
