package files

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/mcpgentest"
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// secret is the contents of a file next to the served directory; no request
// may read it.
const secret = "TOP-SECRET-OUTSIDE-THE-ROOT"

// TestMain serves a temporary tree: dir/root is the root, dir/secret.txt
// lies outside it, and root/escape is a symbolic link to it.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "files-example-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := 2
	if err := tree(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		os.Setenv(RootEnv, filepath.Join(dir, "root"))
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// tree writes the test files under dir.
func tree(dir string) error {
	files := map[string]string{
		"secret.txt":           secret,
		"root/docs/guide.md":   "# Guide\n",
		"root/docs/notes.txt":  "notes\n",
		"root/docs/deep/x.txt": "deep\n",
		"root/a b.txt":         "spaced\n",
		"root/ünï.txt":         "unicode\n",
		"root/bin.dat":         "\xff\x00\x01",
		"root/.hidden":         "hidden\n",
		"root/.git/config":     "[core]\n",
	}
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			return err
		}
	}
	if runtime.GOOS == "windows" {
		return nil
	}
	if err := os.Symlink(filepath.Join(dir, "secret.txt"), filepath.Join(dir, "root", "escape")); err != nil {
		return err
	}
	if err := os.Symlink("../../secret.txt", filepath.Join(dir, "root", "docs", "up")); err != nil {
		return err
	}
	return os.Symlink("guide.md", filepath.Join(dir, "root", "docs", "link.md"))
}

// newServer returns the files server as the generated main builds it.
func newServer() *mcpruntime.Server {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "files", Version: "test"},
		&mcpruntime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	RegisterMCP(s)
	return s
}

// read returns the contents of uri in era, or the error the server answered
// with, which must be the era's not-found error with data.uri.
func read(t *testing.T, s *mcpruntime.Server, uri string, era string) ([]mcpgentest.ResourceContents, *mcpgentest.Error) {
	t.Helper()
	got, rerr := mcpgentest.ReadResource(t, s, uri, mcpgentest.Version(era))
	for _, c := range got {
		if strings.Contains(c.Text, secret) || strings.Contains(string(c.Blob), secret) {
			t.Errorf("read %s: the response holds the secret outside the root: %+v", uri, c)
		}
	}
	if rerr != nil {
		want := map[string]int{mcpgentest.Modern: -32602, mcpgentest.Legacy: -32002}[era]
		var data struct{ URI string }
		_ = json.Unmarshal(rerr.Data, &data)
		if rerr.Code != want || data.URI != uri || strings.Contains(rerr.Message, secret) {
			t.Errorf("read %s: got %v (data %s), want not found (%d with data.uri)", uri, rerr, rerr.Data, want)
		}
	}
	return got, rerr
}

// eras are the protocol eras each read runs in.
var eras = []string{mcpgentest.Modern, mcpgentest.Legacy}

func TestReadFiles(t *testing.T) {
	s := newServer()
	tests := []struct{ uri, text, blob, mime string }{
		{uri: "file:///docs/guide.md", text: "# Guide\n", mime: "text/markdown"},
		{uri: "file:///docs/deep/x.txt", text: "deep\n", mime: "text/plain"},
		{uri: "file:///a%20b.txt", text: "spaced\n", mime: "text/plain"},
		{uri: "file:///%C3%BCn%C3%AF.txt", text: "unicode\n", mime: "text/plain"},
		{uri: "file:///bin.dat", blob: "\xff\x00\x01", mime: "application/octet-stream"},
	}
	if runtime.GOOS != "windows" {
		tests = append(tests, struct{ uri, text, blob, mime string }{uri: "file:///docs/link.md", text: "# Guide\n", mime: "text/markdown"})
	}
	for _, era := range eras {
		for _, tt := range tests {
			got, rerr := read(t, s, tt.uri, era)
			if rerr != nil || len(got) != 1 {
				t.Errorf("%s: read %s: %v %v", era, tt.uri, rerr, got)
				continue
			}
			c := got[0]
			if c.URI != tt.uri || c.Text != tt.text || string(c.Blob) != tt.blob || !strings.HasPrefix(c.MIMEType, tt.mime) {
				t.Errorf("%s: read %s: got %+v, want text %q blob %q mime %s", era, tt.uri, c, tt.text, tt.blob, tt.mime)
			}
		}
	}
}

// TestPathEscapes is the files example's bad-input matrix: every attempt to
// leave the root, or to name a file in a form a file server should not
// take, is "not found", and no response holds the secret next to the root.
func TestPathEscapes(t *testing.T) {
	s := newServer()
	for _, uri := range []string{
		"file:///../secret.txt",
		"file:///docs/../../secret.txt",
		"file:///docs/../guide.md", // not clean, even inside the root
		"file:///./docs/guide.md",
		"file:///%2e%2e/secret.txt",           // encoded dots are not ".." (nor canonical)
		"file:///%2E%2E/secret.txt",           // upper-case too
		"file:///..%2Fsecret.txt",             // an encoded slash is not canonical in {+path}
		"file:///%2Fetc%2Fpasswd",             // absolute, encoded
		"file:////etc/passwd",                 // absolute
		"file:////" + secretPath(t),           // the secret by its absolute path
		"file:///docs%5C..%5C..%5Csecret.txt", // backslashes
		"file:///..\\secret.txt",
		"file:///docs/guide.md%00.txt", // NUL
		"file:///docs/guide.md%00",
		"file:///docs//guide.md",
		"file:///docs/",
		"file:///docs",    // a directory
		"file:///",        // empty
		"file:///escape",  // symlink to the secret
		"file:///docs/up", // relative symlink out of the root
		"file:///missing.txt",
		"file:///C:/secret.txt",
		"file:///%252e%252e/secret.txt",
		"file:///.hidden", // hidden entries are never served (.env, .git/config)
		"file:///.git/config",
		"dir:///.git",
	} {
		for _, era := range eras {
			if got, rerr := read(t, s, uri, era); rerr == nil {
				t.Errorf("%s: read %s: got %v, want not found", era, uri, got)
			}
		}
	}
}

// secretPath is the absolute path of the secret, without its leading slash.
func secretPath(t *testing.T) string {
	return strings.TrimPrefix(filepath.ToSlash(filepath.Join(filepath.Dir(os.Getenv(RootEnv)), "secret.txt")), "/")
}

func TestCompletePaths(t *testing.T) {
	s := newServer()
	tests := []struct {
		value string
		want  []string
	}{
		{"", []string{"a b.txt", "bin.dat", "docs/", "escape", "ünï.txt"}},
		{"d", []string{"docs/"}},
		{"docs/", []string{"docs/deep/", "docs/guide.md", "docs/link.md", "docs/notes.txt", "docs/up"}},
		{"docs/g", []string{"docs/guide.md"}},
		{"docs/deep/", []string{"docs/deep/x.txt"}},
		{".", []string{}}, // hidden entries are never suggested
		{".git/", []string{}},
		{"../", []string{}},
		{"/etc/", []string{}},
		{"docs/../", []string{}},
		{"nope/", []string{}},
	}
	if runtime.GOOS == "windows" {
		t.Skip("the tree has symbolic links only off Windows")
	}
	for _, tt := range tests {
		raw, rerr := mcpgentest.Call(t, s, "completion/complete", map[string]any{
			"ref":      map[string]any{"type": "ref/resource", "uri": "file:///{+path}"},
			"argument": map[string]any{"name": "path", "value": tt.value}})
		var res struct{ Completion struct{ Values []string } }
		if rerr != nil || json.Unmarshal(raw, &res) != nil {
			t.Fatalf("complete %q: %s %v", tt.value, raw, rerr)
		}
		if got := res.Completion.Values; !slices.Equal(got, tt.want) {
			t.Errorf("complete %q: got %q, want %q (%s)", tt.value, got, tt.want, raw)
		}
	}
}

func TestListDirs(t *testing.T) {
	s := newServer()
	tests := []struct{ uri, want string }{
		{"dir://", "a b.txt\nbin.dat\ndocs/\nescape\nünï.txt\n"},
		{"dir:///", "a b.txt\nbin.dat\ndocs/\nescape\nünï.txt\n"},
		{"dir:///docs", "deep/\nguide.md\nlink.md\nnotes.txt\nup\n"},
		{"dir:///docs/deep", "x.txt\n"},
		{"dir:///docs?limit=2", "deep/\nguide.md\n"},
		{"dir://?limit=0", ""},
	}
	if runtime.GOOS == "windows" {
		t.Skip("the tree has symbolic links only off Windows")
	}
	for _, tt := range tests {
		got, rerr := read(t, s, tt.uri, mcpgentest.Modern)
		if rerr != nil || len(got) != 1 || got[0].Text != tt.want {
			t.Errorf("read %s: got %v %v, want %q", tt.uri, got, rerr, tt.want)
		}
	}
	for _, uri := range []string{
		"dir:///..", "dir:///docs/../..", "dir:///%2e%2e", "dir:///..%2F..", "dir:///docs%2F..%2F..",
		"dir:///docs/up", "dir:///escape", "dir:///a%5C..", "dir:///a%00", "dir:///docs?limit=x",
		"dir:///docs?limit=-1%00", "dir:///nope", "dir:///docs/guide.md",
	} {
		for _, era := range eras {
			if got, rerr := read(t, s, uri, era); rerr == nil {
				t.Errorf("%s: read %s: got %v, want not found", era, uri, got)
			}
		}
	}
}
