package jsonrpc

import (
	"errors"
	"testing"
)

func TestRead(t *testing.T) {
	for _, c := range []struct {
		raw    string
		kind   int
		method string
		err    error  // nil: accepted
		id     string // the refusal's id
		answer bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, KindRequest, "ping", nil, "", false},
		{`{"jsonrpc":"2.0","method":"notifications/x"}`, KindNotification, "notifications/x", nil, "", false},
		{`{"jsonrpc":"2.0","id":"a","result":{}}`, KindResponse, "", nil, "", false},
		{`{"jsonrpc":"2.0","id":1,`, 0, "", ErrParse, "", true},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, 0, "", ErrInvalidRequest, "", true},
		{`"x"`, 0, "", ErrInvalidRequest, "", true},
		{`{"jsonrpc":"1.0","id":7,"method":"ping"}`, 0, "", ErrInvalidRequest, "7", true},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, 0, "", ErrInvalidRequest, "", true},
		{`{"jsonrpc":"2.0","method":"n","method":"n"}`, 0, "", ErrInvalidRequest, "", false},
		{`{"jsonrpc":"2.0","id":2,"id":3,"method":"m"}`, 0, "", ErrInvalidRequest, "", true},
		{`{"jsonrpc":"2.0","id":4,"method":"m","result":1}`, 0, "", ErrInvalidRequest, "4", true},
		{`{"jsonrpc":"2.0","method":"m","result":1}`, 0, "", ErrInvalidRequest, "", false},
		{`{"jsonrpc":"2.0","id":5}`, 0, "", ErrInvalidRequest, "5", true},
	} {
		var env Frame
		kind, method, r := Read([]byte(c.raw), &env)
		switch {
		case c.err == nil && (r != nil || kind != c.kind || method != c.method):
			t.Errorf("%s: kind %d method %q refusal %v; want %d %q", c.raw, kind, method, r, c.kind, c.method)
		case c.err != nil && (r == nil || !errors.Is(r, c.err) || string(r.ID) != c.id || r.Answer != c.answer):
			t.Errorf("%s: refusal %+v; want %v, id %q, answer %v", c.raw, r, c.err, c.id, c.answer)
		}
	}
}
