package mcpgentest_test

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/examples/everything"
	"github.com/mcpgen/mcpgen/examples/incidents"
	"github.com/mcpgen/mcpgen/examples/notes"
	"github.com/mcpgen/mcpgen/mcpgentest"
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// recorder is a TB that keeps the failures instead of reporting them.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

func quiet() *mcpruntime.Options {
	return &mcpruntime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func incidentsServer(t *testing.T) *mcpruntime.Server {
	t.Helper()
	d, err := incidents.NewDesk()
	if err != nil {
		t.Fatal(err)
	}
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "incidents", Version: "test"}, quiet())
	incidents.RegisterMCP(s, d)
	return s
}

var eras = []string{mcpgentest.Modern, mcpgentest.Legacy}

func TestCallToolTyped(t *testing.T) {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "notes", Version: "test"}, quiet())
	notes.RegisterMCP(s)
	for _, era := range eras {
		out, te := mcpgentest.CallTool[notes.SearchResult](t, s, "search_notes",
			notes.SearchInput{Keyword: "mcp", Limit: 1}, mcpgentest.Version(era))
		if te != nil || len(out.Matches) != 1 || !out.Truncated {
			t.Errorf("%s: got %+v, %v; want one match, truncated", era, out, te)
		}
		// Arguments that break the schema are a ToolError the model can act on.
		_, te = mcpgentest.CallTool[notes.SearchResult](t, s, "search_notes",
			map[string]any{"keyword": 42}, mcpgentest.Version(era))
		if te == nil || te.Code != mcpruntime.ErrCodeInvalidArguments || !te.Retryable {
			t.Errorf("%s: bad arguments: got %v, want a retryable invalid_arguments", era, te)
		}
	}
}

func ticket(key string) incidents.TicketInput {
	return incidents.TicketInput{Title: "Payments timeouts", Severity: incidents.P1,
		EvidenceIDs: []string{"status-payments-0001"}, IdempotencyKey: key}
}

// TestUnansweredQuestionFails: a question the call has no answer for fails
// the test, naming the question, in both eras; nothing is created.
func TestUnansweredQuestionFails(t *testing.T) {
	for _, era := range eras {
		s := incidentsServer(t)
		var r recorder
		mcpgentest.CallTool[incidents.Receipt](&r, s, "create_incident_ticket", ticket("key-00000001"), mcpgentest.Version(era))
		if len(r.errs) == 0 || !strings.Contains(strings.Join(r.errs, "\n"), "no answer") {
			t.Errorf("%s: got failures %q, want one about the unanswered question", era, r.errs)
		}
	}
}

// TestCallerAndCapabilities: As, Anonymous and Capabilities reach the
// server's checks.
func TestCallerAndCapabilities(t *testing.T) {
	for _, era := range eras {
		s := incidentsServer(t)
		v := mcpgentest.Version(era)
		_, te := mcpgentest.CallTool[incidents.Receipt](t, s, "create_incident_ticket", ticket("key-00000002"),
			v, mcpgentest.Anonymous(), mcpgentest.Confirm(true))
		if te == nil || te.Code != mcpruntime.ErrCodeForbidden {
			t.Errorf("%s: anonymous: got %v, want forbidden", era, te)
		}
		// Without the elicitation capability the consent question is -32021.
		var r recorder
		mcpgentest.CallTool[incidents.Receipt](&r, s, "create_incident_ticket", ticket("key-00000003"),
			v, mcpgentest.Capabilities(`{}`), mcpgentest.Confirm(true))
		if !strings.Contains(strings.Join(r.errs, "\n"), "-32021") {
			t.Errorf("%s: no elicitation capability: got %q, want a -32021 failure", era, r.errs)
		}
		rc, te := mcpgentest.CallTool[incidents.Receipt](t, s, "create_incident_ticket", ticket("key-00000004"),
			v, mcpgentest.As("oncall", "incident:create:p1"), mcpgentest.Confirm(true))
		if te != nil || rc.Status != "committed" {
			t.Errorf("%s: got %+v, %v; want committed", era, rc, te)
		}
	}
}

// TestAcceptForm: an elicitation answered with Accept reaches the handler,
// and a string output is the result's text.
func TestAcceptForm(t *testing.T) {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "everything", Version: "test"}, quiet())
	everything.RegisterMCP(s)
	for _, era := range eras {
		got, te := mcpgentest.CallTool[string](t, s, "test_elicitation", map[string]string{"message": "who?"},
			mcpgentest.Version(era), mcpgentest.Accept("user_info", map[string]string{"username": "ada", "email": "ada@example.com"}))
		if te != nil || !strings.Contains(got, `action=accept`) || !strings.Contains(got, `"username":"ada"`) {
			t.Errorf("%s: got %q, %v", era, got, te)
		}
		got, te = mcpgentest.CallTool[string](t, s, "test_elicitation", map[string]string{"message": "who?"},
			mcpgentest.Version(era), mcpgentest.Decline("user_info"))
		if te != nil || got != "User response: action=decline" {
			t.Errorf("%s: declined: got %q, %v", era, got, te)
		}
	}
}

// A tool is called with typed input and output, in either era, as a given
// caller, answering its consent question.
func ExampleCallTool() {
	d, _ := incidents.NewDesk()
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "incidents", Version: "test"}, nil)
	incidents.RegisterMCP(s, d) // as the generated main does
	t := &testing.T{}           // in a test: the test's t

	in := incidents.TicketInput{Title: "Payments timeouts", Severity: incidents.P1,
		EvidenceIDs: []string{"status-payments-0001"}, IdempotencyKey: "key-00000042"}
	out, te := mcpgentest.CallTool[incidents.Receipt](t, s, "create_incident_ticket", in,
		mcpgentest.Version(mcpgentest.Legacy),         // 2025-11-25; the default is 2026-07-28
		mcpgentest.As("oncall", "incident:create:p1"), // the caller and its scopes
		mcpgentest.Confirm(true))                      // the user accepts the consent question
	fmt.Println(out.TicketID, out.Status, te)

	_, te = mcpgentest.CallTool[incidents.Receipt](t, s, "create_incident_ticket", in,
		mcpgentest.As("oncall", "incident:create:p2"), mcpgentest.Confirm(true))
	fmt.Println(te.Code)
	// Output:
	// INC-0001 committed <nil>
	// forbidden
}
