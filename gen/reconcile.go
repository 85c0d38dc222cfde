package gen

// reconcile.go: the reconcile=FUNC argument of //mcp:tool. FUNC looks up the
// outcome of an earlier call of a write, with the same idempotency key and
// arguments, whose process died before the runtime recorded its result:
//
//	func(ctx context.Context, in In) (out Out, found bool, err error)
//
// (or (found bool, err error) for a handler without Out), In and Out being the
// handler's. found reports that the earlier call took effect (out is its
// result; the runtime builds a receipt for it and records it); not found means
// it had no effect (the handler then runs); an error means the outcome cannot be
// told (the caller gets outcome_unknown). For a method handler FUNC is a method
// of the same receiver.

import (
	"fmt"
	"go/token"
	"go/types"

	"github.com/mcpgen/mcpgen/gen/model"
)

// A reconcileRef is the reconcile= argument of a directive.
type reconcileRef struct {
	name string
	pos  token.Pos // of the argument
}

// reconcile resolves and checks t's reconcile= function, handler being the
// handler's signature.
func (a *analyzer) reconcile(s *pkgScan, t *model.Tool, handler *types.Signature, ref reconcileRef, label string) {
	if ref.name == "" {
		return
	}
	switch {
	case t.ReadOnly:
		a.errorf(ref.pos, "%s: reconcile=%s on a readonly tool: only a write has an outcome to look up; drop reconcile= or the readonly flag", label, ref.name)
		return
	case t.IdempotencyKey == "":
		a.errorf(ref.pos, "%s: reconcile=%s needs an idempotency key (the runtime reconciles a key whose first call died): tag a string field of the input `mcp:\"idempotency_key\"`", label, ref.name)
		return
	}
	fn := a.reconcileFunc(s, handler, ref, label)
	if fn == nil {
		return
	}
	qual := types.RelativeTo(s.p.Types)
	sig := fn.Signature()
	if want, ok := reconcileShape(handler, sig, qual); !ok {
		a.errorf(fn.Pos(), "%s: reconcile function %s must be %s (found reports that the earlier call took effect); got %s",
			label, ref.name, want, types.TypeString(withoutRecv(sig), qual))
		return
	}
	t.Reconcile = ref.name
	if recv := sig.Recv(); recv != nil {
		_, ptr := types.Unalias(recv.Type()).(*types.Pointer)
		t.ReconcilePointerRecv = ptr
		t.Receiver.Pointer = t.Receiver.Pointer || ptr
	}
}

// reconcileFunc finds the function ref names: a method of the handler's
// receiver for a method handler, a package function otherwise.
func (a *analyzer) reconcileFunc(s *pkgScan, handler *types.Signature, ref reconcileRef, label string) *types.Func {
	if recv := handler.Recv(); recv != nil {
		obj, _, _ := types.LookupFieldOrMethod(recv.Type(), true, s.p.Types, ref.name)
		fn, ok := obj.(*types.Func)
		if !ok {
			a.errorf(ref.pos, "%s: reconcile=%s: the handler's receiver type %s has no method %s",
				label, ref.name, types.TypeString(recv.Type(), types.RelativeTo(s.p.Types)), ref.name)
			return nil
		}
		return fn
	}
	obj := s.p.Types.Scope().Lookup(ref.name)
	fn, ok := obj.(*types.Func)
	switch {
	case obj == nil:
		a.errorf(ref.pos, "%s: reconcile=%s: no function %s in package %s", label, ref.name, ref.name, s.p.Types.Name())
	case !ok:
		a.errorf(ref.pos, "%s: reconcile=%s names a %s, not a function", label, ref.name, objectKind(obj))
	}
	return fn
}

// objectKind names what obj declares, for messages.
func objectKind(obj types.Object) string {
	switch obj.(type) {
	case *types.TypeName:
		return "type"
	case *types.Const:
		return "constant"
	case *types.Var:
		return "variable"
	}
	return "declaration"
}

// reconcileShape returns the signature a reconcile function of handler must
// have, and whether sig has it.
func reconcileShape(handler, sig *types.Signature, qual types.Qualifier) (string, bool) {
	hp, hr := handler.Params(), handler.Results()
	in := hp.At(hp.Len() - 1).Type()
	want := fmt.Sprintf("func(context.Context, %s) (bool, error)", types.TypeString(in, qual))
	var out types.Type
	if hr.Len() == 2 {
		out = hr.At(0).Type()
		want = fmt.Sprintf("func(context.Context, %s) (%s, bool, error)", types.TypeString(in, qual), types.TypeString(out, qual))
	}
	p, r := sig.Params(), sig.Results()
	ok := sig.TypeParams().Len() == 0 && !sig.Variadic() &&
		p.Len() == 2 && isContext(p.At(0).Type()) && types.Identical(p.At(1).Type(), in)
	if out != nil {
		ok = ok && r.Len() == 3 && types.Identical(r.At(0).Type(), out) && isBool(r.At(1).Type()) && isError(r.At(2).Type())
	} else {
		ok = ok && r.Len() == 2 && isBool(r.At(0).Type()) && isError(r.At(1).Type())
	}
	return want, ok
}

// isBool reports whether t is the predeclared bool.
func isBool(t types.Type) bool { return types.Identical(t, types.Typ[types.Bool]) }
