package model

import "go/token"

// ContentsKind says how a resource handler's result becomes a
// mcpruntime.ResourceResult.
type ContentsKind int

const (
	// ContentsText: the handler returns a string, sent as text.
	ContentsText ContentsKind = iota
	// ContentsBlob: the handler returns []byte, sent base64-encoded as a blob.
	ContentsBlob
	// ContentsOne: the handler returns one mcpruntime.ResourceContents.
	ContentsOne
	// ContentsSlice: the handler returns []mcpruntime.ResourceContents.
	ContentsSlice
	// ContentsResult: the handler returns *mcpruntime.ResourceResult, passed through.
	ContentsResult
)

// String returns the Go name of k.
func (k ContentsKind) String() string {
	names := [...]string{"ContentsText", "ContentsBlob", "ContentsOne", "ContentsSlice", "ContentsResult"}
	if int(k) < len(names) {
		return names[k]
	}
	return "ContentsKind(?)"
}

// MarshalText implements encoding.TextMarshaler for readable model dumps.
func (k ContentsKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// A Resource is one //mcp:resource handler, a package function. With
// variables in URI it is a resource template, and Params holds one parameter
// per variable, in the handler's parameter order.
type Resource struct {
	URI         string // the URI, or the RFC 6570 template
	Template    bool   // URI has variables
	Name        string // programmatic name
	Title       string `json:",omitempty"`
	Description string
	MIMEType    string `json:",omitempty"`
	// Func is the Go identifier of the handler function or method.
	Func string
	// Receiver is the receiver type of a method handler, nil for a function;
	// PointerRecv reports a method declared on *Receiver.TypeName.
	Receiver    *Receiver `json:",omitempty"`
	PointerRecv bool      `json:",omitempty"`
	Params      []*Param  `json:",omitempty"`
	// Out is the handler's result type besides error.
	Out      *Type
	Contents ContentsKind
	// Scopes are the scopes of scope="...", all required to read it.
	Scopes []string `json:",omitempty"`
	Pos    token.Position
}

// ParseKind says how a template variable's string becomes the parameter.
type ParseKind int

const (
	// ParseString: the value is converted to the (string-kinded) type.
	ParseString ParseKind = iota
	// ParseInt: strconv.ParseInt with Bits, then converted.
	ParseInt
	// ParseUint: strconv.ParseUint with Bits, then converted.
	ParseUint
)

// String returns the Go name of k.
func (k ParseKind) String() string {
	names := [...]string{"ParseString", "ParseInt", "ParseUint"}
	if int(k) < len(names) {
		return names[k]
	}
	return "ParseKind(?)"
}

// MarshalText implements encoding.TextMarshaler for readable model dumps.
func (k ParseKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// A Param is one template variable, passed to the handler as a typed
// parameter of the same name.
type Param struct {
	Name  string // variable and Go parameter name
	Type  *Type  // the parameter's type (*Elem when Pointer, []string when Slice)
	Parse ParseKind
	Bits  int `json:",omitempty"` // ParseInt, ParseUint: bit size (0 for int/uint)
	// Optional: the variable may be absent from a matching URI ({#v}, {.v},
	// {/v}, {;v}, {?v}, {&v}); the parameter is then its zero value.
	Optional bool `json:",omitempty"`
	// Pointer: the parameter is *Elem, nil when the variable is absent.
	Pointer bool `json:",omitempty"`
	// Slice: the parameter is []string, the segments of an exploded {/v*}
	// (Explode) or the value split at "/".
	Slice   bool `json:",omitempty"`
	Explode bool `json:",omitempty"` // the variable is an exploded {/v*}
	// Values are the enum's values (from the type's constants), nil if none.
	Values []string `json:",omitempty"`
	// Completer is the //mcp:complete function for the variable, or "".
	Completer string `json:",omitempty"`
}

// PromptOut says how a prompt handler's result becomes a mcpruntime.PromptResult.
type PromptOut int

const (
	// PromptMessages: the handler returns []mcpruntime.PromptMessage.
	PromptMessages PromptOut = iota
	// PromptResult: the handler returns *mcpruntime.PromptResult, passed through.
	PromptResult
	// PromptText: the handler returns a string, sent as one user text message.
	PromptText
)

// String returns the Go name of k.
func (k PromptOut) String() string {
	names := [...]string{"PromptMessages", "PromptResult", "PromptText"}
	if int(k) < len(names) {
		return names[k]
	}
	return "PromptOut(?)"
}

// MarshalText implements encoding.TextMarshaler for readable model dumps.
func (k PromptOut) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// A Prompt is one //mcp:prompt handler, a package function taking an
// optional arguments struct whose fields are string-kinded.
type Prompt struct {
	Name        string
	Title       string `json:",omitempty"`
	Description string
	Func        string
	// Receiver is the receiver type of a method handler, nil for a function;
	// PointerRecv reports a method declared on *Receiver.TypeName.
	Receiver    *Receiver `json:",omitempty"`
	PointerRecv bool      `json:",omitempty"`
	// In is the arguments struct type (or a pointer to it), nil when the
	// handler takes none.
	In   *Type        `json:",omitempty"`
	Args []*PromptArg `json:",omitempty"`
	Out  *Type
	Kind PromptOut
	// Scopes are the scopes of scope="...", all required to get it.
	Scopes []string `json:",omitempty"`
	Pos    token.Position
}

// A PromptArg is one prompt argument: a field of the arguments struct.
type PromptArg struct {
	Name        string // JSON name of the field
	Description string `json:",omitempty"`
	Required    bool
	Values      []string `json:",omitempty"` // enum values, nil if none
	Completer   string   `json:",omitempty"` // //mcp:complete function, or ""
}
