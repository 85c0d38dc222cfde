package runtime_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const modulePath = "github.com/mcpgen/mcpgen"

// layoutRules reads DESIGN.md's "Runtime layout" table: each package (module
// relative) with the imports it may have (module-relative paths, "stdlib", and
// third-party paths; a trailing "/*" allows every package below).
func layoutRules(t *testing.T, design []byte) map[string][]string {
	t.Helper()
	_, section, ok := bytes.Cut(design, []byte("## Runtime layout"))
	if !ok {
		t.Fatal(`DESIGN.md has no "## Runtime layout" section`)
	}
	if i := bytes.Index(section, []byte("\n## ")); i >= 0 {
		section = section[:i]
	}
	tick := regexp.MustCompile("`([^`]+)`")
	rules := map[string][]string{}
	for _, line := range strings.Split(string(section), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		pkg := strings.Trim(strings.TrimSpace(cells[1]), "`")
		var may []string
		for _, item := range strings.Split(cells[3], ",") {
			item = strings.TrimSpace(item)
			if item == "stdlib" {
				may = append(may, item)
			} else if m := tick.FindStringSubmatch(item); m != nil {
				may = append(may, m[1])
			}
		}
		rules[pkg] = may
	}
	if len(rules) < 5 {
		t.Fatalf("only %d rows in DESIGN.md's layout table", len(rules))
	}
	return rules
}

// allowed reports whether rule (an entry of "may import") admits path (module
// relative for this module's packages).
func allowed(rule, path string, std bool) bool {
	switch {
	case rule == "stdlib":
		return std
	case strings.HasSuffix(rule, "/*"):
		return strings.HasPrefix(path, strings.TrimSuffix(rule, "*"))
	}
	return rule == path
}

type listedPackage struct {
	ImportPath string
	Standard   bool
	Imports    []string
	Deps       []string
}

// goList runs go list -deps -json on patterns from the module root.
func goList(t *testing.T, root string, patterns ...string) map[string]*listedPackage {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps", "-json"}, patterns...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	pkgs := map[string]*listedPackage{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs[p.ImportPath] = &p
	}
	return pkgs
}

// TestRuntimeLayout checks the import rules of DESIGN.md's layout table against
// go list: every package under runtime/ has a row and imports only what its
// row allows, and the runtime package depends on the standard library and this
// module alone.
func TestRuntimeLayout(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	design, err := os.ReadFile(filepath.Join(root, "DESIGN.md"))
	if err != nil {
		t.Fatal(err)
	}
	rules := layoutRules(t, design)
	pkgs := goList(t, root, "./runtime/...")
	rel := func(path string) string {
		if path == modulePath {
			return "."
		}
		return strings.TrimPrefix(path, modulePath+"/")
	}
	checked := 0
	for path, p := range pkgs {
		name := rel(path)
		if name == path || !(name == "runtime" || strings.HasPrefix(name, "runtime/")) {
			continue // not a package of runtime/
		}
		may, ok := rules[name]
		if !ok {
			t.Errorf("package %s has no row in DESIGN.md's layout table", name)
			continue
		}
		checked++
		for _, imp := range p.Imports {
			dep := pkgs[imp]
			std := dep != nil && dep.Standard
			ok := false
			for _, rule := range may {
				ok = ok || allowed(rule, rel(imp), std)
			}
			if !ok {
				t.Errorf("%s imports %s, which DESIGN.md's layout table does not allow (may import: %s)", name, rel(imp), strings.Join(may, ", "))
			}
		}
	}
	if checked < 5 {
		t.Fatalf("checked only %d packages", checked)
	}
	for _, dep := range pkgs[modulePath+"/runtime"].Deps {
		if d := pkgs[dep]; d != nil && !d.Standard && !strings.HasPrefix(dep, modulePath+"/") {
			t.Errorf("the runtime package depends on %s, outside the standard library and this module", dep)
		}
	}
}

func TestLayoutRuleMatching(t *testing.T) {
	for _, c := range []struct {
		rule, path string
		std, want  bool
	}{
		{"stdlib", "net/http", true, true},
		{"stdlib", "runtime/internal/jsonwire", false, false},
		{"runtime/internal/*", "runtime/internal/jsonwire", false, true},
		{"runtime/internal/*", "runtime/internalx", false, false},
		{"runtime/internal/*", "runtime", false, false},
		{"runtime/internal/jsonwire", "runtime/internal/jsonwire", false, true},
		{"runtime/internal/jsonwire", "runtime/internal/jsonrpc", false, false},
	} {
		if got := allowed(c.rule, c.path, c.std); got != c.want {
			t.Errorf("allowed(%q, %q, %v) = %v, want %v", c.rule, c.path, c.std, got, c.want)
		}
	}
}

// notInCore are the packages the runtime package must not depend on: the
// extensions built on its public API (docs/extensions.md) and their
// machinery. A server that registers none of them does not link them.
var notInCore = []string{"runtime/tasks", "runtime/internal/tasks", "runtime/apps", "runtime/otel"}

// TestRuntimeCoreDeps: go list -deps ./runtime lists none of notInCore.
func TestRuntimeCoreDeps(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := goList(t, root, "./runtime")
	core := pkgs[modulePath+"/runtime"]
	if core == nil || len(core.Deps) == 0 {
		t.Fatal("go list found no dependencies of the runtime package")
	}
	for _, dep := range core.Deps {
		for _, ext := range notInCore {
			if dep == modulePath+"/"+ext {
				t.Errorf("the runtime package depends on %s, an extension outside the core", ext)
			}
		}
	}
}
