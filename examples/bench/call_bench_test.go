package bench

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"testing"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// discard is a logger that drops everything.
func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// The benchmarks below measure one generated tool call per iteration, in both
// eras, the way the harness sends it. The Dispatch ones start from the raw
// request bytes (parse, admission, validation, decode, handler, output check,
// encode); the Stdio ones add the transport: the line read, the request's
// goroutine and the line written back, over in-memory pipes with one request in
// flight. Compare runs with benchstat.

func BenchmarkDispatch(b *testing.B) {
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			s := newServer(b)
			var sess *mcpruntime.Session
			if !bc.modern {
				sess = s.NewSession(nil)
				s.HandleRaw(b.Context(), []byte(initLine), sess, nil)
			}
			raw := []byte(callLine(bc.modern, bc.tool, bc.args))
			if r := s.HandleRaw(b.Context(), raw, sess, nil); r.Code != 0 {
				b.Fatalf("reply %s", r.Body)
			}
			b.ReportAllocs()
			for b.Loop() {
				s.HandleRaw(b.Context(), raw, sess, nil)
			}
		})
	}
}

func BenchmarkStdio(b *testing.B) {
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			s := newServer(b)
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() { done <- s.ServeStdio(context.Background(), inR, outW); outW.Close() }()
			out := bufio.NewReader(outR)
			send := func(line []byte) {
				if _, err := inW.Write(line); err != nil {
					b.Fatal(err)
				}
				if _, err := out.ReadSlice('\n'); err != nil {
					b.Fatal(err)
				}
			}
			if !bc.modern {
				send([]byte(initLine + "\n"))
				if _, err := inW.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
					b.Fatal(err)
				}
			}
			line := []byte(callLine(bc.modern, bc.tool, bc.args) + "\n")
			send(line)
			b.ReportAllocs()
			for b.Loop() {
				send(line)
			}
			b.StopTimer()
			inW.Close()
			if err := <-done; err != nil {
				b.Fatal(err)
			}
		})
	}
}

var benchCases = []struct {
	name       string
	modern     bool
	tool, args string
}{
	{"add/modern", true, "add", addArgs},
	{"add/legacy", false, "add", addArgs},
	{"search_notes/modern", true, "search_notes", searchArgs},
	{"search_notes/legacy", false, "search_notes", searchArgs},
}
