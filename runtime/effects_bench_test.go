//go:build unix

package runtime

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/store"
	"github.com/mcpgen/mcpgen/runtime/store/redisstore"
)

// BenchmarkWriteCall measures what effects.go and idempotency.go add to one
// 2026-07-28 tools/call at the dispatcher (no transport): the same handler as a
// readonly tool, as a write without a key (receipt), as a write with a fresh key
// per call on the in-memory store and on Redis (MCPGEN_TEST_REDIS), and a replay.
func BenchmarkWriteCall(b *testing.B) {
	const meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	tool := func(readonly bool, key string) *Tool {
		t := &Tool{Name: "note", Description: "Note notes.", InputSchema: json.RawMessage(writeInput), IdempotencyKey: key,
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}`),
			ExternalID:   "id",
			Handler: func(ctx context.Context, req *ToolRequest) (*ToolResult, error) {
				var in struct{ Note, Key string }
				if err := req.Decode(&in); err != nil {
					return nil, err
				}
				return Structured(struct {
					ID string `json:"id"`
				}{"n-1"})
			}}
		if readonly {
			t.Annotations = &ToolAnnotations{ReadOnlyHint: true}
		}
		return t
	}
	type bcase struct {
		name     string
		readonly bool
		key      string
		fresh    bool // a new key per call
		st       func(b *testing.B) store.Store
	}
	mem := func(*testing.B) store.Store { return store.NewMemory() }
	cases := []bcase{
		{"readonly", true, "", false, mem},
		{"write", false, "", false, mem},
		{"write_key_memory", false, "key", true, mem},
		{"replay_memory", false, "key", false, mem},
	}
	if u := os.Getenv("MCPGEN_TEST_REDIS"); u != "" {
		redis := func(b *testing.B) store.Store {
			s, err := redisstore.Open(context.Background(), u)
			if err != nil {
				b.Fatal(err)
			}
			return s
		}
		cases = append(cases, bcase{"write_key_redis", false, "key", true, redis}, bcase{"replay_redis", false, "key", false, redis})
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			st := tc.st(b)
			defer st.Close()
			s := effectServer(&Options{Store: st}, tool(tc.readonly, tc.key))
			prefix := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"note","arguments":{"note":"hello"`
			run := strconv.FormatInt(int64(b.N), 10) + "-" + tc.name
			msg := func(i int) []byte {
				if tc.key == "" {
					return []byte(prefix + `}` + meta)
				}
				k := run
				if tc.fresh {
					k += "-" + strconv.Itoa(i)
				}
				return []byte(prefix + `,"key":"` + k + `"}` + meta)
			}
			if body := s.HandleRaw(context.Background(), msg(-1), nil, nil).Body; len(body) == 0 {
				b.Fatal("no reply")
			}
			b.ReportAllocs()
			i := 0
			cpu0 := processCPU()
			for b.Loop() {
				s.HandleRaw(context.Background(), msg(i), nil, nil)
				i++
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU is the CPU time the process used so far (user and system; GC included).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
