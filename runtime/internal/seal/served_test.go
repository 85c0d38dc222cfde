package seal

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestRandomKeyLogOnlyOverHTTP: the line about replicas needing a shared
// key appears once a sealer serves HTTP, never for a stdio-only server.
func TestRandomKeyLogOnlyOverHTTP(t *testing.T) {
	t.Setenv(KeyEnv, "")
	var buf bytes.Buffer
	sl := New(nil, time.Minute, slog.New(slog.NewTextHandler(&buf, nil)))
	if _, err := sl.Seal(&State{Method: "tools/call"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "replicas") {
		t.Errorf("stdio-only sealer logged %q", buf.String())
	}
	sl.ServedOverHTTP()
	if _, err := sl.Seal(&State{Method: "tools/call"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "replicas need a shared key") || !strings.Contains(buf.String(), KeyEnv) {
		t.Errorf("served over HTTP: log %q lacks the shared-key line naming %s", buf.String(), KeyEnv)
	}
}
