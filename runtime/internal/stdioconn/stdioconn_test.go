package stdioconn

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var errTooLarge = errors.New("too large")

// lockedBuffer is an io.Writer safe for the test to read while the connection writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := strings.Split(strings.TrimSuffix(l.b.String(), "\n"), "\n")
	slices.Sort(out)
	return out
}

// echo serves lines "run X" as requests answered "X", "note" inline without an
// answer, anything else inline with "inline X"; a too-long line is answered "long".
func echo(t *testing.T, in io.Reader, maxConcurrent int, block <-chan struct{}) (*Conn[string], *lockedBuffer) {
	out := &lockedBuffer{}
	var c *Conn[string]
	c = New(in, out, Config[string]{
		MaxConcurrent: maxConcurrent, MaxMessageSize: 16, TooLarge: errTooLarge, DrainTimeout: time.Minute,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Line: func(ctx context.Context, data []byte, readErr error) (string, bool) {
			s := string(data)
			switch {
			case readErr != nil:
				c.Write([]byte("long"))
			case strings.HasPrefix(s, "run "):
				if !c.Admit() {
					c.Write([]byte("busy " + s[4:]))
					return "", false
				}
				return s[4:], true
			case s != "note":
				c.Write([]byte("inline " + s))
			}
			return "", false
		},
		Run: func(ctx context.Context, req string) {
			if block != nil {
				<-block
			}
			c.Answer([]byte(req))
		},
		Interrupted: func(string) (<-chan struct{}, bool) { return nil, true },
		Drop:        func(string) {},
		EndStreams:  func() {},
		Close:       func() {},
	})
	return c, out
}

// TestServeUntilEOF: requests run and are answered, inline lines answered in
// place, blank lines skipped, a too-long line reported; at EOF every answer
// is written before Serve returns.
func TestServeUntilEOF(t *testing.T) {
	in := "run a\n\n  \nnote\nhello\r\n" + strings.Repeat("x", 40) + "\nrun b\nrun c"
	c, out := echo(t, strings.NewReader(in), 2, nil)
	if err := c.Serve(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{"a", "b", "c", "inline hello", "long"}
	if got := out.lines(); !slices.Equal(got, want) {
		t.Errorf("output %q, want %q", got, want)
	}
}

// TestBusyAndDrain: beyond QueueFactor*MaxConcurrent admitted requests the
// next is refused; a cancelled connection waits for what runs.
func TestBusyAndDrain(t *testing.T) {
	block := make(chan struct{})
	pr, pw := io.Pipe()
	c, out := echo(t, pr, 1, block)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- c.Serve(ctx) }()
	for range QueueFactor {
		io.WriteString(pw, "run r\n")
	}
	io.WriteString(pw, "run extra\n")
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(out.lines(), "busy extra") {
		if time.Now().After(deadline) {
			t.Fatalf("no busy answer: %q", out.lines())
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	close(block)
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range out.lines() {
		if l == "r" {
			n++
		}
	}
	if n != QueueFactor {
		t.Errorf("%d requests answered, want %d", n, QueueFactor)
	}
	pw.Close()
}

// countingBuffer is a lockedBuffer that counts the writes it receives.
type countingBuffer struct {
	lockedBuffer
	writes int
}

func (c *countingBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.writes++
	c.mu.Unlock()
	return c.lockedBuffer.Write(p)
}

func (c *countingBuffer) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes
}

// server serves "run X" as a request answered "X" (after waiting for release
// when X is "wait"), "release" inline by releasing it, anything else inline
// with "inline X".
func server(in io.Reader, out io.Writer, release chan struct{}, takeover time.Duration) *Conn[string] {
	var c *Conn[string]
	c = New(in, out, Config[string]{
		MaxConcurrent: 4, MaxMessageSize: 64, TooLarge: errTooLarge, DrainTimeout: time.Minute, Takeover: takeover,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Line: func(ctx context.Context, data []byte, readErr error) (string, bool) {
			s := string(data)
			switch {
			case strings.HasPrefix(s, "run ") && c.Admit():
				return s[4:], true
			case s == "release":
				close(release)
			default:
				c.Write([]byte("inline " + s))
			}
			return "", false
		},
		Run: func(ctx context.Context, req string) {
			if req == "wait" {
				<-release
			}
			c.Answer([]byte(req))
		},
		Interrupted: func(string) (<-chan struct{}, bool) { return nil, true },
		Drop:        func(string) {},
		EndStreams:  func() {},
		Close:       func() {},
	})
	return c
}

// TestBurstOneWrite: the replies to a pipelined burst of short requests
// leave together once the burst is read, not one write each.
func TestBurstOneWrite(t *testing.T) {
	const burst = 32
	pr, pw := io.Pipe()
	out := &countingBuffer{}
	c := server(pr, out, nil, time.Hour) // no takeover: each one would flush
	served := make(chan error, 1)
	go func() { served <- c.Serve(context.Background()) }()
	var in strings.Builder
	for i := range burst {
		in.WriteString("run r" + string(rune('a'+i%26)) + "\n")
	}
	io.WriteString(pw, in.String()) // one write: the reader gets the whole burst at once
	pw.Close()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if got := len(out.lines()); got != burst {
		t.Fatalf("%d replies, want %d: %q", got, burst, out.lines())
	}
	// One write (before the writer was held: one per reply; held from the
	// second line on only: two).
	if n := out.count(); n != 1 {
		t.Errorf("%d writes for a burst of %d replies, want 1", n, burst)
	}
}

// TestTakeover: a request that waits for a line not yet read does not block
// the connection: another worker takes the reading role over, so the request
// after it is answered first and the line that releases it is read.
func TestTakeover(t *testing.T) {
	pr, pw := io.Pipe()
	out := &lockedBuffer{}
	release := make(chan struct{})
	c := server(pr, out, release, 0)
	served := make(chan error, 1)
	go func() { served <- c.Serve(context.Background()) }()
	io.WriteString(pw, "run wait\nrun b\n")
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(out.lines(), "b") {
		if time.Now().After(deadline) {
			t.Fatalf("the request after a waiting one is not answered: %q", out.lines())
		}
		time.Sleep(time.Millisecond)
	}
	if slices.Contains(out.lines(), "wait") {
		t.Fatal("answered before its release was read")
	}
	io.WriteString(pw, "release\n")
	pw.Close()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if got, want := out.lines(), []string{"b", "wait"}; !slices.Equal(got, want) {
		t.Errorf("output %q, want %q", got, want)
	}
}
