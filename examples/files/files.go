// Package files is a small read-only file server over one directory: the
// resource template file:///{+path} reads the file at path under the root,
// completion suggests paths from what the user typed, and dir://{/path*}{?limit}
// lists a directory.
//
// The root is $FILES_ROOT (the working directory when unset), opened once as
// an os.Root: resourcefs.ReadFileInRoot refuses names that could leave it
// ("..", absolute paths, backslashes, NUL and other control characters), and
// os.Root keeps symbolic links from leading out of it. The template only
// matches canonically encoded URIs, so file:///%2e%2e/x is not found either.
// Hidden entries (a path segment starting with '.': .env, .git/config, .ssh)
// are never served, listed or suggested: they are where secrets live.
//
// The registration code in mcp_gen.go and the server in cmd/files-server are
// generated: run go generate in this directory after changing a handler.
package files

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen -server ./cmd/files-server

import (
	"context"
	"fmt"
	"io/fs"
	"mime"
	"os"
	"path"
	"strings"
	"sync"
	"unicode/utf8"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/resourcefs"
)

// RootEnv names the environment variable holding the directory served.
const RootEnv = "FILES_ROOT"

// MaxFileSize is the largest file File reads, in bytes.
const MaxFileSize = 4 << 20

// root is the served directory, opened on first use.
var root = sync.OnceValues(func() (*os.Root, error) {
	dir := os.Getenv(RootEnv)
	if dir == "" {
		dir = "."
	}
	return os.OpenRoot(dir)
})

// File is a file of the served directory by its slash-separated path, e.g.
// file:///docs/guide.md: text for UTF-8 contents, a blob otherwise. Paths
// that could leave the directory are not found.
//
//mcp:resource file:///{+path} name=file title="File"
//mcp:complete path CompletePath
func File(ctx context.Context, path string) (mcpruntime.ResourceContents, error) {
	r, err := root()
	if err != nil {
		return mcpruntime.ResourceContents{}, err
	}
	if hidden(path) {
		return mcpruntime.ResourceContents{}, fmt.Errorf("%w: hidden entries are not served", mcpruntime.ErrResourceNotFound)
	}
	data, err := resourcefs.ReadFileInRoot(r, path, MaxFileSize)
	if err != nil {
		return mcpruntime.ResourceContents{}, err
	}
	c := mcpruntime.ResourceContents{MIMEType: mimeType(path, data)}
	if utf8.Valid(data) {
		c.Text = string(data)
	} else {
		c.Blob = data
	}
	return c, nil
}

// Dir lists a directory of the served tree, one entry a line, directories
// with a trailing "/", hidden entries left out: dir:///docs/deep lists
// docs/deep, dir:/// the root, and dir:///docs?limit=10 at most ten entries.
//
//mcp:resource dir://{/path*}{?limit} name=dir title="Directory listing" mime=text/plain
func Dir(ctx context.Context, path []string, limit *int) (string, error) {
	r, err := root()
	if err != nil {
		return "", err
	}
	name := strings.Join(path, "/")
	for _, seg := range path {
		if strings.Contains(seg, "/") {
			return "", fmt.Errorf("%w: %q", resourcefs.ErrUnsafePath, seg)
		}
	}
	if hidden(name) {
		return "", fmt.Errorf("%w: hidden entries are not listed", mcpruntime.ErrResourceNotFound)
	}
	if name == "" {
		name = "."
	} else if err := resourcefs.LocalPath(name); err != nil {
		return "", err
	}
	entries, err := fs.ReadDir(r.FS(), name)
	if err != nil {
		return "", fmt.Errorf("%w: %v", mcpruntime.ErrResourceNotFound, err)
	}
	var b strings.Builder
	n := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if limit != nil && n == *limit {
			break
		}
		b.WriteString(e.Name())
		if e.IsDir() {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
		n++
	}
	return b.String(), nil
}

// mimeType guesses a file's media type from its extension and contents.
func mimeType(name string, data []byte) string {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	if utf8.Valid(data) {
		return "text/plain; charset=utf-8"
	}
	return "application/octet-stream"
}

// hidden reports whether a slash-separated path names a hidden entry or
// something inside one (a segment starting with '.').
func hidden(p string) bool {
	for seg := range strings.SplitSeq(p, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

// CompletePath suggests the entries of the directory the typed prefix is in
// whose names start with the rest of it, directories with a trailing "/";
// never hidden entries.
func CompletePath(ctx context.Context, prefix string) ([]string, error) {
	r, err := root()
	if err != nil {
		return nil, err
	}
	dir, base := "", prefix
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		dir, base = prefix[:i], prefix[i+1:]
		if resourcefs.LocalPath(dir) != nil || hidden(dir) {
			return []string{}, nil
		}
	}
	list := dir
	if list == "" {
		list = "."
	}
	entries, err := fs.ReadDir(r.FS(), list)
	if err != nil {
		return []string{}, nil
	}
	out := []string{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || strings.HasPrefix(name, ".") {
			continue
		}
		if dir != "" {
			name = dir + "/" + name
		}
		if e.IsDir() {
			name += "/"
		}
		out = append(out, name)
	}
	return out, nil
}
