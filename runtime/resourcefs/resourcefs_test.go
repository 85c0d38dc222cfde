package resourcefs

import (
	mcpruntime "github.com/mcpgen/mcpgen/runtime"

	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestLocalPath(t *testing.T) {
	for _, ok := range []string{"a", "a/b.md", "docs/a b/c", "ü", "..a", "a..", "a/.hidden"} {
		if err := LocalPath(ok); err != nil {
			t.Errorf("LocalPath(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "../x", "a/../../x", "a/..", "/etc/passwd", "a\\..\\..\\x", "a\x00b",
		"a//b", "a/", "./a", "a/./b", "a\nb"} {
		if err := LocalPath(bad); !errors.Is(err, ErrUnsafePath) || !errors.Is(err, mcpruntime.ErrResourceNotFound) {
			t.Errorf("LocalPath(%q): got %v, want ErrUnsafePath", bad, err)
		}
	}
}

func TestReadFileInRoot(t *testing.T) {
	dir := t.TempDir()
	rootDir := filepath.Join(dir, "root")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(rootDir, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "secret"), []byte("SECRET"), 0o644))
	must(os.WriteFile(filepath.Join(rootDir, "sub", "a.txt"), []byte("hello"), 0o644))
	must(os.WriteFile(filepath.Join(rootDir, "big"), make([]byte, 100), 0o644))
	if runtime.GOOS != "windows" {
		must(os.Symlink("../secret", filepath.Join(rootDir, "out")))
		must(os.Symlink("sub/a.txt", filepath.Join(rootDir, "in")))
		must(os.Symlink("..", filepath.Join(rootDir, "sub", "up")))
	}
	root, err := os.OpenRoot(rootDir)
	must(err)
	defer root.Close()
	for name, want := range map[string]string{"sub/a.txt": "hello", "in": "hello"} {
		if got, err := ReadFileInRoot(root, name, 0); err != nil || string(got) != want {
			t.Errorf("ReadFileInRoot(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	for _, name := range []string{"../secret", "out", "sub/up/../secret", "sub", "nope", filepath.Join(dir, "secret"), "sub/up/sub/a.txt/.."} {
		if got, err := ReadFileInRoot(root, name, 0); !errors.Is(err, mcpruntime.ErrResourceNotFound) {
			t.Errorf("ReadFileInRoot(%q) = %q, %v; want not found", name, got, err)
		}
	}
	if _, err := ReadFileInRoot(root, "big", 99); err == nil || errors.Is(err, mcpruntime.ErrResourceNotFound) {
		t.Errorf("over the limit: got %v, want an error other than not found", err)
	}
	if got, err := ReadFileInRoot(root, "big", 100); err != nil || len(got) != 100 {
		t.Errorf("at the limit: got %d bytes, %v", len(got), err)
	}
}
