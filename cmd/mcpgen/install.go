package main

// install.go: mcpgen install CLIENT TARGET: adds a server to an MCP client's
// own configuration file (JSON for most clients, YAML for Goose), keeping
// every other entry, with a backup of the previous file; a second run with the
// same arguments changes nothing.

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"

	"go.yaml.in/yaml/v4"
)

// A launch is how a client reaches a server: a command over stdio, or a URL
// (Streamable HTTP).
type launch struct {
	Name    string
	Command string
	Args    []string
	URL     string
}

// A kv is one member of an entry, in the order it is written.
type kv struct {
	k string
	v any
}

// A clientSpec is one client's configuration file and entry format.
type clientSpec struct {
	name, title string
	yaml        bool   // the file is YAML (Goose), else JSON
	key         string // the top-level member holding the servers
	// user returns the path of the user-wide file (rooted at $HOME, the XDG
	// or OS configuration directory); project is the file relative to a
	// project directory, "" when the client has none.
	user    func() (string, error)
	project string
	// entry is the server's entry; an error when the client cannot take l.
	entry func(l launch) ([]kv, error)
}

// configDir is the OS's user configuration directory: $XDG_CONFIG_HOME or
// ~/.config on Linux, ~/Library/Application Support on macOS, %AppData% on Windows.
func configDir(elem ...string) func() (string, error) {
	return func() (string, error) {
		d, err := os.UserConfigDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(append([]string{d}, elem...)...), nil
	}
}

// homeDir is a file under the home directory.
func homeDir(elem ...string) func() (string, error) {
	return func() (string, error) {
		d, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(append([]string{d}, elem...)...), nil
	}
}

// gooseConfig is Goose's config.yaml: %AppData%\Block\goose\config on
// Windows, else $XDG_CONFIG_HOME/goose or ~/.config/goose (macOS included).
func gooseConfig() (string, error) {
	if runtime.GOOS == "windows" {
		return configDir("Block", "goose", "config", "config.yaml")()
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "goose", "config.yaml"), nil
	}
	return homeDir(".config", "goose", "config.yaml")()
}

// commandEntry is an entry of command and args, with a type member when typ is set.
func commandEntry(typ string) func(l launch) ([]kv, error) {
	return func(l launch) ([]kv, error) {
		var e []kv
		if typ != "" {
			e = append(e, kv{"type", typ})
		}
		return append(e, kv{"command", l.Command}, kv{"args", l.Args}), nil
	}
}

// typedEntry is the entry of a client that names the transport: "http" with
// the URL, or "stdio" with the command.
func typedEntry(l launch) ([]kv, error) {
	if l.URL != "" {
		return []kv{{"type", "http"}, {"url", l.URL}}, nil
	}
	return commandEntry("stdio")(l)
}

// installClients are the clients mcpgen install knows, by name.
var installClients = []clientSpec{
	{name: "claude-desktop", title: "Claude Desktop", key: "mcpServers",
		user: configDir("Claude", "claude_desktop_config.json"),
		entry: func(l launch) ([]kv, error) {
			if l.URL != "" {
				return nil, errors.New("the configuration file of Claude Desktop starts local servers only: add a remote server under Settings > Connectors")
			}
			return commandEntry("")(l)
		}},
	{name: "claude-code", title: "Claude Code", key: "mcpServers",
		user: homeDir(".claude.json"), project: ".mcp.json",
		entry: typedEntry},
	{name: "cursor", title: "Cursor", key: "mcpServers",
		user: homeDir(".cursor", "mcp.json"), project: filepath.Join(".cursor", "mcp.json"),
		entry: func(l launch) ([]kv, error) {
			if l.URL != "" {
				return []kv{{"url", l.URL}}, nil
			}
			return commandEntry("")(l)
		}},
	{name: "vscode", title: "VS Code", key: "servers",
		user: configDir("Code", "User", "mcp.json"), project: filepath.Join(".vscode", "mcp.json"),
		entry: typedEntry},
	{name: "gemini", title: "Gemini CLI", key: "mcpServers",
		user: homeDir(".gemini", "settings.json"), project: filepath.Join(".gemini", "settings.json"),
		entry: func(l launch) ([]kv, error) {
			if l.URL != "" {
				return []kv{{"httpUrl", l.URL}}, nil // url would be the SSE transport
			}
			return commandEntry("")(l)
		}},
	{name: "goose", title: "Goose", yaml: true, key: "extensions",
		user: gooseConfig,
		entry: func(l launch) ([]kv, error) {
			e := []kv{{"enabled", true}, {"name", l.Name}, {"description", "MCP server " + l.Name + " (mcpgen)"}}
			if l.URL != "" {
				e = append(e, kv{"type", "streamable_http"}, kv{"uri", l.URL})
			} else {
				e = append(e, kv{"type", "stdio"}, kv{"cmd", l.Command}, kv{"args", l.Args})
			}
			return append(e, kv{"envs", map[string]string{}}, kv{"timeout", 300}), nil
		}},
}

// installClientNames lists the clients for messages.
func installClientNames() string {
	var names []string
	for _, c := range installClients {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

// findClient returns the client called name ("gemini-cli" is gemini).
func findClient(name string) (clientSpec, bool) {
	if name == "gemini-cli" {
		name = "gemini"
	}
	for _, c := range installClients {
		if c.name == name {
			return c, true
		}
	}
	return clientSpec{}, false
}

// runInstall is mcpgen install [flags] CLIENT TARGET.
func runInstall(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("mcpgen install", flag.ContinueOnError)
	fl.SetOutput(stderr)
	name := fl.String("name", "", "the server's `name` in the client (default: the base name of the main's directory or binary)")
	scope := fl.String("scope", "user", "`where` to install: user (the client's user-wide file) or project (its file in the current directory)")
	dryRun := fl.Bool("dry-run", false, "print the entry and the file it goes to; write nothing")
	fl.Usage = func() {
		fmt.Fprintf(stderr, `usage: mcpgen install [flags] CLIENT TARGET

Adds an MCP server to a client's configuration file, keeping its other entries
and backing the previous file up as FILE.bak. Running it again changes nothing.

CLIENT is one of %s.
TARGET is a server main's directory (the client starts it with go run), a built
server binary, or the http:// or https:// URL of a server serving Streamable HTTP.

`, installClientNames())
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fl.NArg() != 2 {
		fl.Usage()
		return exitUsage
	}
	c, ok := findClient(fl.Arg(0))
	if !ok {
		usageError(stderr, "install: unknown client %q (want one of %s)", fl.Arg(0), installClientNames())
		return exitUsage
	}
	l, err := resolveTarget(fl.Arg(1), *name)
	if err != nil {
		usageError(stderr, "install: %v", err)
		return exitUsage
	}
	path, err := c.file(*scope)
	if err != nil {
		usageError(stderr, "install: %v", err)
		return exitUsage
	}
	entry, err := c.entry(l)
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: install %s: %v\n", c.name, err)
		return exitError
	}
	if *dryRun {
		snippet, err := c.render(nil, l.Name, entry)
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: install: %v\n", err)
			return exitError
		}
		fmt.Fprintf(stderr, "mcpgen: would add %s to %s (%s):\n", l.Name, c.title, path)
		stdout.Write(snippet)
		return exitOK
	}
	changed, err := c.install(path, l.Name, entry)
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: install: %v\n", err)
		return exitError
	}
	switch changed {
	case "":
		fmt.Fprintf(stderr, "mcpgen: %s is already installed in %s (%s); nothing changed\n", l.Name, c.title, path)
	default:
		fmt.Fprintf(stderr, "mcpgen: %s %s in %s (%s)%s; restart %s to load it\n", changed, l.Name, c.title, path, backupNote(path), c.title)
	}
	return exitOK
}

// backupNote names the backup of path when there is one.
func backupNote(path string) string {
	if _, err := os.Stat(path + ".bak"); err == nil {
		return "; the previous file is " + path + ".bak"
	}
	return ""
}

// resolveTarget turns TARGET into a launch: a URL, a built binary, or a main
// package directory started with go run -C DIR . (the absolute path of the go
// command, so the client needs neither a PATH nor an install step).
func resolveTarget(target, name string) (launch, error) {
	if u, err := url.Parse(target); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		if name == "" {
			return launch{}, fmt.Errorf("a URL needs -name NAME")
		}
		return launch{Name: name, URL: target}, nil
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		return launch{}, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return launch{}, fmt.Errorf("target %s: want a server main's directory, a server binary or an http(s) URL: %v", target, err)
	}
	if name == "" {
		name = filepath.Base(abs)
	}
	if !fi.IsDir() {
		if fi.Mode()&0o111 == 0 && runtime.GOOS != "windows" {
			return launch{}, fmt.Errorf("%s is not executable: want a server main's directory, a server binary or an http(s) URL", target)
		}
		return launch{Name: name, Command: abs, Args: []string{}}, nil
	}
	if m, _ := filepath.Glob(filepath.Join(abs, "*.go")); len(m) == 0 {
		return launch{}, fmt.Errorf("%s holds no Go files: want a server main's directory (mcpgen -server DIR writes one)", target)
	}
	return goRun(abs, name)
}

// goRun is the launch of the main package in the directory abs with go run.
func goRun(abs, name string) (launch, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return launch{}, fmt.Errorf("find the go command: %w", err)
	}
	if goCmd, err = filepath.Abs(goCmd); err != nil {
		return launch{}, err
	}
	return launch{Name: name, Command: goCmd, Args: []string{"run", "-C", abs, "."}}, nil
}

// file is the configuration file of c for scope.
func (c clientSpec) file(scope string) (string, error) {
	switch scope {
	case "user":
		return c.user()
	case "project":
		if c.project == "" {
			return "", fmt.Errorf("%s has no project configuration file: use -scope user", c.title)
		}
		return filepath.Abs(c.project)
	}
	return "", fmt.Errorf("-scope must be user or project, got %q", scope)
}

// install adds or replaces the entry name in the file at path. It returns
// "added" or "updated", or "" when the file already held the same entry (and
// was not written).
func (c clientSpec) install(path, name string, entry []kv) (string, error) {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	prev, err := c.current(old, name)
	if err != nil {
		return "", fmt.Errorf("%s: %v (fix or move the file, then run again)", path, err)
	}
	if prev != nil && reflect.DeepEqual(prev, normalize(entry)) {
		return "", nil
	}
	doc, err := c.render(old, name, entry)
	if err != nil {
		return "", fmt.Errorf("%s: %v", path, err)
	}
	if len(old) > 0 {
		if err := os.WriteFile(path+".bak", old, mode); err != nil {
			return "", fmt.Errorf("back up %s: %v", path, err)
		}
	}
	if err := writeMode(path, doc, mode); err != nil {
		return "", err
	}
	if prev != nil {
		return "updated", nil
	}
	return "added", nil
}

// current returns the entry name of the servers in the file data as plain
// JSON values (nil when absent); an error when data cannot be read.
func (c clientSpec) current(data []byte, name string) (any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var doc map[string]any
	if c.yaml {
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("not valid YAML: %v", err)
		}
	} else if err := json.Unmarshal(stripJSONC(data), &doc); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	servers, ok := doc[c.key]
	if !ok || servers == nil {
		return nil, nil
	}
	m, ok := servers.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%q is not an object", c.key)
	}
	e, ok := m[name]
	if !ok {
		return nil, nil
	}
	return normalize(e), nil
}

// normalize turns v into plain JSON values (maps, slices, float64, ...), so
// that entries read from JSON or YAML compare with the ones mcpgen writes.
func normalize(v any) any {
	if e, ok := v.([]kv); ok {
		m := map[string]any{}
		for _, p := range e {
			m[p.k] = p.v
		}
		v = m
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// render returns data (an existing file, or nil) with the entry name set in
// the servers member, every other member kept in its order.
func (c clientSpec) render(data []byte, name string, entry []kv) ([]byte, error) {
	if c.yaml {
		return renderYAML(data, c.key, name, entry)
	}
	return renderJSON(data, c.key, name, entry)
}

// renderJSON sets key.name in the JSON object data, keeping the order of the
// other members. Comments (VS Code's files may hold some) are dropped.
func renderJSON(data []byte, key, name string, entry []kv) ([]byte, error) {
	top, err := orderedObject(stripJSONC(data))
	if err != nil {
		return nil, err
	}
	servers, err := orderedObject(top.get(key))
	if err != nil {
		return nil, fmt.Errorf("%q: %v", key, err)
	}
	var eb bytes.Buffer
	eb.WriteByte('{')
	for i, p := range entry {
		if i > 0 {
			eb.WriteByte(',')
		}
		k, _ := json.Marshal(p.k)
		v, err := json.Marshal(p.v)
		if err != nil {
			return nil, err
		}
		eb.Write(k)
		eb.WriteByte(':')
		eb.Write(v)
	}
	eb.WriteByte('}')
	servers.set(name, eb.Bytes())
	top.set(key, servers.encode())
	var out bytes.Buffer
	if err := json.Indent(&out, top.encode(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// An object is a JSON object's members in their order.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

// orderedObject reads a JSON object (empty data is an empty object).
func orderedObject(data []byte) (*object, error) {
	o := &object{vals: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(data)) == 0 || string(bytes.TrimSpace(data)) == "null" {
		return o, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(k, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *object) get(k string) json.RawMessage { return o.vals[k] }

func (o *object) set(k string, v json.RawMessage) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) encode() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// stripJSONC removes // and /* */ comments and trailing commas outside
// strings, so the JSON with comments VS Code accepts can be read.
func stripJSONC(data []byte) []byte {
	var out []byte
	inStr := false
	for i := 0; i < len(data); i++ {
		ch := data[i]
		switch {
		case inStr:
			out = append(out, ch)
			if ch == '\\' && i+1 < len(data) {
				i++
				out = append(out, data[i])
			} else if ch == '"' {
				inStr = false
			}
		case ch == '"':
			inStr = true
			out = append(out, ch)
		case ch == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			if i < len(data) {
				out = append(out, '\n')
			}
		case ch == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				return out
			}
			i += end + 3
		case ch == ']' || ch == '}':
			j := len(out) - 1
			for j >= 0 && (out[j] == ' ' || out[j] == '\t' || out[j] == '\n' || out[j] == '\r') {
				j--
			}
			if j >= 0 && out[j] == ',' {
				out = append(out[:j], out[j+1:]...)
			}
			out = append(out, ch)
		default:
			out = append(out, ch)
		}
	}
	return out
}

// renderYAML sets key.name in the YAML mapping data, keeping the other keys,
// their order and comments.
func renderYAML(data []byte, key, name string, entry []kv) ([]byte, error) {
	var doc yaml.Node
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("not valid YAML: %v", err)
		}
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, errors.New("the document is not a mapping")
	}
	servers := mappingValue(root, key)
	if servers.Kind != yaml.MappingNode { // absent or null
		*servers = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	val := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, p := range entry {
		var v yaml.Node
		if err := v.Encode(p.v); err != nil {
			return nil, err
		}
		if v.Kind == yaml.SequenceNode {
			v.Style = yaml.FlowStyle
		}
		val.Content = append(val.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p.k}, &v)
	}
	*mappingValue(servers, name) = *val
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// mappingValue returns the value node of key in the mapping m, appending an
// empty one when key is absent.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
	return v
}

// writeMode writes data to path atomically, the file created with mode (the
// permissions of the file it replaces: a client's file may hold secrets).
func writeMode(path string, data []byte, mode fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*.tmp") // mode 0600
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err == nil {
		err = tmp.Chmod(mode)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
