// Package resourcefs reads files named by resource URIs under a root directory
// safely: LocalPath checks a name taken from a URI variable, OpenInRoot and
// ReadFileInRoot read through an os.Root so that neither the name nor a
// symbolic link leaves the root. Every refusal is "not found" for a
// ResourceHandler (it wraps runtime.ErrResourceNotFound).
package resourcefs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/mcpgen/mcpgen/runtime"
)

// ErrUnsafePath reports a file name from a URI that could leave the root it
// is read under, or that a file server should not take: empty, absolute,
// with a ".." or "." element, an empty element, a backslash, a NUL or
// another control character. It wraps runtime.ErrResourceNotFound, so a
// ResourceHandler returning it answers "not found".
var ErrUnsafePath = fmt.Errorf("%w: unsafe path", runtime.ErrResourceNotFound)

// LocalPath checks name, a slash-separated relative path taken from a URI
// variable such as the {+path} of file:///{+path}, before it names a file
// under a root directory. It returns an error wrapping ErrUnsafePath (and so
// runtime.ErrResourceNotFound) unless name is non-empty, relative, already clean
// (no "." or ".." elements, no empty elements, no trailing slash), free of
// backslashes and control characters, and local on this system
// (filepath.IsLocal: no Windows volume or reserved name).
//
// LocalPath only looks at the text; OpenInRoot and ReadFileInRoot add
// os.Root, which also keeps symbolic links from leading out of the root.
func LocalPath(name string) error {
	bad := func(why string) error { return fmt.Errorf("%w %q: %s", ErrUnsafePath, name, why) }
	switch {
	case name == "":
		return bad("empty")
	case strings.HasPrefix(name, "/"):
		return bad("absolute")
	case strings.ContainsRune(name, '\\'):
		return bad("backslash")
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return bad("control character")
	case path.Clean(name) != name || name == "." || name == ".." || strings.HasPrefix(name, "../"):
		return bad("not a clean relative path")
	case !filepath.IsLocal(filepath.FromSlash(name)):
		return bad("not local")
	}
	return nil
}

// OpenInRoot opens the regular file name (a slash-separated path from a URI,
// checked with LocalPath) under root for reading. The root is an *os.Root
// (os.OpenRoot), so neither "..", an absolute path nor a symbolic link can
// lead outside it. Every failure (a name that fails LocalPath, does not
// exist, leaves the root, cannot be opened, or is not a regular file: a
// directory, device or pipe) gives an error wrapping runtime.ErrResourceNotFound, so
// a client cannot tell a file outside the root from a missing one.
func OpenInRoot(root *os.Root, name string) (*os.File, error) {
	if err := LocalPath(name); err != nil {
		return nil, err
	}
	notFound := func(err error) error { return fmt.Errorf("%w: %s: %v", runtime.ErrResourceNotFound, name, err) }
	// Stat first, so that opening never blocks on a pipe or a device.
	st, err := root.Stat(name)
	switch {
	case err != nil:
		return nil, notFound(err)
	case !st.Mode().IsRegular():
		return nil, notFound(errors.New("not a regular file"))
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, notFound(err)
	}
	if st2, err := f.Stat(); err != nil || !st2.Mode().IsRegular() || !os.SameFile(st, st2) {
		f.Close()
		return nil, notFound(errors.New("changed while opening"))
	}
	return f, nil
}

// ReadFileInRoot reads the regular file name under root as OpenInRoot opens
// it, refusing (with an error, not runtime.ErrResourceNotFound) a file larger than
// limit bytes; limit <= 0 means no limit.
func ReadFileInRoot(root *os.Root, name string, limit int64) ([]byte, error) {
	f, err := OpenInRoot(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := io.Reader(f)
	if limit > 0 {
		r = io.LimitReader(f, limit+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if limit > 0 && int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, limit)
	}
	return data, nil
}
