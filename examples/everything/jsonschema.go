package everything

import (
	"context"
	"encoding/json"
	"fmt"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// JSONSchema202012 is the tool with JSON Schema 2020-12 features ($schema,
// $defs with $anchor, allOf/anyOf, if/then/else); its input schema is the
// file json_schema_2020_12.json, sent as written. It echoes the arguments it
// was called with, which the runtime has validated against that schema.
//
//mcp:tool name=json_schema_2020_12_tool input=json_schema_2020_12.json openworld=false destructive=false
func JSONSchema202012(ctx context.Context, in json.RawMessage) ([]mcpruntime.Content, error) {
	return []mcpruntime.Content{mcpruntime.Text(fmt.Sprintf("ok: %s", in))}, nil
}
