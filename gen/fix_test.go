package gen_test

import (
	"bytes"
	"context"
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/mcpgen/mcpgen/gen"
)

// fixDir holds one txtar per -fix case: the inputs, a comment line
// "mcpgen: -fix [-tags DIALECT]", and want/FILE for every file -fix rewrites.
const fixDir = "../testdata/fix"

// TestFix runs mcpgen -fix on every case in testdata/fix and compares the
// rewritten sources with the want/ sections. Each rewritten file must be
// gofmt-clean, and generating from the rewritten sources in mcpgen's own
// convention must give, byte for byte, the files that -tags gave from the
// originals: the rewrite keeps every description, enum and required.
func TestFix(t *testing.T) {
	root := moduleRoot(t)
	files, err := filepath.Glob(filepath.Join(fixDir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no -fix cases in %s (err %v)", fixDir, err)
	}
	base := t.TempDir()
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runFixCase(t, root, filepath.Join(base, name), file)
		})
	}
}

func runFixCase(t *testing.T, root, dir, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	writeInputs(t, dir, ar, root)
	cfg := caseConfig(t, ar.Comment)
	if !strings.Contains(string(ar.Comment), "mcpgen: -fix") {
		t.Fatalf("%s: the comment has no line \"mcpgen: -fix [-tags DIALECT]\"", file)
	}
	fixCfg := cfg
	cfg.Fix = false
	cfg.Dir = dir
	cfg.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")

	// What -tags reads from the originals (nothing to compare without -tags).
	var before *gen.Result
	if cfg.Tags != "" {
		before, err = gen.Generate(context.Background(), cfg)
		if err != nil || len(before.Diagnostics) > 0 {
			t.Fatalf("-tags=%s on the originals: err %v, diagnostics %v", cfg.Tags, err, before.Diagnostics)
		}
	}

	fixCfg.Dir, fixCfg.Env = cfg.Dir, cfg.Env
	res, err := gen.Generate(context.Background(), fixCfg)
	if err != nil || len(res.Diagnostics) > 0 {
		t.Fatalf("-fix: err %v, diagnostics %v", err, res.Diagnostics)
	}
	got := map[string]string{}
	for _, f := range res.Fixed {
		rel, _ := filepath.Rel(dir, f.Path)
		got["want/"+filepath.ToSlash(rel)] = string(f.Content)
		if formatted, err := format.Source(f.Content); err != nil || !bytes.Equal(formatted, f.Content) {
			t.Errorf("%s: not gofmt-clean (err %v)", rel, err)
		}
		writeFile(t, f.Path, f.Content)
	}
	if *update {
		c := &goldenCase{file: file, ar: ar}
		c.rewrite(t, got)
		return
	}
	if diff := cmp.Diff(wantSections(ar), got); diff != "" {
		t.Errorf("%s: -fix output mismatch (-want +got):\n%s\nrun go test ./gen -run TestFix -update to accept", file, diff)
	}

	// The rewritten sources, in mcpgen's own convention.
	cfg.Tags = ""
	after, err := gen.Generate(context.Background(), cfg)
	if err != nil || len(after.Diagnostics) > 0 {
		t.Fatalf("generating after -fix: err %v, diagnostics %v", err, after.Diagnostics)
	}
	if before == nil {
		return
	}
	if len(before.Files) != len(after.Files) {
		t.Fatalf("-tags gave %d files, mcpgen after -fix %d", len(before.Files), len(after.Files))
	}
	for i := range before.Files {
		if diff := cmp.Diff(string(before.Files[i].Content), string(after.Files[i].Content)); diff != "" {
			t.Errorf("%s: generated from the originals with -tags=%s and from the rewrite differ (-tags +fix):\n%s", before.Files[i].Path, fixCfg.Tags, diff)
		}
	}
}
