package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/examples/incidents/incidentsclient"
	"github.com/mcpgen/mcpgen/internal/testproc"
)

// bearer is a RoundTripper adding an access token to every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestIssuerEndToEnd (issue 36): `mcpgen issuer` serves a test authorization
// server; the generated incidents server started with -auth-issuer pointing at
// it verifies the tokens `mcpgen issuer token` mints, over real HTTP: a token
// with incident:create:p1 opens a P1 incident (consent answered), a P2-only
// token is refused 403, no token 401. The same binary reports a -store URL
// that does not parse without its password (issue 32).
func TestIssuerEndToEnd(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	aud := "http://" + addr + "/mcp"

	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var issStderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"issuer", "-addr", "127.0.0.1:0", "-audience", aud}, pw, &issStderr)
		pw.Close()
	}()
	defer func() {
		cancel()
		if code := <-done; code != exitOK {
			t.Errorf("mcpgen issuer exited %d: %s", code, issStderr.String())
		}
	}()
	sc := bufio.NewScanner(pr)
	var issuer string
	var printed strings.Builder
	for sc.Scan() {
		printed.WriteString(sc.Text() + "\n")
		if v, ok := strings.CutPrefix(sc.Text(), "issuer   "); ok {
			issuer = v
		}
		if strings.HasPrefix(sc.Text(), "then call the server") {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if issuer == "" {
		t.Fatalf("mcpgen issuer printed no issuer URL: %s %s", printed.String(), issStderr.String())
	}
	for _, want := range []string{"-auth-issuer " + issuer + " -auth-audience " + aud, "mcpgen issuer token -issuer " + issuer} {
		if !strings.Contains(printed.String(), want) {
			t.Errorf("mcpgen issuer's instructions lack %q:\n%s", want, printed.String())
		}
	}

	bin := testproc.Build(t, "../../examples/incidents/cmd/incidents-server")
	srv := testproc.Start(t, bin, []string{"-http", addr, "-auth-issuer", issuer, "-auth-audience", aud})

	token := func(scope string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(ctx, []string{"issuer", "token", "-issuer", issuer, "-sub", "alice", "-scope", scope}, &out, &errb); code != exitOK {
			t.Fatalf("mcpgen issuer token: exit %d: %s", code, errb.String())
		}
		return strings.TrimSpace(out.String())
	}
	args := map[string]any{"title": "Payments timeouts", "severity": "P1",
		"evidence_ids": []string{"status-payments-0001"}, "idempotency_key": "issuer-e2e-1"}
	res, err := incidentsclient.CreateTicket(&http.Client{Transport: bearer(token("incident:create:p1"))}, srv.URL, args)
	if err != nil {
		t.Fatalf("P1 with incident:create:p1: %v", err)
	}
	var r struct {
		IsError    bool            `json:"isError"`
		Structured json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.IsError || !bytes.Contains(r.Structured, []byte(`"ticket_id"`)) {
		t.Fatalf("P1 with incident:create:p1: %s", res)
	}
	args["idempotency_key"] = "issuer-e2e-2"
	if _, err := incidentsclient.CreateTicket(&http.Client{Transport: bearer(token("incident:create:p2"))}, srv.URL, args); err == nil || !strings.Contains(err.Error(), "status 403") {
		t.Errorf("P1 with a P2-only token: %v, want status 403", err)
	}
	if _, err := incidentsclient.CreateTicket(http.DefaultClient, srv.URL, args); err == nil || !strings.Contains(err.Error(), "status 401") {
		t.Errorf("no token: %v, want status 401", err)
	}

	// -store with a password in a URL that does not parse.
	cmd := exec.Command(bin, "-http", "127.0.0.1:0", "-store", "redis://admin:s3cr%zzet@redis.example:6379/0")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || bytes.Contains(out, []byte("s3cr")) || !bytes.Contains(out, []byte("redis.example")) {
		t.Errorf("-store with a bad URL: %v\n%s", err, out)
	}
}

// TestIssuerRefusesPublicAddress: the test issuer gives tokens to anyone, so
// it serves on loopback only.
func TestIssuerRefusesPublicAddress(t *testing.T) {
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"issuer", "-addr", "0.0.0.0:9400"}, io.Discard, &stderr); code != exitUsage ||
		!strings.Contains(stderr.String(), "not a loopback") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
}

// TestIssuerUsage: both issuer commands refuse an argument (usage, exit 2)
// and exit 0 on -h.
func TestIssuerUsage(t *testing.T) {
	for _, args := range [][]string{{"issuer", "extra"}, {"issuer", "token", "extra"}} {
		var stderr bytes.Buffer
		if code := run(context.Background(), args, io.Discard, &stderr); code != exitUsage ||
			!strings.Contains(stderr.String(), `unexpected argument "extra"`) {
			t.Errorf("%q: exit %d: %s", args, code, stderr.String())
		}
		if code := run(context.Background(), append(args[:len(args)-1:len(args)-1], "-h"), io.Discard, io.Discard); code != exitOK {
			t.Errorf("%q -h: exit %d, want %d", args[:len(args)-1], code, exitOK)
		}
	}
}
