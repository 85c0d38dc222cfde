package files

import (
	"context"
	"encoding/base64"
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

// call sends one 2026-07-28 request and returns its raw response.
func call(t *testing.T, s *mcpruntime.Server, method string, params map[string]any) string {
	t.Helper()
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	raw, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	return string(s.HandleRaw(context.Background(), raw, nil, nil).Body)
}

// read returns the contents of uri, or the error of the response.
func read(t *testing.T, s *mcpruntime.Server, uri string) (contents []map[string]string, errMsg string) {
	t.Helper()
	var resp struct {
		Result struct{ Contents []map[string]string }
		Error  *struct {
			Code int
			Data struct{ URI string }
		}
	}
	body := call(t, s, "resources/read", map[string]any{"uri": uri})
	if err := json.Unmarshal([]byte(body), &resp); err != nil {
		t.Fatalf("read %s: %v in %s", uri, err, body)
	}
	if strings.Contains(body, secret) || strings.Contains(body, base64.StdEncoding.EncodeToString([]byte(secret))) {
		t.Errorf("read %s: the response holds the secret outside the root: %s", uri, body)
	}
	if resp.Error != nil {
		if resp.Error.Code != -32602 || resp.Error.Data.URI != uri {
			t.Errorf("read %s: got %s, want not found (-32602 with data.uri)", uri, body)
		}
		return nil, body
	}
	return resp.Result.Contents, ""
}

func TestReadFiles(t *testing.T) {
	s := newServer()
	tests := []struct{ uri, text, blob, mime string }{
		{uri: "file:///docs/guide.md", text: "# Guide\n", mime: "text/markdown"},
		{uri: "file:///docs/deep/x.txt", text: "deep\n", mime: "text/plain"},
		{uri: "file:///a%20b.txt", text: "spaced\n", mime: "text/plain"},
		{uri: "file:///%C3%BCn%C3%AF.txt", text: "unicode\n", mime: "text/plain"},
		{uri: "file:///bin.dat", blob: base64.StdEncoding.EncodeToString([]byte("\xff\x00\x01")), mime: "application/octet-stream"},
	}
	if runtime.GOOS != "windows" {
		tests = append(tests, struct{ uri, text, blob, mime string }{uri: "file:///docs/link.md", text: "# Guide\n", mime: "text/markdown"})
	}
	for _, tt := range tests {
		got, errMsg := read(t, s, tt.uri)
		if errMsg != "" || len(got) != 1 {
			t.Errorf("read %s: %s %v", tt.uri, errMsg, got)
			continue
		}
		c := got[0]
		if c["uri"] != tt.uri || c["text"] != tt.text || c["blob"] != tt.blob || !strings.HasPrefix(c["mimeType"], tt.mime) {
			t.Errorf("read %s: got %v, want text %q blob %q mime %s", tt.uri, c, tt.text, tt.blob, tt.mime)
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
		if got, errMsg := read(t, s, uri); errMsg == "" {
			t.Errorf("read %s: got %v, want not found", uri, got)
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
		body := call(t, s, "completion/complete", map[string]any{
			"ref":      map[string]any{"type": "ref/resource", "uri": "file:///{+path}"},
			"argument": map[string]any{"name": "path", "value": tt.value}})
		var resp struct {
			Result struct{ Completion struct{ Values []string } }
		}
		if err := json.Unmarshal([]byte(body), &resp); err != nil {
			t.Fatal(err)
		}
		if got := resp.Result.Completion.Values; !slices.Equal(got, tt.want) {
			t.Errorf("complete %q: got %q, want %q (%s)", tt.value, got, tt.want, body)
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
		got, errMsg := read(t, s, tt.uri)
		if errMsg != "" || len(got) != 1 || got[0]["text"] != tt.want {
			t.Errorf("read %s: got %v %s, want %q", tt.uri, got, errMsg, tt.want)
		}
	}
	for _, uri := range []string{
		"dir:///..", "dir:///docs/../..", "dir:///%2e%2e", "dir:///..%2F..", "dir:///docs%2F..%2F..",
		"dir:///docs/up", "dir:///escape", "dir:///a%5C..", "dir:///a%00", "dir:///docs?limit=x",
		"dir:///docs?limit=-1%00", "dir:///nope", "dir:///docs/guide.md",
	} {
		if got, errMsg := read(t, s, uri); errMsg == "" {
			t.Errorf("read %s: got %v, want not found", uri, got)
		}
	}
}
