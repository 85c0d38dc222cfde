package gen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"

	"github.com/mcpgen/mcpgen/gen/emit"
)

// Loading with packages.Load(loadMode) asks `go list -export` for the
// export data of every package, the named ones included: the go command
// compiles the named packages (with their generated file, megabytes for a
// large package) only for the type checker to check them again from source.
// loadSplit does the same work without that compilation: go list -find
// names the packages and their files, the files are parsed, and go list
// -export gives the export data of the packages they import (compiled
// anyway, and usually cached); then it type-checks the named packages from
// source as packages.Load would. Whenever go list reports a problem,
// loadPackages falls back to packages.Load, whose diagnostics say where it is.

// loadMode is what the analyzer and the schema builder read: syntax with doc
// comments and full type information for the named packages. loadPackages
// uses it only when findMode and exportMode cannot do (see loadSplit).
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
	packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports

// loadPackages is the one way mcpgen loads packages: loadSplit, or, when it
// cannot (errNoSplit), packages.Load(loadMode), whose diagnostics say where the
// problem is.
func loadPackages(ctx context.Context, cfg Config) ([]*packages.Package, *token.FileSet, error) {
	fset := token.NewFileSet()
	pkgs, err := loadSplit(ctx, cfg, fset)
	if !errors.Is(err, errNoSplit) {
		return pkgs, fset, err
	}
	fset = token.NewFileSet()
	pkgs, err = packages.Load(&packages.Config{
		Context:   ctx,
		Mode:      loadMode,
		Dir:       cfg.Dir,
		Env:       cfg.Env,
		Fset:      fset,
		ParseFile: parseFunc(cfg.Output),
	}, cfg.Patterns...)
	return pkgs, fset, err
}

// findMode names packages and their files without resolving imports.
const findMode = packages.NeedName | packages.NeedFiles | packages.NeedModule

// exportMode loads the types of dependencies from export data.
const exportMode = packages.NeedName | packages.NeedTypes | packages.NeedTypesSizes | packages.NeedImports

// errNoSplit means that loadSplit cannot load these packages: loadPackages
// falls back to packages.Load(loadMode).
var errNoSplit = errors.New("packages need a single load")

// loadSplit loads the packages named by cfg into fset, with syntax, types
// and type information for the named packages, as packages.Load(loadMode)
// does, or fails with errNoSplit.
func loadSplit(ctx context.Context, cfg Config, fset *token.FileSet) ([]*packages.Package, error) {
	roots, err := packages.Load(&packages.Config{Context: ctx, Mode: findMode, Dir: cfg.Dir, Env: cfg.Env, Fset: fset}, cfg.Patterns...)
	if err != nil {
		return nil, err
	}
	rootByPath := map[string]*packages.Package{}
	for _, r := range roots {
		if len(r.Errors) > 0 {
			return nil, errNoSplit
		}
		rootByPath[r.PkgPath] = r
	}
	parsed := parseRoots(fset, roots, parseFunc(cfg.Output))
	imports := map[*packages.Package][]string{} // import paths of each root
	deps := map[string]bool{}                   // non-root import paths
	for _, r := range roots {
		for _, f := range parsed[r] {
			if f.f == nil {
				continue
			}
			for _, spec := range f.f.Imports {
				path, err := strconv.Unquote(spec.Path.Value)
				switch {
				case err != nil || path == "unsafe":
					continue
				case path == "C":
					return nil, errNoSplit // cgo: go list knows the files to check
				}
				imports[r] = append(imports[r], path)
				if rootByPath[path] == nil {
					deps[path] = true
				}
			}
		}
	}

	var exported []*packages.Package
	if len(deps) > 0 {
		ecfg := &packages.Config{Context: ctx, Mode: exportMode, Dir: cfg.Dir, Env: cfg.Env, Fset: fset}
		exported, err = packages.Load(ecfg, slices.Sorted(maps.Keys(deps))...)
		if err != nil {
			return nil, err
		}
	}
	depByPath := map[string]*packages.Package{}
	for _, e := range exported {
		depByPath[e.PkgPath] = e
	}
	var problem bool
	packages.Visit(exported, nil, func(p *packages.Package) {
		// A root among the dependencies would have two copies of its
		// types, one from export data and one from source.
		problem = problem || len(p.Errors) > 0 || rootByPath[p.PkgPath] != nil
	})
	if problem || len(depByPath) != len(deps) {
		return nil, errNoSplit
	}
	for _, r := range roots {
		r.Imports = map[string]*packages.Package{}
		for _, path := range imports[r] {
			if imp := rootByPath[path]; imp != nil {
				r.Imports[path] = imp
			} else {
				r.Imports[path] = depByPath[path]
			}
		}
		r.CompiledGoFiles = r.GoFiles
	}

	sizes := types.SizesFor("gc", goarch(cfg.Env))
	for _, e := range exported {
		if e.TypesSizes != nil {
			sizes = e.TypesSizes
			break
		}
	}
	isRoot := map[*packages.Package]bool{}
	for _, r := range roots {
		isRoot[r] = true
	}
	for _, r := range rootOrder(roots, isRoot) {
		checkRoot(r, fset, parsed[r], sizes)
	}
	return roots, nil
}

// parseFunc parses Go files with comments, except that a file mcpgen generated
// earlier (named output and starting with the header) is reduced to its
// package clause: a stale generated file must not stop its own regeneration.
func parseFunc(output string) func(*token.FileSet, string, []byte) (*ast.File, error) {
	header := []byte("// " + emit.Header)
	return func(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
		mode := parser.AllErrors | parser.ParseComments | parser.SkipObjectResolution
		if filepath.Base(filename) == output && bytes.HasPrefix(src, header) {
			mode = parser.PackageClauseOnly
		}
		return parser.ParseFile(fset, filename, src, mode)
	}
}

// rootOrder orders the roots so that a root comes after the roots it imports.
func rootOrder(roots []*packages.Package, isRoot map[*packages.Package]bool) []*packages.Package {
	var order []*packages.Package
	seen := map[*packages.Package]bool{}
	var visit func(p *packages.Package)
	visit = func(p *packages.Package) {
		if seen[p] {
			return
		}
		seen[p] = true
		for _, path := range slices.Sorted(maps.Keys(p.Imports)) {
			if imp := p.Imports[path]; isRoot[imp] {
				visit(imp)
			}
		}
		order = append(order, p)
	}
	for _, r := range roots {
		visit(r)
	}
	return order
}

// A parsedFile is the outcome of parsing one file of a root.
type parsedFile struct {
	f   *ast.File
	err error
}

// parseRoots parses the Go files of every root, in parallel.
func parseRoots(fset *token.FileSet, roots []*packages.Package, parse func(*token.FileSet, string, []byte) (*ast.File, error)) map[*packages.Package][]parsedFile {
	out := map[*packages.Package][]parsedFile{}
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, r := range roots {
		files := make([]parsedFile, len(r.GoFiles))
		out[r] = files
		for i, name := range r.GoFiles {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				src, err := os.ReadFile(name)
				if err != nil {
					files[i].err = err
					return
				}
				files[i].f, files[i].err = parse(fset, name, src)
			})
		}
	}
	wg.Wait()
	return out
}

// checkRoot type-checks a root from its parsed files, recording parse and
// type errors as packages.Load does.
func checkRoot(p *packages.Package, fset *token.FileSet, files []parsedFile, sizes types.Sizes) {
	appendError := func(err error) {
		switch err := err.(type) {
		case *os.PathError:
			p.Errors = append(p.Errors, packages.Error{Pos: err.Path + ":1", Msg: err.Err.Error(), Kind: packages.ParseError})
		case scanner.ErrorList:
			for _, e := range err {
				p.Errors = append(p.Errors, packages.Error{Pos: e.Pos.String(), Msg: e.Msg, Kind: packages.ParseError})
			}
		case types.Error:
			p.TypeErrors = append(p.TypeErrors, err)
			p.Errors = append(p.Errors, packages.Error{Pos: err.Fset.Position(err.Pos).String(), Msg: err.Msg, Kind: packages.TypeError})
		default:
			p.Errors = append(p.Errors, packages.Error{Pos: "-", Msg: err.Error(), Kind: packages.UnknownError})
		}
	}
	p.Fset = fset
	p.Syntax = []*ast.File{}
	for _, f := range files {
		if f.err != nil {
			appendError(f.err)
		}
		if f.f != nil {
			p.Syntax = append(p.Syntax, f.f)
		}
	}
	p.Types = types.NewPackage(p.PkgPath, p.Name)
	p.TypesSizes = sizes
	p.TypesInfo = &types.Info{ // what the analyzer and the schema builder read
		Defs:         map[*ast.Ident]types.Object{},
		Uses:         map[*ast.Ident]types.Object{},
		Implicits:    map[ast.Node]types.Object{},
		Instances:    map[*ast.Ident]types.Instance{},
		FileVersions: map[*ast.File]string{},
	}
	tc := &types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			imp := p.Imports[path]
			if imp == nil {
				return nil, fmt.Errorf("no metadata for %s", path)
			}
			if imp.Types != nil && imp.Types.Complete() {
				return imp.Types, nil
			}
			for _, e := range imp.Errors {
				if e.Kind == packages.UnknownError {
					return nil, errors.New(e.Msg)
				}
			}
			return nil, errors.New("no export data file")
		}),
		Error: appendError,
		Sizes: sizes,
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		tc.GoVersion = "go" + p.Module.GoVersion
	}
	_ = types.NewChecker(tc, fset, p.Types, p.TypesInfo).Files(p.Syntax)
}

// importerFunc implements types.Importer.
type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// goarch is GOARCH in env (the go command's environment), or this
// program's.
func goarch(env []string) string {
	arch := runtime.GOARCH
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GOARCH="); ok && v != "" {
			arch = v
		}
	}
	return arch
}
