package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/mcpgen/mcpgen/gen/model"
)

// clients are the values -client-config accepts.
var clients = []string{"claude-desktop", "claude-code", "vscode"}

// A launch is how a client starts a server over stdio.
type launch struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// clientConfig prints the JSON that makes client start the generated server
// over stdio: go run -C DIR . with the absolute path of the go command, so the
// client needs neither a PATH nor an install step.
func clientConfig(client string, srv *model.Server, stdout io.Writer) error {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("find the go command: %w", err)
	}
	if goCmd, err = filepath.Abs(goCmd); err != nil {
		return err
	}
	l := launch{Command: goCmd, Args: []string{"run", "-C", srv.Dir, "."}}
	var doc any
	switch client {
	case "claude-desktop": // claude_desktop_config.json
		doc = map[string]any{"mcpServers": map[string]launch{srv.Name: l}}
	case "claude-code": // .mcp.json at the project root
		l.Type = "stdio"
		doc = map[string]any{"mcpServers": map[string]launch{srv.Name: l}}
	case "vscode": // .vscode/mcp.json
		l.Type = "stdio"
		doc = map[string]any{"servers": map[string]launch{srv.Name: l}}
	default:
		return fmt.Errorf("unknown client %q (want one of %v)", client, clients)
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}

// knownClient reports whether -client-config accepts name.
func knownClient(name string) bool { return slices.Contains(clients, name) }

// absPath resolves path against dir unless it is absolute.
func absPath(dir, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}
