package toolschema

// failures.go: what a failed validation says: one line per failure for the
// model or the log, the invalid_arguments message and details, the checks of
// structured output and of an elicitation form's content.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/internal/fullhook"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// WriteFailures writes one line per failure: the JSON Pointer of the value
// ("(root)" for the whole value), the rule, what was found and what was
// expected.
func WriteFailures(sb *strings.Builder, fails []fullhook.Failure) {
	for _, f := range fails {
		loc := f.Pointer
		if loc == "" {
			loc = "(root)"
		}
		switch f.Keyword {
		case "more":
			fmt.Fprintf(sb, "\n- %s", f.Message)
		case "duplicate", "range":
			fmt.Fprintf(sb, "\n- %s: %s", loc, f.Message)
		default:
			fmt.Fprintf(sb, "\n- %s: %s: %s", loc, f.Keyword, f.Message)
		}
	}
}

// DescribeInvalid explains to the model why a tool's arguments are invalid: one
// line per failure (WriteFailures), then the valid argument names.
func DescribeInvalid(tool string, fails []fullhook.Failure, names []string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "invalid arguments for tool %s:", tool)
	WriteFailures(&sb, fails)
	if len(names) == 0 {
		sb.WriteString("\nthis tool takes no arguments")
	} else {
		fmt.Fprintf(&sb, "\nvalid arguments: %s", strings.Join(names, ", "))
	}
	return sb.String()
}

// Rules lists each failure's JSON Pointer and rule (never the values: they may
// be secrets), for the details of an invalid_arguments error.
func Rules(fails []fullhook.Failure) []map[string]string {
	list := make([]map[string]string, 0, len(fails))
	for _, f := range fails {
		if f.Keyword == "more" {
			continue
		}
		list = append(list, map[string]string{"pointer": f.Pointer, "rule": f.Keyword})
	}
	return list
}

// CheckOutput validates structured output sc against the output schema; valid
// reports whether sc is JSON (jsonwire.Valid). The error lists the failures.
func (l *Lazy) CheckOutput(sc []byte, valid bool) error {
	if !valid {
		return errors.New("structured output is not JSON")
	}
	fails, err := l.Failures(sc)
	if err != nil || fails == nil {
		return err
	}
	var sb strings.Builder
	WriteFailures(&sb, fails)
	return errors.New(sb.String())
}

// CheckForm checks an elicitation form's content against its requested
// schema: content that is not JSON wraps malformed, content the schema refuses
// wraps invalid and lists the failures.
func CheckForm(schema, content json.RawMessage, malformed, invalid error) error {
	full, err := Mode(schema)
	if err != nil {
		return fmt.Errorf("requested schema: %w", err)
	}
	if !jsonwire.Valid(content) {
		return fmt.Errorf("%w: content is not JSON", malformed)
	}
	l := &Lazy{Name: "elicitation", Raw: schema, Full: full}
	fails, err := l.Failures(content)
	if err != nil {
		return fmt.Errorf("validate answer: %w", err)
	}
	if fails != nil {
		var sb strings.Builder
		WriteFailures(&sb, fails)
		return fmt.Errorf("%w:%s", invalid, sb.String())
	}
	return nil
}

// Compact returns raw, which is JSON when valid (jsonwire.Valid), without line
// breaks (a stdio message is one line). Output of json.Marshal is returned as
// is.
func Compact(raw json.RawMessage, valid bool) (json.RawMessage, error) {
	if !bytes.ContainsAny(raw, "\r\n") {
		if !valid {
			return nil, errors.New("invalid JSON")
		}
		return raw, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
