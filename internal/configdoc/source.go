package configdoc

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// module is the module path; a package's directory is its import path below it, relative to the
// repository root.
const module = "github.com/samplingbias/workbench"

// pkgSource is what the reference reads from one package's source.
type pkgSource struct {
	path    string
	structs map[string]*ast.TypeSpec // by type name
	types   map[string]string        // a type's doc comment
	consts  map[string]ast.Expr      // a constant's value expression, or what a function of no arguments returns
	imports map[string]string        // import name -> path
}

// sources reads the packages' sources once each.
type sources struct {
	root string
	src  map[string]*pkgSource
}

// source parses the non-test files of the module's package path.
func (c *sources) source(path string) (*pkgSource, error) {
	if s, ok := c.src[path]; ok {
		return s, nil
	}
	rel, ok := strings.CutPrefix(path, module)
	if !ok {
		return nil, fmt.Errorf("package %s is outside the module", path)
	}
	dir := filepath.Join(c.root, filepath.FromSlash(strings.TrimPrefix(rel, "/")))
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

// constValue writes the value of constant name of package p as TOML: a literal as it is
// written (a string in double quotes), another constant by its value; ok is false when p
// declares no such constant (or function of no arguments returning one value).
func (c *sources) constValue(p *pkgSource, name string) (string, bool, error) {
	e, ok := p.consts[name]
	if !ok {
		return "", false, nil
	}
	v, err := c.exprValue(p, e)
	return v, err == nil, err
}

// exprValue writes a constant expression of package p as TOML: a constant by its value, an
// arithmetic expression evaluated (1 << 20 is 1048576), a composite literal as a list.
func (c *sources) exprValue(p *pkgSource, e ast.Expr) (string, error) {
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
		if e.Name != "true" && e.Name != "false" {
			v, ok, err := c.constValue(p, e.Name)
			if !ok && err == nil {
				err = fmt.Errorf("package %s declares no constant %s", p.path, e.Name)
			}
			return v, err
		}
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			if path, ok := p.imports[x.Name]; ok {
				q, err := c.source(path)
				if err != nil {
					return "", err
				}
				v, ok, err := c.constValue(q, e.Sel.Name)
				if !ok && err == nil {
					err = fmt.Errorf("package %s declares no constant %s", q.path, e.Sel.Name)
				}
				return v, err
			}
		}
	case *ast.CallExpr: // a typed constant, Kind("x")
		if len(e.Args) == 1 {
			return c.exprValue(p, e.Args[0])
		}
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
	if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return "", err
		}
		return strconv.Quote(s), nil
	}
	return b.String(), nil
}
