package runtime_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/mcpgen/mcpgen/examples/everything"
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// Helpers shared by the reliability tests (bad input, faults, fuzzing, security).

// modernMeta is the _meta of a 2026-07-28 request; modernMetaParams is it as a
// trailing params member.
const (
	modernMeta       = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"rel","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	modernMetaParams = `,"_meta":` + modernMeta
)

// legacyInit is a 2025-11-25 initialize request.
const legacyInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"rel","version":"1"}}}`

// quietLogger discards the server's logs.
func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// legacySession returns an initialized 2025-11-25 session of s.
func legacySession(t testing.TB, s *mcpruntime.Server) *mcpruntime.Session {
	t.Helper()
	sess := s.NewSession(nil)
	t.Cleanup(sess.Close)
	if r := s.HandleRaw(context.Background(), []byte(legacyInit), sess, nil); r.Code != 0 {
		t.Fatalf("initialize: got %s", r.Body)
	}
	s.HandleRaw(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), sess, nil)
	return sess
}

// registerEverything registers the everything example's tools, resources and prompts.
func registerEverything(s *mcpruntime.Server) { everything.RegisterMCP(s) }
