package schema

import (
	"bytes"
	"flag"
	"fmt"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/invopop/jsonschema"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the want/ sections of testdata/*.txtar")

// TestGolden runs each testdata/*.txtar case: p.go is the package (other
// .go sections, e.g. sub/sub.go, are packages it may import), roots
// lists "input T" or "output T" lines, and want/ holds the expected schemas
// (want/input/T.json, want/output/T.json), diagnostics (want/diags) and
// defaults (want/defaults). Every schema produced is meta-validated.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			runGolden(t, file)
		})
	}
}

func runGolden(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string][]byte{}
	for _, f := range ar.Files {
		sections[f.Name] = f.Data
	}
	goFiles := map[string]string{}
	for name, data := range sections {
		if strings.HasSuffix(name, ".go") && !strings.HasPrefix(name, "want/") {
			goFiles[name] = string(data)
		}
	}
	p := loadFiles(t, goFiles)
	got := map[string][]byte{}
	var diags, defaults bytes.Buffer
	for line := range strings.Lines(string(sections["roots"])) {
		dir, name, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		s, ds, defs := p.build(t, dir, name)
		js, err := Marshal(s)
		if err != nil {
			t.Fatalf("%s %s: marshal: %v", dir, name, err)
		}
		if len(ds) == 0 {
			if err := metaValidateJSON(js); err != nil {
				t.Errorf("%s %s: schema fails the 2020-12 metaschema: %v", dir, name, err)
			}
			got["want/"+dir+"/"+name+".json"] = append(js, '\n')
		}
		for _, d := range ds {
			fmt.Fprintf(&diags, "%s %s: %s\n", dir, name, p.scrub(d.String()))
		}
		for _, d := range defs {
			fmt.Fprintf(&defaults, "%s %s: %s %s = %s\n", dir, name, strings.Join(d.Path, "."), typeString(d.Type), d.JSON)
		}
	}
	if diags.Len() > 0 {
		got["want/diags"] = diags.Bytes()
	}
	if defaults.Len() > 0 {
		got["want/defaults"] = defaults.Bytes()
	}
	if *update {
		writeGolden(t, file, ar, got)
		return
	}
	for name := range sections {
		if strings.HasPrefix(name, "want/") {
			if _, ok := got[name]; !ok {
				t.Errorf("%s: want section, got nothing", name)
			}
		}
	}
	for name, data := range got {
		if diff := cmp.Diff(string(sections[name]), string(data)); diff != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
		}
	}
}

// build runs the builder for one root.
func (p *testPkg) build(t *testing.T, dir, name string) (s *jsonschema.Schema, ds []Diagnostic, defs []Default) {
	base := strings.TrimPrefix(name, "*")
	typ := p.lookup(t, base)
	if base != name {
		typ = types.NewPointer(typ)
	}
	pos := p.pkg.Types.Scope().Lookup(base).Pos()
	switch dir {
	case "input":
		s, defs, ds := p.b.Input(typ, pos)
		return s, ds, defs
	case "output":
		s, ds := p.b.Output(typ, pos)
		return s, ds, nil
	}
	t.Fatalf("bad root direction %q", dir)
	return nil, nil, nil
}

// scrub removes the temporary directory from positions.
func (p *testPkg) scrub(s string) string {
	return strings.ReplaceAll(s, p.dir+string(filepath.Separator), "")
}

func writeGolden(t *testing.T, file string, ar *txtar.Archive, got map[string][]byte) {
	var files []txtar.File
	for _, f := range ar.Files {
		if !strings.HasPrefix(f.Name, "want/") {
			files = append(files, f)
		}
	}
	for line := range strings.Lines(string(sectionOf(ar, "roots"))) {
		dir, name, _ := strings.Cut(strings.TrimSpace(line), " ")
		key := "want/" + dir + "/" + name + ".json"
		if data, ok := got[key]; ok {
			files = append(files, txtar.File{Name: key, Data: data})
		}
	}
	for _, key := range []string{"want/defaults", "want/diags"} {
		if data, ok := got[key]; ok {
			files = append(files, txtar.File{Name: key, Data: data})
		}
	}
	ar.Files = files
	if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sectionOf(ar *txtar.Archive, name string) []byte {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

// metaValidateJSON compiles a schema with santhosh-tekuri/jsonschema, which
// validates it against the 2020-12 metaschema first.
func metaValidateJSON(js []byte) error {
	doc, err := sjs.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return err
	}
	return metaValidate(doc)
}
