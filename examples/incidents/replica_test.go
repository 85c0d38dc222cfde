package incidents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/examples/incidents/incidentsclient"
	"github.com/mcpgen/mcpgen/internal/testproc"
)

// A replica is one incidents-server process serving HTTP.
type replica struct{ *testproc.Server }

// startReplica starts bin on a free port with the store and the extra environment.
func startReplica(t *testing.T, bin, storeURL string, env ...string) *replica {
	t.Helper()
	// The callers hold incident:create (no OAuth server in this test), and the
	// replicas share the requestState key: a consent round may end on another.
	env = append([]string{"MCP_ANONYMOUS_SCOPES=incident:create", "MCP_STATE_KEY=replica-test-shared-state-key-0123"}, env...)
	return &replica{testproc.Start(t, bin, []string{"-store", storeURL}, env...)}
}

// post sends a create_incident_ticket write (confirming its consent question);
// err is a transport failure (the process died).
func (r *replica) post(args map[string]any) (json.RawMessage, error) {
	return incidentsclient.CreateTicket(http.DefaultClient, r.URL, args)
}

// journalLines returns the tickets the journal recorded for key.
func journalLines(t *testing.T, path, key string) []string {
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e struct {
			TicketID       string `json:"ticket_id"`
			IdempotencyKey string `json:"idempotency_key"`
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.IdempotencyKey == key {
			ids = append(ids, e.TicketID)
		}
	}
	return ids
}

// TestKilledReplica: a replica dies after creating a ticket and before it
// replies; the retry on another replica sharing Redis reconciles the lapsed
// claim (reconcile=FindIncidentTicket reads the shared journal): it gets the
// receipt of the ticket the dead replica created, never a second ticket, and
// later retries replay it. A replica killed after replying keeps its receipt:
// the retry elsewhere gets the same bytes.
func TestKilledReplica(t *testing.T) {
	storeURL := testproc.Redis(t)
	bin := testproc.Build(t, "./cmd/incidents-server")
	journal := filepath.Join(t.TempDir(), "journal")
	run := time.Now().UnixNano()

	// Died between the side effect and the reply.
	key := fmt.Sprintf("killed-%d", run)
	a := startReplica(t, bin, storeURL, "INCIDENTS_JOURNAL="+journal, "INCIDENTS_CRASH_AFTER_COMMIT=1")
	if res, err := a.post(ticketArgs(key)); err == nil {
		t.Fatalf("the crashing replica answered: %s", res)
	}
	if ids := journalLines(t, journal, key); len(ids) != 1 {
		t.Fatalf("journal has %v for the key, want one ticket", ids)
	}
	b := startReplica(t, bin, storeURL, "INCIDENTS_JOURNAL="+journal)
	var r callResult
	for range 100 { // in_progress until the dead replica's lease lapses
		res, err := b.post(ticketArgs(key))
		if err != nil {
			t.Fatal(err)
		}
		r = decodeResult(t, res)
		if r.Meta.Error == nil || r.Meta.Error.Code != "in_progress" {
			break
		}
	}
	ids := journalLines(t, journal, key)
	if len(ids) != 1 {
		t.Fatalf("journal has %v for the key after the retry, want still one ticket", ids)
	}
	if r.IsError || r.Meta.Receipt == nil || r.Meta.Receipt.ExternalID != ids[0] || r.Meta.Receipt.Status != "committed" {
		t.Fatalf("retry elsewhere: got %+v, want the receipt of the dead replica's ticket %s", r, ids[0])
	}
	reconciled, err := b.post(ticketArgs(key))
	if err != nil {
		t.Fatal(err)
	}
	again, err := b.post(ticketArgs(key))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(reconciled, again) || decodeResult(t, again).Meta.Receipt.ExternalID != ids[0] {
		t.Fatalf("replays of the reconciled receipt differ:\n%s\n%s", reconciled, again)
	}

	// Killed after replying: the receipt survives the process.
	key = fmt.Sprintf("replied-%d", run)
	first, err := b.post(ticketArgs(key))
	if err != nil {
		t.Fatal(err)
	}
	b.Kill()
	c := startReplica(t, bin, storeURL, "INCIDENTS_JOURNAL="+journal)
	again, err = c.post(ticketArgs(key))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, again) {
		t.Fatalf("retry on a new process:\n%s\nwant the first result\n%s", again, first)
	}
	if ids := journalLines(t, journal, key); len(ids) != 1 || decodeResult(t, first).Meta.Receipt.ExternalID != ids[0] {
		t.Fatalf("journal %v, receipt %s: want one ticket, the receipt's", ids, first)
	}
}
