package deps

import (
	_ "github.com/dave/jennifer/jen"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/invopop/jsonschema"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "golang.org/x/tools/go/packages"
	_ "golang.org/x/tools/txtar"
	_ "go.uber.org/goleak"
)
