module github.com/mcpgen/mcpgen/interop/older

go 1.26.8

require (
	github.com/mark3labs/mcp-go v0.32.0
	github.com/mcpgen/mcpgen v0.0.0-00010101000000-000000000000
	github.com/modelcontextprotocol/go-sdk v1.1.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
)

require (
	github.com/google/jsonschema-go v0.3.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.30.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)

replace github.com/mcpgen/mcpgen => ../..
