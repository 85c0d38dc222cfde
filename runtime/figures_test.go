package runtime

import (
	"os"
	"strings"
	"testing"
)

// checkReliabilityFigure fails t unless the row of docs/reliability.md whose
// first cell is row quotes figure: each figure there is one a test logs, and
// the test keeps it true.
func checkReliabilityFigure(t *testing.T, row, figure string) {
	t.Helper()
	doc, err := os.ReadFile("../docs/reliability.md")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(doc)) {
		if strings.HasPrefix(line, "| "+row+" |") {
			if !strings.Contains(line, figure) {
				t.Errorf("docs/reliability.md, row %q, must quote %q (the count changed: update the row)", row, figure)
			}
			return
		}
	}
	t.Errorf("docs/reliability.md has no row %q", row)
}

// CheckReliabilityFigure is checkReliabilityFigure for the external tests.
var CheckReliabilityFigure = checkReliabilityFigure
