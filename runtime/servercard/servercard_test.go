package servercard

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

const testCard = `{"$schema":"https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json","name":"io.github.acme/notes","description":"Finds notes.","version":"1.2.0","remotes":[{"type":"streamable-http","url":"https://notes.example.com/mcp"}]}`

// startListen runs ListenAndServe on a free loopback port with opts and
// returns its base URL once it answers.
func startListen(t *testing.T, s *mcpruntime.Server, opts *mcpruntime.HTTPOptions) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ListenAndServe(ctx, addr, opts) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("ListenAndServe did not stop")
		}
	})
	for range 200 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("ListenAndServe did not start on %s", addr)
	return ""
}

func get(t *testing.T, method, url string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// TestServerCardServed checks the Server Card over real HTTP at
// <endpoint>/server-card: the media type, CORS, caching with ETag and 304,
// 405 for a POST, and the AI Catalog carrying the same card when asked.
func TestServerCardServed(t *testing.T) {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "notes", Version: "1.2.0"}, &mcpruntime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	Use(s, []byte(testCard)).SetOptions(Options{AICatalog: true})
	base := startListen(t, s, nil)

	resp, body := get(t, http.MethodGet, base+"/mcp/server-card", map[string]string{"Accept": MediaType})
	if resp.StatusCode != 200 || body != testCard {
		t.Fatalf("GET /mcp/server-card: %d %q", resp.StatusCode, body)
	}
	for k, want := range map[string]string{"Content-Type": MediaType, "Access-Control-Allow-Origin": "*",
		"Access-Control-Expose-Headers": "ETag", "Cache-Control": "public, max-age=3600"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	tag := resp.Header.Get("ETag")
	if tag == "" {
		t.Fatal("no ETag")
	}
	if resp, _ := get(t, http.MethodGet, base+"/mcp/server-card", map[string]string{"If-None-Match": tag}); resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match with the tag: %d, want 304", resp.StatusCode)
	}
	if resp, _ := get(t, http.MethodPost, base+"/mcp/server-card", nil); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", resp.StatusCode)
	}
	resp, body = get(t, http.MethodGet, base+AICatalogPath, nil)
	var cat struct {
		Entries []struct {
			Identifier, Type string
			Data             json.RawMessage
		}
	}
	if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &cat) != nil || len(cat.Entries) != 1 {
		t.Fatalf("GET %s: %d %s", AICatalogPath, resp.StatusCode, body)
	}
	if e := cat.Entries[0]; e.Identifier != "urn:air:acme.github.io:mcp:notes" || e.Type != MediaType || string(e.Data) != testCard {
		t.Errorf("catalog entry %+v", e)
	}
}

// TestServerCardPathAndAuth checks that the card path is configurable, that
// "-" serves none, that without a card nothing is served, and that behind
// authentication (a Mount guarding the endpoint, as runtime/auth does) the
// card stays public like the protected resource metadata beside it.
func TestServerCardPathAndAuth(t *testing.T) {
	quiet := &mcpruntime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	guard := func(mux *http.ServeMux, path string, mcp http.Handler) {
		mux.Handle(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			mcp.ServeHTTP(w, r)
		}))
	}
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "notes", Version: "1.2.0"}, quiet)
	Use(s, []byte(testCard)).SetOptions(Options{Path: "/card.json"})
	base := startListen(t, s, &mcpruntime.HTTPOptions{Mount: guard})
	if resp, body := get(t, http.MethodGet, base+"/card.json", nil); resp.StatusCode != 200 || body != testCard {
		t.Errorf("GET /card.json behind auth: %d %q, want the card", resp.StatusCode, body)
	}
	if resp, _ := get(t, http.MethodGet, base+"/mcp/server-card", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("default path with Options.Path set: %d, want 404", resp.StatusCode)
	}
	if resp, _ := get(t, http.MethodPost, base+"/mcp", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the endpoint lost its guard: %d, want 401", resp.StatusCode)
	}
	if resp, _ := get(t, http.MethodGet, base+AICatalogPath, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("AI Catalog without AICatalog: %d, want 404", resp.StatusCode)
	}

	off := mcpruntime.NewServer(mcpruntime.Implementation{Name: "notes", Version: "1.2.0"}, quiet)
	Use(off, []byte(testCard)).SetOptions(Options{Path: "-"})
	base = startListen(t, off, nil)
	if resp, _ := get(t, http.MethodGet, base+"/mcp/server-card", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf(`Path "-": %d, want 404`, resp.StatusCode)
	}
	none := mcpruntime.NewServer(mcpruntime.Implementation{Name: "notes", Version: "1.2.0"}, quiet)
	base = startListen(t, none, nil)
	if resp, _ := get(t, http.MethodGet, base+"/mcp/server-card", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("no card: %d, want 404", resp.StatusCode)
	}
}

// TestUseOnce: a server has one card: Use again replaces its document and
// keeps its options, registering no second extension (whose routes would
// clash on the mux); Of finds it; a card without a name is refused.
func TestUseOnce(t *testing.T) {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "notes", Version: "1.2.0"}, &mcpruntime.Options{Logger: slog.New(slog.DiscardHandler)})
	if Of(s) != nil {
		t.Fatal("Of: a card before Use")
	}
	c := Use(s, []byte(testCard))
	c.SetOptions(Options{Path: "/card.json"})
	other := `{"name":"io.github.acme/other"}`
	if again := Use(s, []byte(other)); again != c || Of(s) != c {
		t.Fatalf("Use again: %p, Of %p, want the first card %p", again, Of(s), c)
	}
	if n := len(s.Extensions()); n != 1 {
		t.Fatalf("%d extensions after two Use, want 1", n)
	}
	base := startListen(t, s, &mcpruntime.HTTPOptions{LegacySSE: true}) // the routed mux of the HTTP+SSE transport
	if resp, body := get(t, http.MethodGet, base+"/card.json", nil); resp.StatusCode != 200 || body != other || string(c.JSON()) != other {
		t.Errorf("after Use again: %d %q (JSON %q), want %q", resp.StatusCode, body, c.JSON(), other)
	}
	if resp, _ := get(t, http.MethodGet, base+"/sse", map[string]string{"Accept": "text/plain"}); resp.StatusCode != http.StatusNotAcceptable {
		t.Errorf("GET /sse beside the card: %d, want the HTTP+SSE transport's 406", resp.StatusCode)
	}
	defer func() {
		if recover() == nil {
			t.Error("Use with a card without a name did not panic")
		}
	}()
	Use(s, []byte(`{"description":"no name"}`))
}
