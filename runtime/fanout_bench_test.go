package runtime

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/store"
	"github.com/mcpgen/mcpgen/runtime/store/redisstore"
)

// benchListeners opens n 2026-07-28 listen streams on s for notes:// whose
// sink counts what it receives; they end with the benchmark.
func benchListeners(b *testing.B, s *Server, n int) *atomic.Int64 {
	var got atomic.Int64
	acks := make(chan struct{}, n)
	sink := SinkFunc(func(_ context.Context, msg []byte) error {
		if bytes.Contains(msg, []byte("notifications/subscriptions/acknowledged")) {
			acks <- struct{}{}
		} else {
			got.Add(1)
		}
		return nil
	})
	done := make(chan struct{}, n)
	for i := range n {
		raw := `{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"resourceSubscriptions":["notes://"]}}}`
		go func() { s.HandleRaw(context.Background(), []byte(raw), nil, sink); done <- struct{}{} }()
	}
	for range n {
		select {
		case <-acks:
		case <-time.After(10 * time.Second):
			b.Fatal("no acknowledgement")
		}
	}
	b.Cleanup(func() {
		s.EndSubscriptions(nil)
		for range n {
			<-done
		}
	})
	return &got
}

// BenchmarkResourceUpdated measures what ResourceUpdated costs its caller with
// 0, 1 and 100 listen streams on the process: in-process (no store given, the
// default), on a shared in-memory store, and on Redis (MCPGEN_TEST_REDIS); the
// shared cases also publish for the other replicas (from a goroutine of their
// own, not counted per call). The remote cases measure one change from one
// replica to a listener on another, end to end (one at a time).
func BenchmarkResourceUpdated(b *testing.B) {
	stores := []struct {
		name string
		open func(b *testing.B) store.Store
	}{
		{"inproc", func(*testing.B) store.Store { return nil }},
		{"memory", func(*testing.B) store.Store { return store.NewMemory() }},
	}
	if u := os.Getenv("MCPGEN_TEST_REDIS"); u != "" {
		stores = append(stores, struct {
			name string
			open func(b *testing.B) store.Store
		}{"redis", func(b *testing.B) store.Store {
			st, err := redisstore.Open(context.Background(), u)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { st.Close() })
			return st
		}})
	}
	quiet := func() *Options { return &Options{Logger: discardLogger()} }
	for _, st := range stores {
		for _, n := range []int{0, 1, 100} {
			b.Run(fmt.Sprintf("%s/listeners=%d", st.name, n), func(b *testing.B) {
				o := quiet()
				o.Store = st.open(b)
				s := benchReplica(o, fmt.Sprintf("bench-%d", time.Now().UnixNano()))
				got := benchListeners(b, s, n)
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					s.ResourceUpdated("notes://work/" + strconv.Itoa(i&1023))
				}
				b.StopTimer()
				if n > 0 && got.Load() < int64(b.N*n) {
					b.Fatalf("%d deliveries, want %d", got.Load(), b.N*n)
				}
			})
		}
		if st.name == "inproc" {
			continue
		}
		b.Run(st.name+"/remote_roundtrip", func(b *testing.B) {
			shared := st.open(b)
			name := fmt.Sprintf("bench-%d", time.Now().UnixNano())
			oa, ob := quiet(), quiet()
			oa.Store, ob.Store = shared, shared
			if st.name == "redis" {
				ob.Store = st.open(b) // another connection, as another process has
			}
			a, c := benchReplica(oa, name), benchReplica(ob, name)
			got := benchListeners(b, a, 1)
			b.ResetTimer()
			for i := range b.N {
				c.ResourceUpdated("notes://work/" + strconv.Itoa(i))
				for got.Load() <= int64(i) {
					time.Sleep(time.Microsecond)
				}
			}
		})
	}
}

// benchReplica is a server named name with a notes:// template.
func benchReplica(o *Options, name string) *Server {
	s := NewServer(Implementation{Name: name, Version: "0"}, o)
	s.AddResourceTemplate(&ResourceTemplate{URITemplate: "notes://{folder}/{id}", Name: "note",
		Handler: func(context.Context, *ResourceRequest) (*ResourceResult, error) { return TextResource("x"), nil }})
	return s
}
