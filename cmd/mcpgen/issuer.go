package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/runtime/auth/authtest"
)

// runIssuer is `mcpgen issuer`: a test OAuth authorization server on a
// loopback address (runtime/auth/authtest), so that a server's -auth-issuer
// can be tried without a real one; `mcpgen issuer token` asks it for a token.
func runIssuer(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "token" {
		return runIssuerToken(ctx, args[1:], stdout, stderr)
	}
	fl := flag.NewFlagSet("mcpgen issuer", flag.ContinueOnError)
	fl.SetOutput(stderr)
	addr := fl.String("addr", "127.0.0.1:9400", "serve on `host:port`, a loopback address")
	audience := fl.String("audience", "http://127.0.0.1:8080/mcp", "the `uri` tokens name in aud when the request names no resource")
	ttl := fl.Duration("ttl", time.Hour, "token `lifetime`")
	fl.Usage = func() {
		fmt.Fprint(stderr, `usage: mcpgen issuer [-addr host:port] [-audience uri] [-ttl d]
       mcpgen issuer token [-issuer url] [-sub subject] [-client id] [-scope 'a b'] [-aud uri]

mcpgen issuer serves a TEST OAuth authorization server on a loopback address:
discovery metadata, a JWKS, and a token endpoint that gives any client a signed
JWT access token (typ at+jwt) for any subject and scopes. It is for trying a
server's -auth-issuer and for tests, never for production. Its key is made
anew at each start. See docs/auth.md, "Try it locally".

flags:
`)
		fl.PrintDefaults()
	}
	if code, ok := parseNoArgs(fl, args, stderr, "issuer"); !ok {
		return code
	}
	host, _, err := net.SplitHostPort(*addr)
	if ip := net.ParseIP(host); err != nil || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
		usageError(stderr, "issuer: -addr %s is not a loopback host:port: this test issuer gives a token to anyone who asks", *addr)
		return exitUsage
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: issuer: %v\n", err)
		return exitError
	}
	issuerURL := "http://" + ln.Addr().String()
	is, err := authtest.New(issuerURL, &authtest.Options{Audience: *audience, TTL: *ttl})
	if err != nil {
		ln.Close()
		fmt.Fprintf(stderr, "mcpgen: issuer: %v\n", err)
		return exitError
	}
	srv := &http.Server{Handler: is.Handler(), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	mcpAddr := "127.0.0.1:8080"
	if u, err := url.Parse(*audience); err == nil && u.Host != "" {
		mcpAddr = u.Host
	}
	fmt.Fprintf(stdout, `mcpgen issuer: TEST authorization server (any client gets any token; never use it in production)
issuer   %[1]s
metadata %[1]s%[2]s
jwks     %[1]s%[3]s

Start a server generated with scopes (or mcpgen -with auth) against it:
  SERVER -http %[4]s -auth-issuer %[1]s -auth-audience %[5]s
Mint a token with the scopes your tools declare (mcpgen -docs lists them), in another terminal:
  mcpgen issuer token -issuer %[1]s -sub alice -scope 'incident:create:p1'
or ask the token endpoint (client_credentials; subject= is a test-only parameter):
  curl -s %[1]s%[6]s -d grant_type=client_credentials -d client_id=dev -d subject=alice -d scope=incident:create:p1 -d resource=%[5]s
then call the server with the header: Authorization: Bearer TOKEN
`, issuerURL, authtest.PathMetadata, authtest.PathJWKS, mcpAddr, *audience, authtest.PathToken)
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "mcpgen: issuer: %v\n", err)
		return exitError
	}
	return exitOK
}

// parseNoArgs parses the flags of a subcommand that takes no argument; when
// ok is false the command ends with code (exitOK after -h).
func parseNoArgs(fl *flag.FlagSet, args []string, stderr io.Writer, cmd string) (code int, ok bool) {
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		return exitUsage, false
	}
	if fl.NArg() > 0 {
		usageError(stderr, "%s: unexpected argument %q", cmd, fl.Arg(0))
		return exitUsage, false
	}
	return 0, true
}

// runIssuerToken is `mcpgen issuer token`: it asks a running test issuer's
// token endpoint for an access token and prints it.
func runIssuerToken(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("mcpgen issuer token", flag.ContinueOnError)
	fl.SetOutput(stderr)
	issuer := fl.String("issuer", "http://127.0.0.1:9400", "the test issuer's `url`")
	sub := fl.String("sub", "", "the token's `subject` (default: the client id)")
	client := fl.String("client", "dev", "the token's client `id`")
	scope := fl.String("scope", "", "granted `scopes`, space-separated")
	aud := fl.String("aud", "", "the token's audience, the server's resource `uri` (default: the issuer's -audience)")
	if code, ok := parseNoArgs(fl, args, stderr, "issuer token"); !ok {
		return code
	}
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {*client}}
	if *sub != "" {
		form.Set("subject", *sub)
	}
	if *scope != "" {
		form.Set("scope", *scope)
	}
	if *aud != "" {
		form.Set("resource", *aud)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(*issuer, "/")+authtest.PathToken, strings.NewReader(form.Encode()))
	if err != nil {
		usageError(stderr, "issuer token: -issuer: %v", err)
		return exitUsage
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: issuer token: %v (is `mcpgen issuer` running?)\n", err)
		return exitError
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&body); err != nil || body.AccessToken == "" {
		fmt.Fprintf(stderr, "mcpgen: issuer token: %s: %s %s\n", resp.Status, body.Error, body.Description)
		return exitError
	}
	fmt.Fprintln(stdout, body.AccessToken)
	return exitOK
}
