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
}

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
}

type rtBlob []byte

// rtStamp marshals as text through its pointer receiver only.
type rtStamp struct{ N int }

func (s *rtStamp) MarshalText() ([]byte, error) { return []byte("s" + strconv.Itoa(s.N)), nil }

type rtStamped struct{ S rtStamp }

type rtNames map[string]rtLevel
