package gen

import (
	"go/ast"
	"strings"
	"unicode"
	"unicode/utf8"
)

// docDescription is the description of a handler: its doc comment without
// directives and, unless Config.VerbatimDocs, without the Go identifier that
// Go style puts first. "ListIssues lists the issues." becomes "Lists the
// issues.": a model reads what the tool does, not the Go name. The text stays
// as written when the identifier is followed by a word that is not a verb in
// the third person (Greeting is a prompt..., Search finds... loses Search).
func (a *analyzer) docDescription(d *ast.FuncDecl) string {
	text := strings.TrimSpace(d.Doc.Text())
	if a.cfg.VerbatimDocs {
		return text
	}
	return dropIdent(text, d.Name.Name)
}

// dropIdent drops ident from the start of text when a verb follows it.
func dropIdent(text, ident string) string {
	rest, ok := strings.CutPrefix(text, ident+" ")
	if !ok {
		return text
	}
	word, _, _ := strings.Cut(rest, " ")
	word = strings.TrimRight(word, ".,;:")
	r, _ := utf8.DecodeRuneInString(word)
	if !unicode.IsLower(r) || !strings.HasSuffix(word, "s") || len(word) < 3 || strings.HasSuffix(word, "ss") {
		return text
	}
	switch word {
	case "is", "has", "was", "does", "its", "this", "as", "us", "yes", "plus", "thus", "always", "sometimes", "perhaps":
		return text
	}
	first, size := utf8.DecodeRuneInString(rest)
	return string(unicode.ToUpper(first)) + rest[size:]
}
