package gen_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/mcpgen/mcpgen/gen"
)

var update = flag.Bool("update", false, "rewrite the want/ sections of testdata/golden/*.txtar")

// goldenDir holds one txtar per generator case.
const goldenDir = "../testdata/golden"

// A goldenCase is one txtar: inputs, expectations and the run's outcome.
type goldenCase struct {
	name string
	file string
	ar   *txtar.Archive
	dir  string // temporary module the inputs were written to
	res  *gen.Result
}

// TestGolden runs mcpgen on every case in testdata/golden and compares the
// generated files and diagnostics with the want/ sections. Cases that
// generate code are then compiled, vetted and round-tripped together (see
// build_test.go).
func TestGolden(t *testing.T) {
	root := moduleRoot(t)
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden cases in %s (err %v)", goldenDir, err)
	}
	base := t.TempDir()
	var mu sync.Mutex
	var generated []*goldenCase
	t.Run("cases", func(t *testing.T) {
		for _, file := range files {
			c := &goldenCase{name: strings.TrimSuffix(filepath.Base(file), ".txtar"), file: file}
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				c.run(t, root, base)
				if len(c.res.Files) > 0 {
					mu.Lock()
					generated = append(generated, c)
					mu.Unlock()
				}
			})
		}
	})
	if t.Failed() || *update {
		return
	}
	slices.SortFunc(generated, func(a, b *goldenCase) int { return strings.Compare(a.name, b.name) })
	t.Run("build", func(t *testing.T) { buildGenerated(t, root, generated) })
}

// run generates one case and compares the outcome with its want/ sections.
func (c *goldenCase) run(t *testing.T, root, base string) {
	ar, err := txtar.ParseFile(c.file)
	if err != nil {
		t.Fatal(err)
	}
	c.ar = ar
	c.dir = filepath.Join(base, c.name)
	writeInputs(t, c.dir, ar, root)
	cfg := caseConfig(t, ar.Comment)
	cfg.Dir = c.dir
	cfg.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	res, err := gen.Generate(context.Background(), cfg)
	if res == nil {
		res = &gen.Result{}
	}
	c.res = res
	got := c.outcome(res, err)
	if *update {
		c.rewrite(t, got)
		return
	}
	want := wantSections(ar)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: generated output mismatch (-want +got):\n%s\nrun go test ./gen -update to accept", c.file, diff)
	}
	metaValidate(t, res)
}

// caseConfig reads the mcpgen arguments from a line "mcpgen: ARGS" in the
// archive's comment; without one the case runs as "mcpgen ." would.
func caseConfig(t *testing.T, comment []byte) gen.Config {
	var cfg gen.Config
	for _, line := range strings.Split(string(comment), "\n") {
		args, ok := strings.CutPrefix(line, "mcpgen:")
		if !ok {
			continue
		}
		fields := strings.Fields(args)
		for i := 0; i < len(fields); i++ {
			switch fields[i] {
			case "-server":
				i++
				cfg.ServerDir = fields[i]
			case "-o":
				i++
				cfg.Output = fields[i]
			default:
				cfg.Patterns = append(cfg.Patterns, fields[i])
			}
		}
	}
	return cfg
}

// outcome renders what Generate produced as want/ sections: one per file
// (paths relative to the module), want/remove listing obsolete files and
// want/stderr for diagnostics or errors, with the temporary directory
// scrubbed.
func (c *goldenCase) outcome(res *gen.Result, err error) map[string]string {
	got := map[string]string{}
	for _, f := range res.Files {
		rel, _ := filepath.Rel(c.dir, f.Path)
		got["want/"+filepath.ToSlash(rel)] = string(f.Content)
	}
	if len(res.Remove) > 0 {
		var rm strings.Builder
		for _, path := range res.Remove {
			rel, _ := filepath.Rel(c.dir, path)
			fmt.Fprintln(&rm, filepath.ToSlash(rel))
		}
		got["want/remove"] = rm.String()
	}
	var stderr strings.Builder
	for _, d := range res.Diagnostics {
		if rel, err := filepath.Rel(c.dir, d.Pos.Filename); err == nil && d.Pos.Filename != "" {
			d.Pos.Filename = filepath.ToSlash(rel)
		}
		fmt.Fprintln(&stderr, c.scrub(d.String()))
	}
	if err != nil {
		fmt.Fprintf(&stderr, "error: %s\n", c.scrub(err.Error()))
	}
	if stderr.Len() > 0 {
		got["want/stderr"] = stderr.String()
	}
	return got
}

// scrub replaces the temporary directory in s by $WORK.
func (c *goldenCase) scrub(s string) string {
	return strings.ReplaceAll(s, c.dir, "$WORK")
}

// wantSections returns the want/ sections of ar.
func wantSections(ar *txtar.Archive) map[string]string {
	want := map[string]string{}
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "want/") {
			want[f.Name] = string(f.Data)
		}
	}
	return want
}

// rewrite replaces the want/ sections of the case with got, keeping the
// comment and the inputs as they are.
func (c *goldenCase) rewrite(t *testing.T, got map[string]string) {
	ar := &txtar.Archive{Comment: c.ar.Comment}
	for _, f := range c.ar.Files {
		if !strings.HasPrefix(f.Name, "want/") {
			ar.Files = append(ar.Files, f)
		}
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range got {
			if !yield(k) {
				return
			}
		}
	})
	for _, name := range names {
		ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(got[name])})
	}
	data := txtar.Format(ar)
	if old, err := os.ReadFile(c.file); err == nil && bytes.Equal(old, data) {
		return
	}
	if err := os.WriteFile(c.file, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeInputs writes the non-want files of ar into dir. go.mod gains a
// requirement on this module, replaced by its source at root, and root's
// go.sum, so the generated code resolves the runtime offline.
func writeInputs(t *testing.T, dir string, ar *txtar.Archive, root string) {
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "want/") {
			continue
		}
		data := f.Data
		if f.Name == "go.mod" {
			data = append(slices.Clone(data), requireRoot(t, root)...)
		}
		writeFile(t, filepath.Join(dir, f.Name), data)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "go.sum"), sum)
}

var requireLine = regexp.MustCompile(`(?m)^\t(\S+ v\S+)`)

// requireRoot returns go.mod lines requiring this module (replaced by root)
// and, as indirect, everything root requires.
func requireRoot(t *testing.T, root string) []byte {
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nrequire (\n")
	for _, m := range requireLine.FindAllSubmatch(mod, -1) {
		fmt.Fprintf(&b, "\t%s // indirect\n", m[1])
	}
	fmt.Fprintf(&b, ")\n\nreplace github.com/mcpgen/mcpgen => %s\n", root)
	return []byte(b.String())
}

// writeFile writes data to path, creating directories.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// moduleRoot finds the directory of this module's go.mod, walking up.
func moduleRoot(t *testing.T) string {
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(mod, []byte("module github.com/mcpgen/mcpgen\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("module root of github.com/mcpgen/mcpgen not found")
		}
		dir = parent
	}
}
