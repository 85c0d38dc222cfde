package main

import (
	"os"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/serve"
)

func main() {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "testserver", Version: "dev"}, &mcpruntime.Options{
		Instructions: "A server for the runtime's tests.",
		PageSize:     4,
	})
	RegisterMCP(s)
	os.Exit(serve.Main(s))
}
