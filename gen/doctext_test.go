package gen

import "testing"

func TestDropIdent(t *testing.T) {
	for _, tt := range []struct{ text, ident, want string }{
		{"ListIssues lists the issues of a repository.", "ListIssues", "Lists the issues of a repository."},
		{"Search finds documents.", "Search", "Finds documents."},
		{"Forecast returns the weather.\n\nMore.", "Forecast", "Returns the weather.\n\nMore."},
		{"Greeting is a prompt with no arguments.", "Greeting", "Greeting is a prompt with no arguments."},
		{"Open opens an incident.", "Open", "Opens an incident."},
		{"Lookup echoes a record's ID.", "Lookup", "Echoes a record's ID."},
		{"Opens an incident.", "Open", "Opens an incident."},
		{"Search the notes.", "Search", "Search the notes."},
		{"Search Notes finds.", "Search", "Search Notes finds."},
		{"Process access logs.", "Process", "Process access logs."},
		{"Bump address books.", "Bump", "Bump address books."},
		{"Report always fails.", "Report", "Report always fails."},
		{"SearchNotes", "SearchNotes", "SearchNotes"},
	} {
		if got := dropIdent(tt.text, tt.ident); got != tt.want {
			t.Errorf("dropIdent(%q, %q) = %q, want %q", tt.text, tt.ident, got, tt.want)
		}
	}
}
