package ledger

import (
	"encoding/json"
	"errors"
	"slices"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// Stored is a successful result as a done record keeps it, each piece already
// encoded (the runtime encodes it so that a replay has the first answer's
// bytes): {"content":[BLOCK,...],"structured":VALUE,"meta":{KEY:VALUE,...}}.
// The pieces are sub-slices of the stored record: read them, never change them.
//
// On an in-process store (Claim.Private), which no other process or version
// reads, the runtime may keep a _meta holding only its receipt as "receipt":
// the receipt's short form (AppendShortReceipt), a fifth of its length.
type Stored struct {
	Content    [][]byte
	Structured []byte // nil: none
	Meta       []Member
	Receipt    []byte // the receipt's short form; nil: none (Meta holds the _meta)
}

// A Member is one _meta member of a stored result.
type Member struct {
	Key   string
	Value []byte
}

// AppendMeta appends the "meta" member of a stored result holding meta, keys
// sorted: a json.RawMessage value as is (a replay then has its bytes), any
// other as encoding/json encodes it.
func AppendMeta(b []byte, meta map[string]any) ([]byte, error) {
	var one [1]string
	keys := one[:0]
	for k := range meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, `,"meta":{`...)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(jsonwire.AppendString(b, k), ':')
		if raw, ok := meta[k].(json.RawMessage); ok {
			b = append(b, raw...)
			continue
		}
		enc, err := json.Marshal(meta[k])
		if err != nil {
			return nil, err
		}
		b = append(b, enc...)
	}
	return append(b, '}'), nil
}

var errStored = errors.New("idempotency: stored result is not an object of content, structured and meta")

// ParseStored reads a stored result with the jsonwire scanner.
func ParseStored(raw []byte) (Stored, error) {
	var st Stored
	raw = jsonwire.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' || !jsonwire.Valid(raw) {
		return st, errStored
	}
	bad := false
	jsonwire.EachMember(raw, func(key, val []byte) {
		switch string(key) {
		case "content":
			if val[0] != '[' {
				bad = true
				return
			}
			for i := jsonwire.SkipWS(val, 1); val[i] != ']'; {
				end := jsonwire.ValueEnd(val, i)
				st.Content = append(st.Content, val[i:end])
				i = jsonwire.NextItem(val, end)
			}
		case "structured":
			st.Structured = val
		case "receipt":
			st.Receipt = val
		case "meta":
			if val[0] != '{' {
				bad = true
				return
			}
			jsonwire.EachMember(val, func(k, v []byte) {
				st.Meta = append(st.Meta, Member{Key: string(k), Value: v})
			})
		}
	})
	if bad {
		return Stored{}, errStored
	}
	return st, nil
}
