package goplsport

// The input and output types of the eight tools gopls v0.23.0 (`gopls mcp`)
// enables by default, written anew from the schemas it advertises. gopls
// writes them for the official Go SDK, with each description in the
// jsonschema tag; here each is the field's doc comment, which is what
// mcpgen -fix makes of such a tag (testdata/fix/gosdk_gopls.txtar in the
// mcpgen repository). docs/migrating.md compares the schemas side by side.

// PackageAPIParams are the arguments of go_package_api.
type PackageAPIParams struct {
	// the go package paths to describe
	PackagePaths []string `json:"packagePaths"`
}

// DiagnosticsParams are the arguments of go_diagnostics.
type DiagnosticsParams struct {
	// absolute paths to active files, if any
	Files []string `json:"files,omitempty"`
}

// RenameSymbolParams are the arguments of go_rename_symbol.
type RenameSymbolParams struct {
	// the absolute path to the file containing the symbol
	File string `json:"file"`
	// the symbol or qualified symbol
	Symbol string `json:"symbol"`
	// the new name for the symbol
	NewName string `json:"new_name"`
}

// SymbolReferencesParams are the arguments of go_symbol_references.
type SymbolReferencesParams struct {
	// the absolute path to the file containing the symbol
	File string `json:"file"`
	// the symbol or qualified symbol
	Symbol string `json:"symbol"`
}

// SearchParams are the arguments of go_search.
type SearchParams struct {
	// the fuzzy search query to use for matching symbols
	Query string `json:"query"`
}

// FileContextParams are the arguments of go_file_context.
type FileContextParams struct {
	// the absolute path to the file
	File string `json:"file"`
}

// VulncheckParams are the arguments of go_vulncheck.
type VulncheckParams struct {
	// directory to run the vulnerability check within
	Dir string `json:"dir,omitempty"`
	// package pattern to check
	Pattern string `json:"pattern,omitempty"`
}

// VulncheckResult is the structured result of go_vulncheck.
type VulncheckResult struct {
	Findings []VulnFinding `json:"findings,omitempty"`
	Logs     string        `json:"logs,omitempty"`
}

// A VulnFinding is one vulnerability and the packages it affects.
type VulnFinding struct {
	ID               string   `json:"id"`
	Details          string   `json:"details"`
	AffectedPackages []string `json:"affectedPackages"`
}
