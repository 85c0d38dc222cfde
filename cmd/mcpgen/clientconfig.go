package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/mcpgen/mcpgen/gen/model"
)

// clientConfig is the deprecated -client-config CLIENT: it prints what
// mcpgen install -dry-run CLIENT DIR prints for the -server main, the entry
// that makes client start the generated server over stdio, and writes nothing.
func clientConfig(client string, srv *model.Server, stdout, stderr io.Writer) error {
	fmt.Fprintf(stderr, "mcpgen: -client-config is deprecated: mcpgen install -dry-run %s %s prints the same, and without -dry-run writes it into the client's file\n", client, srv.Dir)
	c, _ := findClient(client)
	l, err := goRun(srv.Dir, srv.Name) // the main need not exist yet
	if err != nil {
		return err
	}
	entry, err := c.entry(l)
	if err != nil {
		return err
	}
	b, err := c.render(nil, l.Name, entry)
	if err != nil {
		return err
	}
	_, err = stdout.Write(b)
	return err
}

// knownClient reports whether -client-config accepts name.
func knownClient(name string) bool {
	_, ok := findClient(name)
	return ok
}

// absPath resolves path against dir unless it is absolute.
func absPath(dir, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}
