package gen

// view.go: MCP Apps views (docs/apps.md): a tool's ui= (an HTML file of the
// package, embedded, or a ui:// URI served elsewhere in the package), its
// visibility=, and //mcp:view, which describes the view's ui:// resource
// (URI, CSP origins, permissions, domain, border). Checks: the file exists
// and is an HTML5 document, origins are origins, a tool with a view returns
// a result (the text hosts without MCP Apps show), every URI is unique.

import (
	"bytes"
	"fmt"
	"go/token"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/gen/model"
)

// viewMIME is the media type of an HTML view (runtime/apps.MIMEType).
const viewMIME = "text/html;profile=mcp-app"

// A viewRef is a tool's ui= and the //mcp:view directives on its function.
type viewRef struct {
	val   string    // ui= value: a file or a ui:// URI; "" for none
	pos   token.Pos // position of the ui= argument
	views []*directive
}

// A viewScan holds a package's views while its files are analyzed.
type viewScan struct {
	byFile    map[string]*model.View // by the file's path relative to the package
	described map[*model.View]bool   // a //mcp:view described it
	linked    []linkedTool           // tools naming their view by file
	refs      []uiRef                // tools naming their view by URI
}

// A linkedTool is a tool whose ui= names its view's file: its UI is the
// view's URI once every //mcp:view is read.
type linkedTool struct {
	t *model.Tool
	v *model.View
}

// A uiRef is a tool's ui=ui://..., resolved once every file is read.
type uiRef struct {
	uri   string
	pos   token.Pos
	label string
}

// viewArgs records the tool's visibility= and returns its ui=.
func (a *analyzer) viewArgs(t *model.Tool, spec toolSpec, dir *directive, label string) viewRef {
	ref := viewRef{val: spec.ui, pos: dir.pos + token.Pos(dir.off+spec.uiOff)}
	if spec.visibility == "" {
		return ref
	}
	pos := dir.pos + token.Pos(dir.off+spec.visibilityOff)
	for _, v := range splitList(spec.visibility) {
		switch {
		case v != "model" && v != "app":
			a.errorf(pos, "%s: visibility must be model, app or both, got %q", label, v)
		case slices.Contains(t.Visibility, v):
			a.errorf(pos, "%s: visibility lists %s twice", label, v)
		default:
			t.Visibility = append(t.Visibility, v)
		}
	}
	return ref
}

// splitList splits a list written with spaces or commas.
func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
}

// modelVisible reports whether the model sees the tool (the default).
func modelVisible(t *model.Tool) bool {
	return len(t.Visibility) == 0 || slices.Contains(t.Visibility, "model")
}

// toolView links t to the view its ui= names.
func (a *analyzer) toolView(s *pkgScan, t *model.Tool, ref viewRef, label string) {
	if ref.val == "" {
		for _, d := range ref.views {
			a.errorf(d.pos, "%s: //mcp:view describes the view of ui=FILE.html: add ui= to the //mcp:tool", label)
		}
		return
	}
	if t.Out == nil && modelVisible(t) {
		a.errorf(ref.pos, "%s: a tool with a view must return a result: hosts without MCP Apps show its text content instead of the view; return (Out, error)", label)
	}
	if strings.HasPrefix(ref.val, "ui://") {
		if len(ref.views) > 0 {
			a.errorf(ref.views[0].pos, "%s: //mcp:view describes an HTML file of the package; ui=%s names a view declared elsewhere", label, ref.val)
		}
		t.UI = ref.val
		s.views.refs = append(s.views.refs, uiRef{uri: ref.val, pos: ref.pos, label: label})
		return
	}
	for _, d := range ref.views[min(1, len(ref.views)):] {
		a.errorf(d.pos, "%s: more than one //mcp:view", label)
	}
	v := a.viewFile(s, t, ref, label)
	if v == nil {
		return
	}
	s.views.linked = append(s.views.linked, linkedTool{t, v})
	if len(ref.views) > 0 {
		a.describeView(s, v, ref.views[0], label)
	}
}

// viewFile returns the view of the HTML file ref names, checking the file the
// first time; nil when the file is unusable.
func (a *analyzer) viewFile(s *pkgScan, t *model.Tool, ref viewRef, label string) *model.View {
	rel := ref.val
	if v := s.views.byFile[rel]; v != nil {
		return v
	}
	ext := strings.ToLower(filepath.Ext(rel))
	if strings.Contains(rel, "://") || !filepath.IsLocal(rel) || strings.ContainsAny(rel, "\\") || (ext != ".html" && ext != ".htm") {
		a.errorf(ref.pos, "%s: ui must be an .html file in the package directory or a ui:// URI, got %q", label, rel)
		return nil
	}
	full := filepath.Join(s.mp.Dir, rel)
	b, err := os.ReadFile(full)
	if err != nil {
		a.errorf(ref.pos, "%s: view file %s: %v", label, rel, unwrapPathErr(err))
		return nil
	}
	if line, col, ok := htmlDoctype(b); !ok {
		a.diags = append(a.diags, Diagnostic{Pos: token.Position{Filename: full, Line: line, Column: col},
			Msg: fmt.Sprintf("%s: view %s is not an HTML5 document: it must start with <!doctype html>", label, rel)})
	}
	name := strings.TrimSuffix(filepath.Base(rel), filepath.Ext(rel))
	v := &model.View{
		URI: "ui://" + s.mp.Name + "/" + name, Name: name, File: filepath.ToSlash(rel),
		Description: fmt.Sprintf("The view of the %s tool (MCP Apps).", t.Name),
		Pos:         a.fset.Position(ref.pos),
	}
	if s.views.byFile == nil {
		s.views.byFile, s.views.described = map[string]*model.View{}, map[*model.View]bool{}
	}
	s.views.byFile[rel] = v
	s.mp.Views = append(s.mp.Views, v)
	return v
}

// unwrapPathErr drops the path of a *os.PathError (the message names the file).
func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// htmlDoctype reports whether b starts with an HTML5 doctype, after an
// optional byte order mark, blanks and comments; otherwise the line and
// column where one was expected.
func htmlDoctype(b []byte) (line, col int, ok bool) {
	i := 0
	if bytes.HasPrefix(b, []byte("\ufeff")) {
		i = 3
	}
	for {
		for i < len(b) && strings.IndexByte(" \t\r\n\f", b[i]) >= 0 {
			i++
		}
		if !bytes.HasPrefix(b[i:], []byte("<!--")) {
			break
		}
		end := bytes.Index(b[i+4:], []byte("-->"))
		if end < 0 {
			break
		}
		i += 4 + end + 3
	}
	const doctype = "<!doctype html"
	if rest := b[i:]; len(rest) > len(doctype) && strings.EqualFold(string(rest[:len(doctype)]), doctype) &&
		strings.IndexByte(" \t\r\n\f>", rest[len(doctype)]) >= 0 {
		return 0, 0, true
	}
	line, col = 1, 1
	for _, c := range b[:i] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col, false
}

// describeView applies one //mcp:view to v.
func (a *analyzer) describeView(s *pkgScan, v *model.View, d *directive, label string) {
	if s.views.described[v] {
		a.errorf(d.pos, "%s: view %s is described twice: keep one //mcp:view", label, v.File)
		return
	}
	s.views.described[v] = true
	toks, errs := tokenize(d.args)
	for _, e := range errs {
		a.errorf(d.pos+token.Pos(d.off+e.off), "%s: //mcp:view: %s", label, e.msg)
	}
	seen := map[string]bool{}
	for _, t := range toks {
		pos := d.pos + token.Pos(d.off+t.off)
		if seen[t.key] {
			a.errorf(pos, "%s: //mcp:view: duplicate argument %q", label, t.key)
			continue
		}
		seen[t.key] = true
		if msg := setView(v, t); msg != "" {
			a.errorf(pos, "%s: //mcp:view: %s", label, msg)
		}
	}
}

// viewArgsUsage lists //mcp:view's arguments, for error messages.
const viewArgsUsage = `want [uri=ui://...] [name=NAME] [title="..."] [description="..."] [connect="ORIGIN..."] [resource="ORIGIN..."] [frame="ORIGIN..."] [baseuri="ORIGIN..."] [permissions="camera microphone geolocation clipboardWrite"] [domain=HOST] [border=true|false]`

// setView records one //mcp:view argument, returning a message for an invalid one.
func setView(v *model.View, t argToken) string {
	if !t.hasVal || t.val == "" {
		return fmt.Sprintf("%s needs a value (%s)", t.key, viewArgsUsage)
	}
	switch t.key {
	case "uri":
		if !strings.HasPrefix(t.val, "ui://") || len(t.val) == len("ui://") {
			return fmt.Sprintf("uri must be a ui:// URI, got %q", t.val)
		}
		v.URI = t.val
	case "name":
		v.Name = t.val
	case "title":
		v.Title = t.val
	case "description":
		v.Description = t.val
	case "connect", "resource", "frame", "baseuri":
		return setOrigins(v, t)
	case "permissions":
		for _, p := range splitList(t.val) {
			if !slices.Contains([]string{"camera", "microphone", "geolocation", "clipboardWrite"}, p) {
				return fmt.Sprintf("unknown permission %q (want camera, microphone, geolocation or clipboardWrite)", p)
			}
			v.Permissions = append(v.Permissions, p)
		}
	case "domain":
		if !validHost(t.val, false) {
			return fmt.Sprintf("domain must be a host name such as views.example.com, got %q", t.val)
		}
		v.Domain = t.val
	case "border":
		if t.val != "true" && t.val != "false" {
			return fmt.Sprintf("border must be true or false, got %q", t.val)
		}
		v.Border = t.val
	default:
		return fmt.Sprintf("unknown argument %q (%s)", t.key, viewArgsUsage)
	}
	return ""
}

// setOrigins records a CSP list of origins.
func setOrigins(v *model.View, t argToken) string {
	var list []string
	for _, o := range splitList(t.val) {
		if msg := checkOrigin(o); msg != "" {
			return fmt.Sprintf("%s: %s", t.key, msg)
		}
		list = append(list, o)
	}
	switch t.key {
	case "connect":
		v.Connect = list
	case "resource":
		v.Resource = list
	case "frame":
		v.Frame = list
	default:
		v.BaseURI = list
	}
	return ""
}

// checkOrigin returns what keeps o from being a CSP origin
// (scheme://host[:port], host possibly *.example.com), or "".
func checkOrigin(o string) string {
	u, err := url.Parse(o)
	bad := fmt.Sprintf("%q is not an origin: want scheme://host[:port] with scheme https, http, wss or ws, e.g. https://api.example.com", o)
	if err != nil || u.Opaque != "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(o, "?") || strings.HasSuffix(o, "#") {
		return bad
	}
	if !slices.Contains([]string{"https", "http", "wss", "ws"}, u.Scheme) || (u.Path != "" && u.Path != "/") {
		return bad
	}
	host := u.Hostname()
	if port := u.Port(); port != "" || strings.HasSuffix(u.Host, ":") {
		if port == "" || strings.Trim(port, "0123456789") != "" {
			return bad
		}
	}
	if !validHost(host, true) && !(strings.HasPrefix(host, "[") || strings.Contains(host, ":")) {
		return bad
	}
	return ""
}

// validHost reports whether h is a DNS host name (letters, digits, hyphens,
// dots), with a leading "*." when wildcard is set.
func validHost(h string, wildcard bool) bool {
	if wildcard {
		h = strings.TrimPrefix(h, "*.")
	}
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}

// finishViews checks that every view URI is unique among the package's
// resources, resolves the tools that name a view by URI and names the
// variables holding the files.
func (a *analyzer) finishViews(s *pkgScan) {
	resources := map[string]*model.Resource{}
	for _, r := range s.mp.Resources {
		if !r.Template {
			resources[r.URI] = r
		}
	}
	uris := map[string]*model.View{}
	for _, v := range s.mp.Views {
		pos := v.Pos
		if prev := uris[v.URI]; prev != nil {
			a.diags = append(a.diags, Diagnostic{Pos: pos, Msg: fmt.Sprintf("view URI %s is not unique: %s has it too; give one view another uri= on its //mcp:view", v.URI, prev.File)})
			continue
		}
		if r := resources[v.URI]; r != nil {
			a.diags = append(a.diags, Diagnostic{Pos: pos, Msg: fmt.Sprintf("view URI %s is not unique: //mcp:resource %s has it too", v.URI, r.Func)})
			continue
		}
		uris[v.URI] = v
		v.Var = s.names.fresh("mcpView"+upperIdent(identFrom(v.Name)), "HTML")
	}
	for _, l := range s.views.linked {
		l.t.UI = l.v.URI
	}
	for _, ref := range s.views.refs {
		if uris[ref.uri] != nil {
			continue
		}
		r := resources[ref.uri]
		switch {
		case r == nil:
			a.errorf(ref.pos, "%s: no view %s in the package: name its HTML file (ui=FILE.html, with //mcp:view uri=%s) or serve it with //mcp:resource %s mime=%q", ref.label, ref.uri, ref.uri, ref.uri, viewMIME)
		case r.MIMEType != viewMIME:
			a.errorf(ref.pos, "%s: resource %s is not a view: its mime must be %q, got %q", ref.label, ref.uri, viewMIME, r.MIMEType)
		}
	}
}

// identFrom turns a view name into identifier characters.
func identFrom(name string) string {
	var b strings.Builder
	up := true
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' && b.Len() > 0:
			if up {
				b.WriteString(strings.ToUpper(string(r)))
			} else {
				b.WriteRune(r)
			}
			up = false
		default:
			up = true
		}
	}
	return b.String()
}
