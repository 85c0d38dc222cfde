// Package testfigures keeps the figures docs/reliability.md quotes true: each
// is one a test logs, and that test checks the page quotes it.
package testfigures

import (
	"os"
	"strings"
	"testing"
)

// Check fails t unless the row of the Markdown table at doc whose first cell is
// row quotes figure.
func Check(t testing.TB, doc, row, figure string) {
	t.Helper()
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, "| "+row+" |") {
			if !strings.Contains(line, figure) {
				t.Errorf("%s, row %q, must quote %q (the count changed: update the row)", doc, row, figure)
			}
			return
		}
	}
	t.Errorf("%s has no row %q", doc, row)
}
