package docs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// verb matches a fmt verb in a diagnostic format.
var verb = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)

// minFragment is the shortest fixed text that identifies a diagnostic;
// formats with less ("%s: %s") pass on a message built elsewhere.
const minFragment = 12

// diagnosticFormats returns, for every diagnostic the generator can print,
// the longest fixed text of its format, with the file that declares it. A
// diagnostic is a call of a method named errorf, a Diagnostic composite
// literal whose Msg is fmt.Sprintf(format, ...) or a string literal, an
// argError (a problem in a directive's arguments), or a message returned by
// a checker: a literal returned as the last result, of type string, of a
// function whose name says it checks (check*, *Problem, *Shape, set*, scan*).
func diagnosticFormats(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir("../gen", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lits := formatLiterals(n)
			if fd, ok := n.(*ast.FuncDecl); ok && checker(fd) {
				lits = append(lits, returnedLiterals(fd)...)
			}
			for _, lit := range lits {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					if frag := fragment(s); len(frag) >= minFragment {
						out[frag] = fset.Position(lit.Pos()).String()
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// formatLiterals returns the format string literals of a diagnostic node.
func formatLiterals(n ast.Node) []*ast.BasicLit {
	switch n := n.(type) {
	case *ast.CallExpr:
		if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "errorf" && len(n.Args) > 0 {
			return stringLits(n.Args[len(n.Args)-1], n.Args)
		}
	case *ast.CompositeLit:
		if id, ok := n.Type.(*ast.Ident); ok && id.Name == "argError" && len(n.Elts) == 2 {
			return stringLits(n.Elts[1], nil)
		}
		if id, ok := n.Type.(*ast.Ident); ok && id.Name == "Diagnostic" {
			for _, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok && isIdent(kv.Key, "Msg") {
					return stringLits(kv.Value, nil)
				}
			}
		}
	}
	return nil
}

// stringLits finds the format among args (the first string literal) or in v
// (a literal, or fmt.Sprintf's first argument).
func stringLits(v ast.Expr, args []ast.Expr) []*ast.BasicLit {
	for _, a := range args {
		if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			return []*ast.BasicLit{lit}
		}
	}
	switch v := v.(type) {
	case *ast.BasicLit:
		if v.Kind == token.STRING {
			return []*ast.BasicLit{v}
		}
	case *ast.CallExpr:
		if len(v.Args) > 0 {
			return stringLits(v.Args[0], nil)
		}
	}
	return nil
}

// checkerName matches the functions that return a problem as a string.
var checkerName = regexp.MustCompile(`^(check|set|scan|restrict|use)|Problem$|Shape$|Param$`)

// checker reports whether fd returns a problem description as its last,
// string, result.
func checker(fd *ast.FuncDecl) bool {
	res := fd.Type.Results
	if res == nil || len(res.List) == 0 || !checkerName.MatchString(fd.Name.Name) {
		return false
	}
	return isIdent(res.List[len(res.List)-1].Type, "string")
}

// returnedLiterals returns the string literals fd returns as its last result.
func returnedLiterals(fd *ast.FuncDecl) []*ast.BasicLit {
	var lits []*ast.BasicLit
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if r, ok := n.(*ast.ReturnStmt); ok && len(r.Results) > 0 {
			lits = append(lits, stringLits(r.Results[len(r.Results)-1], nil)...)
		}
		return true
	})
	return lits
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// fragment is the longest run of fixed text in format, trimmed of the
// punctuation that joins it to the variable parts.
func fragment(format string) string {
	var best string
	for _, part := range verb.Split(format, -1) {
		part = strings.Trim(part, " :;,.()\"'`")
		if len(part) > len(best) {
			best = part
		}
	}
	return best
}

// TestEveryDiagnosticIsDocumented fails when a diagnostic of the generator
// has no entry in troubleshooting.md: add one (its fixed text, and the fix).
func TestEveryDiagnosticIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("troubleshooting.md")
	if err != nil {
		t.Fatal(err)
	}
	text := normalize(string(doc))
	formats := diagnosticFormats(t)
	if len(formats) < 50 {
		t.Fatalf("found %d diagnostic formats in ../gen, want at least 50: is the extraction broken?", len(formats))
	}
	var missing []string
	for frag, pos := range formats {
		if !strings.Contains(text, normalize(frag)) {
			missing = append(missing, pos+": "+frag)
		}
	}
	slices.Sort(missing)
	for _, m := range missing {
		t.Errorf("troubleshooting.md does not document the diagnostic at %s", m)
	}
}

// normalize undoes Markdown escaping and joins lines, so a message may be
// quoted in a table cell or wrapped.
func normalize(s string) string {
	s = strings.NewReplacer(`\|`, "|", "`", "", `\\`, `\`, `\*`, "*", `\_`, "_").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

func TestFragment(t *testing.T) {
	for format, want := range map[string]string{
		"%s: missing description: write a doc comment": "missing description: write a doc comment",
		"minItems=%d is below the array length %d":     "is below the array length",
		"%s: %s": "",
	} {
		if got := fragment(format); got != want {
			t.Errorf("fragment(%q) = %q, want %q", format, got, want)
		}
	}
}
