package gen

import (
	"fmt"
	"go/ast"
	"go/token"
	"strconv"
	"strings"
	"unicode"
)

// directivePrefix starts every mcpgen directive; like //go: directives it has
// no space after the slashes.
const directivePrefix = "//mcp:"

// A directive is one //mcp:WORD line.
type directive struct {
	word string    // "tool", "constructor", ...
	args string    // the rest of the line
	pos  token.Pos // start of the comment
	off  int       // offset of args within the comment text
}

// directives returns the //mcp: directives of a doc comment.
func directives(doc *ast.CommentGroup) []directive {
	if doc == nil {
		return nil
	}
	var ds []directive
	for _, c := range doc.List {
		rest, ok := strings.CutPrefix(c.Text, directivePrefix)
		if !ok {
			continue
		}
		word, args, _ := strings.Cut(rest, " ")
		off := len(directivePrefix) + len(word) + 1
		ds = append(ds, directive{word: word, args: args, pos: c.Slash, off: off})
	}
	return ds
}

// spacedDirective reports the position of a "// mcp:" line, a directive
// made inert by the space after the slashes, or token.NoPos.
func spacedDirective(doc *ast.CommentGroup) token.Pos {
	if doc == nil {
		return token.NoPos
	}
	for _, c := range doc.List {
		if strings.HasPrefix(c.Text, "// mcp:tool") || strings.HasPrefix(c.Text, "// mcp:constructor") {
			return c.Slash
		}
	}
	return token.NoPos
}

// A toolSpec is the parsed argument list of //mcp:tool.
type toolSpec struct {
	name                                         string // empty: derived from the function name
	title                                        string
	readOnly, destructive, idempotent, openWorld bool
	stated                                       map[string]bool // hint flags written in the directive, with or without a value
	strict                                       string          // "", "none" or "openai"
	task                                         string          // "", "optional" or "required"
	input                                        string          // input=FILE.json, relative to the package directory
	inputOff                                     int             // offset of the input argument within args
	auth                                         authSpec
	reconcile                                    string // reconcile=FUNC: looks up a lapsed write's outcome
	reconcileOff                                 int    // offset of the reconcile argument within args
	ui                                           string // ui=FILE.html or ui=ui://...: the tool's view
	uiOff                                        int    // offset of the ui argument within args
	visibility                                   string // visibility=model|app|"model app"
	visibilityOff                                int    // offset of the visibility argument within args
}

// A token of a directive's arguments.
type argToken struct {
	key, val string // key=val, or key alone with val == "" and !hasVal
	hasVal   bool
	off      int // byte offset within the directive's args
}

// An argError is a problem at an offset within a directive's arguments.
type argError struct {
	off int
	msg string
}

// parseToolArgs parses the arguments of //mcp:tool, reporting every problem.
func parseToolArgs(args string) (toolSpec, []argError) {
	toks, errs := tokenize(args)
	var spec toolSpec
	seen := map[string]bool{}
	for i, t := range toks {
		key := t.key
		if !t.hasVal && i == 0 && !isFlag(key) {
			key, t.val, t.hasVal = "name", t.key, true
		}
		if seen[key] {
			errs = append(errs, argError{t.off, fmt.Sprintf("duplicate argument %q", key)})
			continue
		}
		seen[key] = true
		if err := spec.set(key, t); err != "" {
			errs = append(errs, argError{t.off, err})
		}
	}
	return spec, errs
}

// isFlag reports whether word is one of the annotation flags.
func isFlag(word string) bool {
	switch word {
	case "readonly", "destructive", "idempotent", "openworld":
		return true
	}
	return false
}

// toolArgsUsage lists the accepted arguments, for error messages.
const toolArgsUsage = `want [NAME] [title="..."] [readonly] [destructive[=false]] [idempotent[=false]] [openworld[=false]] [strict=openai|none] [task=optional|required] [input=FILE.json] [scope="..."] [confirm="..."] [reconcile=FUNC] [ui=FILE.html|ui://...] [visibility=model|app]`

// setStrict records strict=openai|none, returning a message for another value.
func (s *toolSpec) setStrict(t argToken) string {
	if t.val != "openai" && t.val != "none" {
		return fmt.Sprintf("strict must be openai or none, got %q", t.val)
	}
	s.strict = t.val
	return ""
}

// setTask records task=optional|required, returning a message for another value.
func (s *toolSpec) setTask(t argToken) string {
	if !t.hasVal {
		return "task needs a value: task=optional|required"
	}
	if t.val != "optional" && t.val != "required" {
		return fmt.Sprintf("task must be optional or required, got %q", t.val)
	}
	s.task = t.val
	return ""
}

// set records one argument, returning a message for an invalid one.
func (s *toolSpec) set(key string, t argToken) string {
	if isFlag(key) {
		on := true
		if t.hasVal {
			switch t.val {
			case "true":
			case "false":
				on = false
			default:
				return fmt.Sprintf("flag %s takes no value, or =true or =false, got %q", key, t.val)
			}
		}
		if s.stated == nil {
			s.stated = map[string]bool{}
		}
		s.stated[key] = true
		switch key {
		case "readonly":
			s.readOnly = on
		case "destructive":
			s.destructive = on
		case "idempotent":
			s.idempotent = on
		case "openworld":
			s.openWorld = on
		}
		return ""
	}
	switch {
	case key == "name" && t.hasVal:
		s.name = t.val
	case key == "title" && t.hasVal:
		s.title = t.val
	case key == "strict":
		return s.setStrict(t)
	case key == "task":
		return s.setTask(t)
	case key == "input" && t.hasVal && t.val != "":
		s.input, s.inputOff = t.val, t.off
	case key == "scope" || key == "confirm":
		return s.auth.set(key, t)
	case key == "reconcile" && t.hasVal && t.val != "":
		s.reconcile, s.reconcileOff = t.val, t.off
	case key == "ui" && t.hasVal && t.val != "":
		s.ui, s.uiOff = t.val, t.off
	case key == "visibility" && t.hasVal && t.val != "":
		s.visibility, s.visibilityOff = t.val, t.off
	case key == "name" || key == "title" || key == "input" || key == "reconcile" || key == "ui" || key == "visibility":
		return fmt.Sprintf("%s needs a value: %s=\"...\"", key, key)
	default:
		return fmt.Sprintf("unknown argument %q (%s)", t.key, toolArgsUsage)
	}
	return ""
}

// tokenize splits directive arguments into words and key=value pairs, where a
// value is a bare word or a Go double-quoted string.
func tokenize(s string) ([]argToken, []argError) {
	var toks []argToken
	var errs []argError
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			return toks, errs
		}
		t, next, err := scanToken(s, i)
		if err != "" {
			errs = append(errs, argError{i, err})
		} else {
			toks = append(toks, t)
		}
		i = next
	}
}

// scanToken scans the token starting at s[i] and returns it with the offset
// after it.
func scanToken(s string, i int) (argToken, int, string) {
	start := i
	for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '=' && s[i] != '"' {
		i++
	}
	t := argToken{key: s[start:i], off: start}
	if i < len(s) && s[i] == '"' {
		return t, skipWord(s, i), "unexpected quote: quoted values are written key=\"...\""
	}
	if i >= len(s) || s[i] != '=' {
		return t, i, ""
	}
	if t.key == "" {
		return t, skipWord(s, i), "missing key before ="
	}
	t.hasVal = true
	i++
	if i < len(s) && s[i] == '"' {
		return scanQuoted(s, i, t)
	}
	j := i
	for j < len(s) && s[j] != ' ' && s[j] != '\t' {
		j++
	}
	t.val = s[i:j]
	return t, j, ""
}

// scanQuoted scans the Go string literal starting at s[i] into t.val.
func scanQuoted(s string, i int, t argToken) (argToken, int, string) {
	j := i + 1
	for j < len(s) && s[j] != '"' {
		if s[j] == '\\' {
			j++
		}
		j++
	}
	if j >= len(s) {
		return t, len(s), fmt.Sprintf("unterminated quoted value for %s", t.key)
	}
	v, err := strconv.Unquote(s[i : j+1])
	if err != nil {
		return t, j + 1, fmt.Sprintf("bad quoted value for %s: %s", t.key, s[i:j+1])
	}
	if j+1 < len(s) && s[j+1] != ' ' && s[j+1] != '\t' {
		return t, skipWord(s, j+1), fmt.Sprintf("missing space after quoted value for %s", t.key)
	}
	t.val = v
	return t, j + 1, ""
}

// skipWord returns the offset of the next blank at or after i.
func skipWord(s string, i int) int {
	for i < len(s) && s[i] != ' ' && s[i] != '\t' {
		i++
	}
	return i
}

// snakeCase converts a Go identifier to snake_case: SearchNotes -> search_notes,
// HTTPServer -> http_server, GetURLForID -> get_url_for_id.
func snakeCase(name string) string {
	rs := []rune(name)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// maxToolName is the longest tool name the spec recommends.
const maxToolName = 128

// checkToolName returns a message when name breaks the spec's tool-name rules
// (1-128 characters of A-Z a-z 0-9 _ - .), or "".
func checkToolName(name string) string {
	if name == "" || len(name) > maxToolName {
		return fmt.Sprintf("tool name %q must be 1 to %d characters long", name, maxToolName)
	}
	for _, r := range name {
		ok := r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.')
		if !ok {
			return fmt.Sprintf("tool name %q contains %q: only A-Z a-z 0-9 _ - . are allowed", name, r)
		}
	}
	return ""
}
