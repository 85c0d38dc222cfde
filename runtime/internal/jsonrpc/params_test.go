package jsonrpc

import (
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

func TestParamsDecode(t *testing.T) {
	var p Params
	pr := p.Decode(json.RawMessage(`{"name":"t","arguments":{"a":1},"cursor":"c","_meta":{"progressToken":7,"`+MetaProtocolVersion+`":"2026-07-28"},"x":null}`), jsonwire.String)
	if pr.Err != nil || pr.Repeated != nil || p.Name != "t" || string(p.Arguments) != `{"a":1}` || p.Cursor == nil || *p.Cursor != "c" ||
		p.Meta == nil || string(p.Meta.ProgressToken) != "7" || string(p.Meta.ProtocolVersion) != `"2026-07-28"` {
		t.Fatalf("decoded %+v (meta %+v)", p, p.Meta)
	}
	for raw, want := range map[string]string{
		`[1]`:                         "params must be an object",
		`{"name":1,"uri":"u"}`:        "params.name has the wrong type",
		`{"cursor":true}`:             "params.cursor has the wrong type",
		`{"_meta":[]}`:                "params._meta has the wrong type",
		`{"level":"a","level":"b"}`:   "",
		`{"_meta":{"a":1,"a":2}}`:     "",
		`{"name":null,"cursor":null}`: "",
	} {
		var p Params
		pr := p.Decode(json.RawMessage(raw), jsonwire.String)
		if got := ""; pr.Err != nil {
			got = pr.Err.Error()
			if got != want {
				t.Errorf("%s: error %q, want %q", raw, got, want)
			}
		} else if want != "" {
			t.Errorf("%s: no error, want %q", raw, want)
		}
	}
	var r Params
	rp := r.Decode(json.RawMessage(`{"_meta":{"a":1,"a":2},"b":1,"b":2}`), jsonwire.String)
	if string(rp.Repeated) != `a` || rp.In != "params._meta" {
		t.Errorf("repeated %q in %q, want the first: a in params._meta", rp.Repeated, rp.In)
	}
}
