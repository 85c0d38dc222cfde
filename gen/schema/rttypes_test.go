package schema

// The types of the round-trip property tests. roundtrip_test.go loads this
// file's source as a package, so the schemas are derived from the very
// declarations the test marshals and decodes.

import (
	"encoding/json"
	"math/big"
	"net/netip"
	"strconv"
	"time"
)

// rtLevel is an enum.
type rtLevel string

const (
	rtDebug rtLevel = "debug"
	rtInfo  rtLevel = "info"
)

type rtPriority uint8

const (
	rtLow rtPriority = iota + 1
	rtHigh
)

type rtBase struct {
	ID    string `json:"id"`
	Depth int
}

type RTExtra struct {
	Note  string
	Depth int `json:"Depth"`
}

type rtNode struct {
	Name string    `json:"name"`
	Kids []*rtNode `json:"kids,omitempty"`
}

type rtPage[T any] struct {
	Items []T    `json:"items"`
	Next  string `json:"next,omitempty"`
}

// RTAll covers every mapping row the property tests exercise.
type RTAll struct {
	rtBase
	*RTExtra
	B      bool
	I8     int8
	I16    int16
	I32    int32
	I64    int64
	U8     uint8
	U64    uint64
	F32    float32
	F64    float64
	S      string
	Bytes  []byte
	Fixed  [3]byte
	List   []int16
	Ptr    *int32
	M      map[string]int
	MI     map[int8]string
	MU     map[uint16]bool
	Level  rtLevel
	Prio   rtPriority
	Levels []rtLevel
	T      time.Time
	D      time.Duration
	N      json.Number
	Tree   rtNode
	Page   rtPage[*rtNode]
	Opt    string          `json:",omitempty"`
	OptS   []string        `json:"opts,omitempty"`
	Z      struct{ A int } `json:"z,omitzero"`
	Q      int             `json:"q,string"`
	QU     uint16          `json:"qu,string"`
	QB     bool            `json:"qb,string"`
	QF     float64         `json:"qf,string"`
	QS     string          `json:"qs,string"`
	QP     *int8           `json:"qp,string"`
	Any    any             `mcp:"any"`
	Raw    json.RawMessage `json:"raw" mcp:"any"`
	Lim    int             `json:"lim" jsonschema:"minimum=1,maximum=10"`
	Word   string          `json:"word" jsonschema:"minLength=2,maxLength=4"`
	// ",string" on types with their own text form (each kind, each direction)
	// and on float and integer enums.
	QTS  rtTextS    `json:"qts,string"`
	QTI  rtTextI    `json:"qti,string"`
	QTF  rtTextF    `json:"qtf,string"`
	QRB  rtReadB    `json:"qrb,string"`
	QTP  *rtTextS   `json:"qtp,string"`
	QR   rtRatio    `json:"qr,string"`
	QRP  *rtRatio   `json:"qrp,string"`
	QR32 rtRatio32  `json:"qr32,string"`
	QD   rtDelta    `json:"qd,string"`
	QE   rtPriority `json:"qe,string"`
	R    rtRatio
	// Slices of byte-kinded types with text marshalling one way, both or neither.
	BT []rtByteText
	BI []rtByteIn
	BO []rtByteOut
	BB []rtByte
}

// RTEcho holds what encoding/json writes and reads back alike: a client
// echoing what the server wrote must pass the input schema.
type RTEcho struct {
	QR   rtRatio    `json:"qr,string"`
	QR32 rtRatio32  `json:"qr32,string"`
	QD   rtDelta    `json:"qd,string"`
	QE   rtPriority `json:"qe,string"`
	R    rtRatio
	R32  []rtRatio32
	BT   []rtByteText
	BB   []rtByte
}

// rtTextS is string-kinded and has its own text form both ways.
type rtTextS string

func (t rtTextS) MarshalText() ([]byte, error)  { return []byte("s:" + string(t)), nil }
func (t *rtTextS) UnmarshalText(b []byte) error { *t = rtTextS(b); return nil }

// rtTextI is integer-kinded and has its own text form both ways.
type rtTextI int8

func (t rtTextI) MarshalText() ([]byte, error)  { return []byte("i" + strconv.Itoa(int(t))), nil }
func (t *rtTextI) UnmarshalText(b []byte) error { *t = rtTextI(len(b)); return nil }

// rtTextF is float-kinded and writes its own text; it decodes as a float.
type rtTextF float64

func (t rtTextF) MarshalText() ([]byte, error) { return []byte("f"), nil }

// rtReadB is bool-kinded and reads its own text; it encodes as a bool.
type rtReadB bool

func (t *rtReadB) UnmarshalText(b []byte) error { *t = len(b) > 0; return nil }

// rtRatio is a float enum whose constants encoding/json writes without an
// exponent (1e20, 0.000001) or with one (1e21, 1.5e-7).
type rtRatio float64

const (
	rtHuge  rtRatio = 1e20
	rtTiny  rtRatio = 0.000001
	rtBig   rtRatio = 1e21
	rtMicro rtRatio = 1.5e-7
	rtHalf  rtRatio = 0.5
)

type rtRatio32 float32

const (
	rtHuge32 rtRatio32 = 1e20
	rtTiny32 rtRatio32 = 1e-7
	rtOdd32  rtRatio32 = 0.1
)

type rtDelta int16

const (
	rtDown rtDelta = -300
	rtUp   rtDelta = 300
)

// rtByteText is byte-kinded with text marshalling both ways: a slice of it
// is an array of texts, not base64.
type rtByteText byte

func (b rtByteText) MarshalText() ([]byte, error)  { return []byte("b" + strconv.Itoa(int(b))), nil }
func (b *rtByteText) UnmarshalText(t []byte) error { *b = rtByteText(len(t)); return nil }

// rtByteIn reads its own text only: a slice of it is written in base64 and
// read as an array of texts.
type rtByteIn byte

func (b *rtByteIn) UnmarshalText(t []byte) error { *b = rtByteIn(len(t)); return nil }

// rtByteOut writes its own text only: a slice of it is written as an array
// of texts and read in base64.
type rtByteOut byte

func (b rtByteOut) MarshalText() ([]byte, error) { return []byte{'o'}, nil }

// rtByte is byte-kinded without methods: a slice of it is base64.
type rtByte byte

type RTConflictA struct {
	Same  string
	Tag   string `json:"tagged"`
	Inner RTExtra
}

type RTConflictB struct {
	Same  string
	Other int
}

type RTDeep struct{ RTConflictA }

// RTMore is an output-only type: its TextMarshaler map keys accept only
// some strings when decoding.
type RTMore struct {
	RTConflictA
	RTConflictB
	*RTDeep
	Addrs   map[netip.Addr]int
	Month   time.Month
	ByLevel map[rtLevel][]*RTExtra
	Grid    [2][]int
	PS      *[]string
	Pages   []rtPage[rtPriority]
	Blob    rtBlob
	Named   rtNames `json:"named,omitempty"`
	SP      *rtStamp
	SL      []rtStamp
	SD      []rtStamped
	BI      *big.Int
	BIs     []big.Int
	BF      *big.Float
	// ",string" on json.Marshaler types, and a slice of a byte-kinded one:
	// encoding/json writes what MarshalJSON writes.
	QJ  rtJSONI      `json:"qj,string"`
	QJS rtJSONS      `json:"qjs,string"`
	BJ  []rtByteJSON `json:"bj"`
}

// rtJSONI writes its own JSON.
//
//mcp:schema {"type":"integer","minimum":-128,"maximum":127}
type rtJSONI int8

func (t rtJSONI) MarshalJSON() ([]byte, error) { return []byte(strconv.Itoa(int(t))), nil }

// rtJSONS writes its own JSON.
//
//mcp:schema {"type":"string"}
type rtJSONS string

func (t rtJSONS) MarshalJSON() ([]byte, error) { return json.Marshal("j:" + string(t)) }

// rtByteJSON is byte-kinded and writes its own JSON.
//
//mcp:schema {"type":"integer","minimum":0,"maximum":255}
type rtByteJSON byte

func (b rtByteJSON) MarshalJSON() ([]byte, error) { return []byte(strconv.Itoa(int(b))), nil }

type rtBlob []byte

// rtStamp marshals as text through its pointer receiver only.
type rtStamp struct{ N int }

func (s *rtStamp) MarshalText() ([]byte, error) { return []byte("s" + strconv.Itoa(s.N)), nil }

type rtStamped struct{ S rtStamp }

type rtNames map[string]rtLevel
