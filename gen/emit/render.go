package emit

import (
	"bytes"
	"fmt"
	"go/format"
	"slices"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
)

// Formatting dominates the cost of emitting a large package, and most of a
// generated file is schema JSON in raw string literals, which gofmt copies
// verbatim. So the schemas are emitted as placeholder identifiers, the file
// is formatted without them, and the literals are put back afterwards: the
// result is byte for byte what formatting the whole file gives (the literals
// stand alone on the right of top-level var declarations, where their size
// decides no layout).

// rawPrefix starts every placeholder; an index and an underscore follow.
const rawPrefix = "mcpgenRawJSONLiteral"

// rawLits collects the raw string literals a file defers; nil defers none.
type rawLits struct {
	lits []string
}

// lit is the raw string literal `s`, or its placeholder.
func (r *rawLits) lit(s string) jen.Code {
	if r == nil {
		return jen.Id("`" + s + "`")
	}
	r.lits = append(r.lits, s)
	return jen.Id(rawPrefix + strconv.Itoa(len(r.lits)-1) + "_")
}

// fill replaces the placeholders in the formatted src with their literals.
// It reports false when src does not hold exactly the placeholders in order
// (a string of the user's spelled one): the caller then formats the file
// with the literals in place.
func (r *rawLits) fill(src []byte) ([]byte, bool) {
	if r == nil || len(r.lits) == 0 {
		return src, bytes.Count(src, []byte(rawPrefix)) == 0
	}
	if bytes.Count(src, []byte(rawPrefix)) != len(r.lits) {
		return nil, false
	}
	n := len(src)
	for _, l := range r.lits {
		n += len(l) + 2
	}
	out := make([]byte, 0, n)
	rest := src
	for i, l := range r.lits {
		ph := rawPrefix + strconv.Itoa(i) + "_"
		j := bytes.Index(rest, []byte(ph))
		if j < 0 {
			return nil, false
		}
		out = append(out, rest[:j]...)
		out = append(out, '`')
		out = append(out, l...)
		out = append(out, '`')
		rest = rest[j+len(ph):]
	}
	return append(out, rest...), true
}

// render formats f in memory, grouping the imports as goimports does
// (standard library first, then a blank line and the others), and fills in
// the deferred literals of r.
func render(f *jen.File, r *rawLits) ([]byte, bool, error) {
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, false, fmt.Errorf("render: %w", err)
	}
	out, err := format.Source(groupImports(buf.Bytes()))
	if err != nil {
		return nil, false, fmt.Errorf("format generated source: %w\n%s", err, numbered(buf.Bytes()))
	}
	out, ok := r.fill(out)
	return out, ok, nil
}

// groupImports rewrites the import block jennifer writes (one spec a line,
// sorted by path) in goimports' order: by group (standard library, then
// paths whose first element has a dot, then appengine), then path, then
// name, with a blank line between groups. gofmt keeps that order.
func groupImports(src []byte) []byte {
	const open = "\nimport (\n"
	i := bytes.Index(src, []byte(open))
	if i < 0 {
		return src // no block: one import or none
	}
	start := i + len(open)
	end := bytes.Index(src[start:], []byte("\n)\n"))
	if end < 0 {
		return src
	}
	end += start
	type spec struct {
		group      int
		path, name string
		line       string
	}
	var specs []spec
	for line := range strings.SplitSeq(string(src[start:end]), "\n") {
		name, quoted, found := strings.Cut(line, " ")
		if !found {
			name, quoted = "", line
		}
		path, err := strconv.Unquote(quoted)
		if err != nil {
			return src // not jennifer's layout: leave it to gofmt
		}
		specs = append(specs, spec{importGroup(path), path, name, line})
	}
	slices.SortStableFunc(specs, func(a, b spec) int {
		if a.group != b.group {
			return a.group - b.group
		}
		if c := strings.Compare(a.path, b.path); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]byte, 0, len(src)+8)
	out = append(out, src[:start]...)
	for k, s := range specs {
		if k > 0 {
			out = append(out, '\n')
			if s.group != specs[k-1].group {
				out = append(out, '\n')
			}
		}
		out = append(out, s.line...)
	}
	return append(out, src[end:]...)
}

// importGroup is goimports' group of an import path (without a local
// prefix): 0 for the standard library, 2 for appengine, 1 for the rest.
func importGroup(path string) int {
	switch first, _, _ := strings.Cut(path, "/"); {
	case strings.HasPrefix(path, "appengine"):
		return 2
	case strings.Contains(first, "."):
		return 1
	}
	return 0
}
