// Package ctxpair is a context carrying two values in one allocation (what an
// authentication middleware sets on every request: the principal and its scope
// challenge). Done, Err and Deadline are its parent's, so a cancelCtx below it
// still finds its parent's without a goroutine.
package ctxpair

import "context"

// A Context carries V1 under K1 and V2 under K2 (comparable keys, as for
// context.WithValue); Name is what String adds to its parent's.
type Context struct {
	context.Context
	K1, V1, K2, V2 any
	Name           string
}

// Value returns V1 or V2 for their keys, else the parent's value.
func (c *Context) Value(key any) any {
	switch key {
	case c.K1:
		return c.V1
	case c.K2:
		return c.V2
	}
	return c.Context.Value(key)
}

func (c *Context) String() string {
	if s, ok := c.Context.(interface{ String() string }); ok {
		return s.String() + "." + c.Name
	}
	return "context." + c.Name
}
