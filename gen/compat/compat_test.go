package compat_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/gen/compat"
)

var update = flag.Bool("update", false, "rewrite the want/report sections of testdata/*.txtar")

// TestGolden generates the old/ and new/ packages of each case, diffs their
// contracts and compares the report with want/report. The last line of a
// report says whether the change set is breaking.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases (err %v)", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			old := contractsOf(t, ar, dir, "old/")
			cur := contractsOf(t, ar, dir, "new/")
			changes, err := compat.Diff(old, cur)
			if err != nil {
				t.Fatal(err)
			}
			var sb strings.Builder
			for _, c := range changes {
				sb.WriteString(c.String() + "\n")
			}
			sb.WriteString(map[bool]string{true: "exit 1\n", false: "exit 0\n"}[compat.Breaking(changes)])
			got := sb.String()
			if *update {
				setSection(ar, "want/report", got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(section(ar, "want/report"), got); diff != "" {
				t.Errorf("%s: report mismatch (-want +got):\n%s", file, diff)
			}
		})
	}
}

// contractsOf writes the files under prefix as module example.com/p and
// returns the contracts mcpgen derives from them.
func contractsOf(t *testing.T, ar *txtar.Archive, base, prefix string) compat.Contracts {
	t.Helper()
	dir := filepath.Join(base, strings.TrimSuffix(prefix, "/"))
	files := map[string]string{"go.mod": "module example.com/p\n\ngo 1.26\n"}
	for _, f := range ar.Files {
		if name, ok := strings.CutPrefix(f.Name, prefix); ok {
			files[name] = string(f.Data)
		}
	}
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := gen.Generate(context.Background(), gen.Config{Dir: dir,
		Env: append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diagnostics) > 0 {
		t.Fatalf("%s: %v", prefix, res.Diagnostics)
	}
	return compat.FromProgram(res.Model)
}

// section returns the content of the named file of ar.
func section(ar *txtar.Archive, name string) string {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	return ""
}

// setSection replaces or appends the named file of ar.
func setSection(ar *txtar.Archive, name, data string) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = []byte(data)
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(data)})
}

// TestContractsRoundTrip checks that tools.json parses back to the same
// contracts and that an unknown key is refused.
func TestContractsRoundTrip(t *testing.T) {
	c := compat.Contracts{Tools: []compat.Contract{{Name: "a", InputSchema: []byte(`{"type":"object"}`)}}}
	data, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := compat.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if _, err := compat.Parse([]byte(`{"tool":[]}`)); err == nil {
		t.Error("Parse accepted an unknown key")
	}
}

// TestCheckoutRefusesOptions checks that a revision git would read as an
// option (or an empty one) is refused before git runs: the directory is not
// even a repository, so any git run would fail differently.
func TestCheckoutRefusesOptions(t *testing.T) {
	for _, rev := range []string{"", "-", "--output=leak.tar", "-h", "--remote=ext::sh"} {
		if _, _, err := compat.Checkout(context.Background(), t.TempDir(), rev); !errors.Is(err, compat.ErrBadRevision) {
			t.Errorf("Checkout(%q): got %v, want ErrBadRevision", rev, err)
		}
	}
}
