package docs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var (
	// mdLink matches an inline Markdown link or image: [text](target).
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// codeSpan matches an inline code span.
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	// heading matches an ATX heading.
	heading = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*#*\s*$`)
	// fileSpan matches a code span that reads as a file path of this
	// repository: a/b/name.ext with a known extension and no wildcard.
	fileSpan = regexp.MustCompile(`^(?:\./)?((?:[\w.-]+/)+[\w.-]+\.(?:go|sh|md|txtar|tmpl|json|jsonl|txt|svg|conf))$`)
)

// prose returns a Markdown file's text without its fenced code blocks, whose
// contents are code, not links.
func prose(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	fenced := false
	for line := range strings.Lines(string(data)) {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out.WriteString(line)
		}
	}
	return out.String()
}

// anchors returns the fragment ids of a Markdown file's headings, as GitHub
// makes them: lower case, punctuation dropped, spaces to hyphens, and -1, -2,
// ... for repeated ones.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	seen := map[string]int{}
	for _, m := range heading.FindAllStringSubmatch(prose(t, path), -1) {
		id := strings.Map(func(r rune) rune {
			switch {
			case r == ' ':
				return '-'
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				return unicode.ToLower(r)
			}
			return -1
		}, m[1])
		if n := seen[id]; n > 0 {
			ids[fmt.Sprintf("%s-%d", id, n)] = true
		} else {
			ids[id] = true
		}
		seen[id]++
	}
	return ids
}

// TestLinks checks the relative links of the README and docs/*.md: each
// names a file or directory of the repository, and a #fragment names a
// heading of its Markdown file. Code spans that read as a file path of the
// repository (a known extension, in a directory that exists) must name an
// existing file too: the README once sent readers to a test file that did
// not exist.
func TestLinks(t *testing.T) {
	n := 0
	for _, path := range markdownFiles(t) {
		text := prose(t, path)
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			n++
			file, frag, _ := strings.Cut(target, "#")
			resolved := path
			if file != "" {
				resolved = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
				if _, err := os.Stat(resolved); err != nil {
					t.Errorf("%s: link %q: %v", path, target, err)
					continue
				}
			}
			if frag != "" && strings.HasSuffix(resolved, ".md") && !anchors(t, resolved)[frag] {
				t.Errorf("%s: link %q: %s has no heading #%s", path, target, resolved, frag)
			}
		}
		for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
			f := fileSpan.FindStringSubmatch(m[1])
			if f == nil {
				continue
			}
			name := filepath.Join(repoRoot(t), filepath.FromSlash(f[1]))
			if _, err := os.Stat(filepath.Dir(name)); err != nil {
				continue // a path in the reader's module, like the walkthrough's cmd/weather-server/main.go
			}
			n++
			if _, err := os.Stat(name); err != nil {
				t.Errorf("%s: `%s` names no file of the repository", path, m[1])
			}
		}
	}
	if n < 20 {
		t.Errorf("checked %d links and paths, want at least 20: is the parser broken?", n)
	}
}
