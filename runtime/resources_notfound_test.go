package runtime_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/mcpgentest"
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// TestResourceNotFoundIdioms: a handler's ErrResourceNotFound and a missing
// file (fs.ErrNotExist, as os.ReadFile returns) are the era's resource-not-found
// error with data.uri, without the path; any other error stays -32603.
func TestResourceNotFoundIdioms(t *testing.T) {
	dir := t.TempDir()
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "t", Version: "1"}, nil)
	s.AddResourceTemplate(&mcpruntime.ResourceTemplate{URITemplate: "file:///{name}", Name: "file",
		Handler: func(_ context.Context, req *mcpruntime.ResourceRequest) (*mcpruntime.ResourceResult, error) {
			switch name := req.Vars["name"]; name {
			case "sentinel":
				return nil, mcpruntime.ErrResourceNotFound
			case "broken":
				return nil, errors.New("disk on fire")
			default:
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					return nil, err
				}
				return mcpruntime.TextResource(string(b)), nil
			}
		}})
	if err := os.WriteFile(filepath.Join(dir, "here.txt"), []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	notFound := map[string]int{mcpgentest.Modern: -32602, mcpgentest.Legacy: -32002}
	for _, era := range []string{mcpgentest.Modern, mcpgentest.Legacy} {
		v := mcpgentest.Version(era)
		if got, rerr := mcpgentest.ReadResource(t, s, "file:///here.txt", v); rerr != nil || len(got) != 1 || got[0].Text != "hi" {
			t.Errorf("%s: here.txt: got %+v, %v", era, got, rerr)
		}
		for _, name := range []string{"sentinel", "missing.txt"} {
			uri := "file:///" + name
			_, rerr := mcpgentest.ReadResource(t, s, uri, v)
			if rerr == nil || rerr.Code != notFound[era] || !strings.Contains(string(rerr.Data), uri) {
				t.Errorf("%s: %s: got %v (data %s), want %d with data.uri", era, name, rerr, rerr.Data, notFound[era])
			} else if strings.Contains(rerr.Message, dir) {
				t.Errorf("%s: %s: the error names the server's path: %s", era, name, rerr.Message)
			}
		}
		if _, rerr := mcpgentest.ReadResource(t, s, "file:///broken", v); rerr == nil || rerr.Code != -32603 {
			t.Errorf("%s: broken: got %v, want -32603", era, rerr)
		}
	}
}
