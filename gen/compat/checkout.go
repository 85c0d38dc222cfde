package compat

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrBadRevision reports a revision that is empty or starts with "-".
var ErrBadRevision = errors.New("a git revision must not be empty or start with '-'")

// Checkout writes the files of the git repository holding dir, as of
// revision rev, into a new temporary directory, and returns the directory
// corresponding to dir in it. The caller removes the temporary directory
// with cleanup.
//
// A rev starting with "-" is refused: git would read it as an option (say
// --output=FILE, which writes a file).
func Checkout(ctx context.Context, dir, rev string) (at string, cleanup func(), err error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", nil, fmt.Errorf("checkout %q: %w", rev, ErrBadRevision)
	}
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", nil, err
	}
	top = strings.TrimSpace(top)
	rel, err := filepath.Rel(top, dir)
	if err != nil {
		return "", nil, fmt.Errorf("checkout %s: %w", rev, err)
	}
	archive, err := git(ctx, top, "archive", "--format=tar", "--end-of-options", rev+"^{tree}")
	if err != nil {
		return "", nil, err
	}
	tmp, err := os.MkdirTemp("", "mcpgen-compat-")
	if err != nil {
		return "", nil, fmt.Errorf("checkout %s: %w", rev, err)
	}
	cleanup = func() { os.RemoveAll(tmp) }
	if err := untar(strings.NewReader(archive), tmp); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("checkout %s: %w", rev, err)
	}
	return filepath.Join(tmp, rel), cleanup, nil
}

// git runs a git command in dir and returns its standard output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// untar extracts the regular files and directories of a tar stream into dir.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.FromSlash(h.Name)
		if !filepath.IsLocal(name) {
			return fmt.Errorf("archive entry %q escapes the directory", h.Name)
		}
		path := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := writeFile(path, tr); err != nil {
				return err
			}
		}
	}
}

// writeFile copies r into a new file at path.
func writeFile(path string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
