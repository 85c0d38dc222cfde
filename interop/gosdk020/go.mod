module github.com/mcpgen/mcpgen/interop/gosdk020

go 1.26.8

require (
	github.com/mcpgen/mcpgen v0.0.0-00010101000000-000000000000
	github.com/modelcontextprotocol/go-sdk v0.2.0
)

require github.com/yosida95/uritemplate/v3 v3.0.2 // indirect

replace github.com/mcpgen/mcpgen => ../..
