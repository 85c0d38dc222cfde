package runtime

import (
	"testing"

	"github.com/mcpgen/mcpgen/internal/testfigures"
)

// checkReliabilityFigure fails t unless the row of docs/reliability.md whose
// first cell is row quotes figure (internal/testfigures).
func checkReliabilityFigure(t *testing.T, row, figure string) {
	t.Helper()
	testfigures.Check(t, "../docs/reliability.md", row, figure)
}

// CheckReliabilityFigure is checkReliabilityFigure for the external tests.
var CheckReliabilityFigure = checkReliabilityFigure
