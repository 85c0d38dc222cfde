package gen

// serverjson.go: //mcp:server in a package comment, the package's server.json
// for the MCP registry and the Server Card the runtime serves
// (docs/publishing.md).

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/token"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mcpgen/mcpgen/gen/model"
)

// Schema URIs of the documents written here.
const (
	// ServerJSONSchema is the MCP registry's server.json schema mcpgen writes to.
	ServerJSONSchema = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
	// ServerCardSchema is the Server Card schema (SEP-2127) of the card.
	ServerCardSchema = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
	// ServerJSONFile is the base name of the generated registry metadata.
	ServerJSONFile = "server.json"
)

// serverArgsUsage lists the arguments of //mcp:server, for error messages.
const serverArgsUsage = `want name=NS/NAME version=V [title="..."] [description="..."] [repository=URL] [subfolder=DIR] [website=URL] [oci=IMAGE:TAG] [mcpb=URL sha256=HEX] [remote=URL] [header=NAME]...`

// The registry's limits (server.schema.json 2025-12-11).
var (
	serverNameRE = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)
	sha256RE     = regexp.MustCompile(`^[a-f0-9]{64}$`)
	headerRE     = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
)

// A serverSpec is the parsed argument list of //mcp:server.
type serverSpec struct {
	vals    map[string]string
	headers []string
}

// registry reads //mcp:server from the package comments of s and builds the
// package's server.json and Server Card.
func (a *analyzer) registry(s *pkgScan) {
	var dir *directive
	var doc *ast.CommentGroup
	for _, f := range s.p.Syntax {
		for _, d := range directives(f.Doc) {
			if d.word != "server" {
				a.errorf(d.pos, "//mcp:%s must annotate a function declaration", d.word)
				continue
			}
			if dir != nil {
				a.errorf(d.pos, "mcp:server: more than one //mcp:server in package %s", s.p.Name)
				continue
			}
			dir, doc = &d, f.Doc
		}
	}
	if dir == nil {
		return
	}
	spec, ok := a.serverArgs(dir)
	at := dir.pos + token.Pos(dir.off)
	desc := spec.vals["description"]
	if desc == "" {
		desc = packageSummary(doc.Text(), s.p.Name)
	}
	if n := len([]rune(desc)); n == 0 || n > 100 {
		a.errorf(at, "mcp:server: the registry wants a description of 1 to 100 characters, the package comment's first sentence has %d: write description=\"...\"", n)
		ok = false
	}
	if !ok {
		return
	}
	sj, card := serverDocs(spec, desc)
	out, err := json.MarshalIndent(sj, "", "  ")
	if err != nil {
		a.errorf(at, "mcp:server: internal error: %v", err)
		return
	}
	compact, _ := json.Marshal(card)
	s.mp.Registry = &model.Registry{
		ServerJSONPath: filepath.Join(s.mp.Dir, ServerJSONFile),
		ServerJSON:     append(out, '\n'),
		Card:           compact,
	}
}

// serverArgs parses and checks the arguments of //mcp:server.
func (a *analyzer) serverArgs(dir *directive) (serverSpec, bool) {
	toks, errs := tokenize(dir.args)
	spec := serverSpec{vals: map[string]string{}}
	bad := len(errs) > 0
	for _, e := range errs {
		a.errorf(dir.pos+token.Pos(dir.off+e.off), "mcp:server: %s", e.msg)
	}
	offs := map[string]int{}
	for _, t := range toks {
		at := dir.pos + token.Pos(dir.off+t.off)
		msg := ""
		switch {
		case !t.hasVal || t.val == "":
			msg = fmt.Sprintf("%s needs a value (%s)", t.key, serverArgsUsage)
		case t.key == "header":
			if !headerRE.MatchString(t.val) {
				msg = fmt.Sprintf("header %q is not an HTTP header name", t.val)
			}
			spec.headers = append(spec.headers, t.val)
		case !strings.Contains(" name version title description repository subfolder website oci mcpb sha256 remote ", " "+t.key+" "):
			msg = fmt.Sprintf("unknown argument %q (%s)", t.key, serverArgsUsage)
		case offs[t.key] != 0 || spec.vals[t.key] != "":
			msg = fmt.Sprintf("duplicate argument %q", t.key)
		default:
			spec.vals[t.key], offs[t.key] = t.val, t.off+1
			msg = checkServerArg(t.key, t.val)
		}
		if msg != "" {
			a.errorf(at, "mcp:server: %s", msg)
			bad = true
		}
	}
	at := dir.pos + token.Pos(dir.off)
	for _, req := range []string{"name", "version"} {
		if spec.vals[req] == "" {
			a.errorf(at, "mcp:server: missing %s= (%s)", req, serverArgsUsage)
			bad = true
		}
	}
	if (spec.vals["mcpb"] == "") != (spec.vals["sha256"] == "") {
		a.errorf(at, "mcp:server: an mcpb package needs both mcpb=URL and sha256=HEX (the registry checks the file's digest)")
		bad = true
	}
	if len(spec.headers) > 0 && spec.vals["remote"] == "" {
		a.errorf(at, "mcp:server: header= describes a header of the remote endpoint: add remote=URL")
		bad = true
	}
	return spec, !bad
}

// checkServerArg checks one value against the registry's rules.
func checkServerArg(key, val string) string {
	switch key {
	case "name":
		if !serverNameRE.MatchString(val) || len(val) > 200 {
			return fmt.Sprintf("name %q must be NAMESPACE/NAME in reverse-DNS form, e.g. io.github.owner/server (at most 200 characters)", val)
		}
	case "version":
		if len(val) > 255 || val == "latest" || strings.ContainsAny(val, "^~<>=*x ") && !semverish(val) {
			return fmt.Sprintf("version %q must be one specific version, e.g. 1.2.0 (no ranges, not latest)", val)
		}
	case "title":
		if n := len([]rune(val)); n > 100 {
			return fmt.Sprintf("title has %d characters, the registry allows 100", n)
		}
	case "repository", "website", "mcpb", "remote":
		u, err := url.Parse(val)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return fmt.Sprintf("%s %q must be an absolute http(s) URL", key, val)
		}
	case "sha256":
		if !sha256RE.MatchString(val) {
			return fmt.Sprintf("sha256 %q must be 64 lower-case hex digits", val)
		}
	case "subfolder":
		if filepath.IsAbs(val) || strings.HasPrefix(filepath.Clean(val), "..") || filepath.Clean(val) != val {
			return fmt.Sprintf("subfolder %q must be a clean relative path", val)
		}
	}
	return ""
}

// semverish reports whether v is a plain version whose letters are a
// pre-release or build suffix (1.0.0-x.1), not a range.
func semverish(v string) bool {
	core, _, _ := strings.Cut(v, "-")
	core, _, _ = strings.Cut(core, "+")
	return core != "" && strings.Trim(core, "0123456789.") == ""
}

// packageSummary is the first sentence of a package comment, without
// directives and with "Package name" dropped before a verb: "Package notes
// serves notes." is "Serves notes."
func packageSummary(doc, pkg string) string {
	text := strings.Join(strings.Fields(doc), " ")
	if i := strings.Index(text, ". "); i >= 0 {
		text = text[:i+1]
	}
	return dropIdent(text, "Package "+pkg) // doctext.go
}

// serverDocs builds server.json and the Server Card from spec. Both are
// ordered maps written with sorted keys by encoding/json; the card holds the
// public subset: no packages (the card schema forbids them).
func serverDocs(spec serverSpec, desc string) (sj, card map[string]any) {
	v := spec.vals
	sj = map[string]any{"$schema": ServerJSONSchema, "name": v["name"], "description": desc, "version": v["version"]}
	card = map[string]any{"$schema": ServerCardSchema, "name": v["name"], "description": desc, "version": v["version"]}
	set := func(key string, val any) { sj[key], card[key] = val, val }
	if v["title"] != "" {
		set("title", v["title"])
	}
	if v["website"] != "" {
		set("websiteUrl", v["website"])
	}
	if v["repository"] != "" {
		repo := map[string]any{"url": v["repository"], "source": repoSource(v["repository"])}
		if v["subfolder"] != "" {
			repo["subfolder"] = v["subfolder"]
		}
		set("repository", repo)
	}
	stdio := map[string]any{"type": "stdio"}
	var pkgs []any
	if v["oci"] != "" {
		pkgs = append(pkgs, map[string]any{"registryType": "oci", "identifier": v["oci"], "transport": stdio})
	}
	if v["mcpb"] != "" {
		pkgs = append(pkgs, map[string]any{"registryType": "mcpb", "identifier": v["mcpb"], "fileSha256": v["sha256"], "transport": stdio})
	}
	if pkgs != nil {
		sj["packages"] = pkgs
	}
	if v["remote"] != "" {
		remote := map[string]any{"type": "streamable-http", "url": v["remote"]}
		var hs []any
		for _, h := range spec.headers {
			hs = append(hs, map[string]any{"name": h, "description": "The " + h + " header the server expects on every request.", "isRequired": true, "isSecret": true})
		}
		if hs != nil {
			remote["headers"] = hs
		}
		set("remotes", []any{remote})
	}
	return sj, card
}

// repoSource names the forge of a repository URL the way the registry does:
// github, gitlab, or the host.
func repoSource(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "git"
	}
	host := strings.TrimPrefix(u.Hostname(), "www.")
	for _, forge := range []string{"github", "gitlab"} {
		if host == forge+".com" {
			return forge
		}
	}
	return host
}
