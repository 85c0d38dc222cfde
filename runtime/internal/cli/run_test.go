package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/store"
)

// TestRun: each outcome of Run with its exit code, and the set-up order.
func TestRun(t *testing.T) {
	var steps []string
	program := func(serveErr, configErr error) Program {
		steps = nil
		return Program{Name: "srv", Version: "srv 1.0", Serves: func() []string { return []string{"tools: add"} },
			SetLogLevel: func(l slog.Level) { steps = append(steps, "level "+l.String()) },
			Audit:       func(io.Writer) { steps = append(steps, "audit") },
			SetStore:    func(store.Store) { steps = append(steps, "store") },
			Configure: func(http bool) error {
				steps = append(steps, map[bool]string{true: "configure http", false: "configure stdio"}[http])
				return configErr
			},
			Serve: func(_ context.Context, f Flags, _ io.Reader, _ io.Writer) error {
				steps = append(steps, "serve "+f.HTTPAddr)
				return serveErr
			},
			Failed: func(error) { steps = append(steps, "failed") },
		}
	}
	for _, tc := range []struct {
		args             []string
		serveErr, cfgErr error
		code             int
		steps, stdout    string
		stderr           string
	}{
		{nil, nil, nil, 0, "level INFO,configure stdio,serve ", "", ""},
		{[]string{"-version"}, nil, nil, 0, "level INFO", "srv 1.0\n", ""},
		{[]string{"-h"}, nil, nil, 0, "", "", "add"},
		{[]string{"-nosuch"}, nil, nil, 2, "", "", "srv: flag provided but not defined"},
		{[]string{"-http", ":0", "-audit", "-log-level", "debug"}, nil, nil, 0, "level DEBUG,audit,configure http,serve :0", "", ""},
		{[]string{"-store", "memory"}, errors.New("boom"), nil, 1, "level INFO,configure stdio,serve ,failed", "", ""},
		{[]string{"-store", "nosuch://x"}, nil, nil, 1, "level INFO", "", "srv: -store:"},
		{nil, nil, errors.New("no OAuth on stdio"), 2, "level INFO,configure stdio", "", "srv: no OAuth on stdio"},
	} {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), program(tc.serveErr, tc.cfgErr), tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != tc.code || strings.Join(steps, ",") != tc.steps || stdout.String() != tc.stdout || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("%q: code %d, steps %q, stdout %q, stderr %q", tc.args, code, steps, stdout.String(), stderr.String())
		}
	}
}

// TestStoreURLPasswordNotEchoed (issue 32): a -store URL that does not parse
// is reported without its password (url.Parse's error repeats the whole URL).
func TestStoreURLPasswordNotEchoed(t *testing.T) {
	for _, raw := range []string{
		"redis://admin:s3cr%zzet@redis.example:6379/0", // a bad escape in the password
		"redis://:s3cr%zzet@redis.example:6379/0",
		"redis://admin:s3cr/et@redis.example:port/0", // a bad port
		"rediss://s3cr%zzet@redis.example/0",
	} {
		var stderr bytes.Buffer
		p := Program{Name: "srv", Version: "1", Serves: func() []string { return nil },
			Serve: func(ctx context.Context, f Flags, stdin io.Reader, stdout io.Writer) error { return nil }}
		code := Run(context.Background(), p, []string{"-store", raw}, strings.NewReader(""), io.Discard, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), "-store: store URL") {
			t.Errorf("-store %s: exit %d, stderr %s", raw, code, stderr.String())
		}
		if strings.Contains(stderr.String(), "s3cr") {
			t.Errorf("-store %s: the password is echoed: %s", raw, stderr.String())
		}
		if !strings.Contains(stderr.String(), "redis.example") {
			t.Errorf("-store %s: the error does not say which URL: %s", raw, stderr.String())
		}
	}
}
