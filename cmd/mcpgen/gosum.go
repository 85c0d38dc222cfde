package main

// gosum.go: the hint to run go mod tidy when a generated server main imports
// a runtime package (runtime/auth, the Redis store) whose third-party module
// the user's module has not downloaded yet: go build would fail with "missing
// go.sum entry".

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpgen/mcpgen/gen"
)

// optionalImports maps runtime packages a server main may import to the
// third-party module each needs, which a module that got mcpgen with
// go get -tool does not have in go.sum.
var optionalImports = []struct{ pkg, module string }{
	{`"github.com/mcpgen/mcpgen/runtime/auth"`, "github.com/go-jose/go-jose/v4"},
	{`"github.com/mcpgen/mcpgen/runtime/store/redisstore"`, "github.com/redis/go-redis/v9"},
}

// goSumHints prints, for each generated file importing such a package, the
// go mod tidy hint when the go.sum of its module lacks the module's hash.
func goSumHints(cwd string, files []gen.File, stderr io.Writer) {
	for _, f := range files {
		for _, oi := range optionalImports {
			if !bytes.Contains(f.Content, []byte(oi.pkg)) {
				continue
			}
			sum, err := moduleGoSum(filepath.Dir(f.Path))
			if err != nil || hasModuleSum(sum, oi.module) {
				continue
			}
			fmt.Fprintf(stderr, "mcpgen: %s imports %s, which needs %s, not in go.sum yet: run go mod tidy before go build\n",
				relative(cwd, f.Path), strings.Trim(oi.pkg, `"`), oi.module)
		}
	}
}

// moduleGoSum returns the go.sum of the module dir belongs to (empty when it
// has none).
func moduleGoSum(dir string) ([]byte, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			sum, err := os.ReadFile(filepath.Join(d, "go.sum"))
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
			return sum, err
		}
		if filepath.Dir(d) == d {
			return nil, errors.New("no go.mod")
		}
	}
}

// hasModuleSum reports whether sum holds the hash of module's content (not
// only of its go.mod, which the module graph alone records).
func hasModuleSum(sum []byte, module string) bool {
	sc := bufio.NewScanner(bytes.NewReader(sum))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == module && !strings.HasSuffix(f[1], "/go.mod") {
			return true
		}
	}
	return false
}
