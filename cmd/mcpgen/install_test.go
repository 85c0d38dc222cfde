package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// installEnv gives the test a fresh home and configuration directory and a
// server main directory; it returns the main's directory.
func installEnv(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("APPDATA", filepath.Join(home, "AppData"))
	dir := filepath.Join(t.TempDir(), "weather-server")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// install runs mcpgen install args and returns the exit status and stderr.
func install(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runInstall(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// readConfig decodes a client's file into plain values.
func readConfig(t *testing.T, c clientSpec, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if c.yaml {
		err = yaml.Unmarshal(data, &doc)
	} else {
		err = json.Unmarshal(data, &doc)
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return doc
}

// existing is a file holding another server and another top-level setting.
func existing(c clientSpec) string {
	if c.yaml {
		return "# my goose settings\nGOOSE_PROVIDER: anthropic\nextensions:\n  developer:\n    enabled: true\n    name: developer\n    type: builtin\n"
	}
	return `{"theme": "dark", "` + c.key + `": {"other": {"command": "/bin/other", "args": ["-x"]}}}`
}

// TestInstallEachClient: for every client, a fresh file gets the entry; an
// existing file keeps its other servers and settings and is backed up; a second
// run changes nothing; the entry has the client's shape.
func TestInstallEachClient(t *testing.T) {
	for _, c := range installClients {
		t.Run(c.name, func(t *testing.T) {
			dir := installEnv(t)
			path, err := c.user()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(path, os.Getenv("HOME")) {
				t.Fatalf("%s's file %s is not under the test's home", c.name, path)
			}
			// Fresh file.
			code, _, stderr := install(t, c.name, dir)
			if code != 0 || !strings.Contains(stderr, "added weather-server") {
				t.Fatalf("fresh: exit %d, stderr %q", code, stderr)
			}
			doc := readConfig(t, c, path)
			servers, _ := doc[c.key].(map[string]any)
			entry, _ := servers["weather-server"].(map[string]any)
			cmd, args := entry["command"], entry["args"]
			if c.yaml {
				cmd = entry["cmd"]
			}
			wantArgs := []any{"run", "-C", dir, "."}
			if s, _ := cmd.(string); !filepath.IsAbs(s) || !strings.HasPrefix(filepath.Base(s), "go") {
				t.Errorf("fresh: command %v, want the absolute path of go", cmd)
			}
			if b1, b2 := mustMarshal(t, args), mustMarshal(t, wantArgs); b1 != b2 {
				t.Errorf("fresh: args %s, want %s", b1, b2)
			}
			if _, err := os.Stat(path + ".bak"); err == nil {
				t.Errorf("fresh: a backup was written with no previous file")
			}
			// Second run: nothing changes, no backup.
			before, _ := os.ReadFile(path)
			code, _, stderr = install(t, c.name, dir)
			after, _ := os.ReadFile(path)
			if code != 0 || !strings.Contains(stderr, "nothing changed") || !bytes.Equal(before, after) {
				t.Errorf("second run: exit %d, stderr %q, file changed %v", code, stderr, !bytes.Equal(before, after))
			}
			if _, err := os.Stat(path + ".bak"); err == nil {
				t.Errorf("second run wrote a backup")
			}
			// Existing file with another server: kept, and backed up.
			old := existing(c)
			if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, 0o600); err != nil {
				t.Fatal(err)
			}
			code, _, stderr = install(t, c.name, dir)
			if code != 0 || !strings.Contains(stderr, ".bak") {
				t.Fatalf("existing: exit %d, stderr %q", code, stderr)
			}
			if bak, _ := os.ReadFile(path + ".bak"); string(bak) != old {
				t.Errorf("backup holds %q, want the previous file %q", bak, old)
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("existing: mode %v (%v), want the previous file's 0600", fi.Mode().Perm(), err)
			}
			doc = readConfig(t, c, path)
			servers, _ = doc[c.key].(map[string]any)
			if _, ok := servers["weather-server"]; !ok {
				t.Errorf("existing: no weather-server in %v", servers)
			}
			other := "other"
			if c.yaml {
				other = "developer"
				if doc["GOOSE_PROVIDER"] != "anthropic" {
					t.Errorf("existing: GOOSE_PROVIDER lost: %v", doc)
				}
				if data, _ := os.ReadFile(path); !strings.HasPrefix(string(data), "# my goose settings\n") {
					t.Errorf("existing: the comment is lost:\n%s", data)
				}
			} else if doc["theme"] != "dark" {
				t.Errorf("existing: theme lost: %v", doc)
			}
			if _, ok := servers[other]; !ok {
				t.Errorf("existing: the server %s is lost: %v", other, servers)
			}
			before, _ = os.ReadFile(path)
			if code, _, stderr := install(t, c.name, dir); code != 0 || !strings.Contains(stderr, "nothing changed") {
				t.Errorf("second run on the existing file: exit %d, stderr %q", code, stderr)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Errorf("second run changed the existing file")
			}
		})
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInstallURL: an HTTP server gets each client's URL member; Claude
// Desktop refuses one; a URL needs -name.
func TestInstallURL(t *testing.T) {
	installEnv(t)
	const u = "http://127.0.0.1:8080/mcp"
	want := map[string]string{"claude-code": "url", "cursor": "url", "vscode": "url", "gemini": "httpUrl", "goose": "uri"}
	for _, c := range installClients {
		code, _, stderr := install(t, "-name", "weather", c.name, u)
		if c.name == "claude-desktop" {
			if code != 1 || !strings.Contains(stderr, "Connectors") {
				t.Errorf("claude-desktop URL: exit %d, stderr %q; want 1 naming Connectors", code, stderr)
			}
			continue
		}
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		path, _ := c.user()
		servers, _ := readConfig(t, c, path)[c.key].(map[string]any)
		entry, _ := servers["weather"].(map[string]any)
		if entry[want[c.name]] != u {
			t.Errorf("%s: entry %v, want %s=%s", c.name, entry, want[c.name], u)
		}
	}
	if code, _, stderr := install(t, "cursor", u); code != 2 || !strings.Contains(stderr, "-name") {
		t.Errorf("URL without -name: exit %d, stderr %q", code, stderr)
	}
}

// TestInstallOptions: -dry-run writes nothing, -scope project writes the
// project file, an edited entry is updated, VS Code's comments are accepted,
// bad arguments are usage errors.
func TestInstallOptions(t *testing.T) {
	dir := installEnv(t)
	code, stdout, stderr := install(t, "-dry-run", "vscode", dir)
	path, _ := installClients[3].user()
	if code != 0 || !strings.Contains(stdout, `"servers"`) || !strings.Contains(stderr, path) {
		t.Errorf("-dry-run: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("-dry-run wrote %s", path)
	}

	proj := t.TempDir()
	t.Chdir(proj)
	if code, _, stderr := install(t, "-scope", "project", "cursor", dir); code != 0 {
		t.Fatalf("-scope project: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(proj, ".cursor", "mcp.json")); err != nil {
		t.Errorf("-scope project: %v", err)
	}
	if code, _, stderr := install(t, "-scope", "project", "goose", dir); code != 2 || !strings.Contains(stderr, "-scope user") {
		t.Errorf("goose -scope project: exit %d, stderr %q", code, stderr)
	}

	// VS Code's file may hold comments and trailing commas.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	jsonc := "{\n  // my servers\n  \"servers\": {\n    \"weather-server\": {\"type\": \"stdio\", \"command\": \"/old/go\", \"args\": [],},\n  },\n  \"inputs\": [],\n}\n"
	if err := os.WriteFile(path, []byte(jsonc), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := install(t, "vscode", dir); code != 0 || !strings.Contains(stderr, "updated weather-server") {
		t.Errorf("vscode with comments: exit %d, stderr %q", code, stderr)
	}
	doc := readConfig(t, installClients[3], path)
	if _, ok := doc["inputs"]; !ok {
		t.Errorf("vscode: inputs lost: %v", doc)
	}

	for _, args := range [][]string{{"emacs", dir}, {"cursor"}, {"cursor", filepath.Join(dir, "missing")}, {"-scope", "team", "cursor", dir}} {
		if code, _, _ := install(t, args...); code != 2 {
			t.Errorf("install %q: exit %d, want 2", args, code)
		}
	}
	// A file that is not JSON is left alone.
	cpath, _ := installClients[2].user()
	os.MkdirAll(filepath.Dir(cpath), 0o755)
	os.WriteFile(cpath, []byte("not json"), 0o644)
	if code, _, stderr := install(t, "cursor", dir); code != 1 || !strings.Contains(stderr, "not valid JSON") {
		t.Errorf("broken file: exit %d, stderr %q", code, stderr)
	}
	if b, _ := os.ReadFile(cpath); string(b) != "not json" {
		t.Errorf("broken file rewritten: %q", b)
	}
}
