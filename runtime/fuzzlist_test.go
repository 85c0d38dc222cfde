package runtime

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestFuzzTargetsListed checks that scripts/fuzz.sh, which CI runs, lists every
// fuzz target of the repository and nothing else.
func TestFuzzTargetsListed(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	funcRE := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(\w+ \*testing\.F\)`)
	var inCode []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, m := range funcRE.FindAllSubmatch(src, -1) {
			inCode = append(inCode, "./"+filepath.ToSlash(rel)+":"+string(m[1]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(root, "scripts", "fuzz.sh"))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^\s+(\./\S+:Fuzz\w+)\s*$`).FindAllSubmatch(script, -1) {
		listed = append(listed, string(m[1]))
	}
	slices.Sort(inCode)
	slices.Sort(listed)
	if len(inCode) == 0 || !slices.Equal(inCode, listed) {
		t.Errorf("scripts/fuzz.sh lists\n  %s\nthe code has\n  %s", strings.Join(listed, "\n  "), strings.Join(inCode, "\n  "))
	}
	checkReliabilityFigure(t, "Fuzzing", fmt.Sprintf("%d targets", len(inCode)))
}

// TestFuzzSeedsFigure logs the number of committed seed inputs of each
// runtime fuzz target, the figure docs/reliability.md quotes.
func TestFuzzSeedsFigure(t *testing.T) {
	dirs, err := os.ReadDir("testdata/fuzz")
	if err != nil {
		t.Fatal(err)
	}
	var counts []string
	for _, d := range dirs {
		seeds, err := os.ReadDir(filepath.Join("testdata/fuzz", d.Name()))
		if err != nil {
			t.Fatal(err)
		}
		counts = append(counts, fmt.Sprintf("%s %d", d.Name(), len(seeds)))
	}
	figure := "seed inputs under `runtime/testdata/fuzz`: " + strings.Join(counts, ", ")
	t.Log(figure)
	checkReliabilityFigure(t, "Fuzzing", figure)
}
