package lineio

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
)

var errTooLarge = errors.New("too large")

func TestReadLine(t *testing.T) {
	in := "a\r\n\n" + strings.Repeat("x", 13) + "\n" + strings.Repeat("y", 10) + "\r\nlast"
	r := NewReader(strings.NewReader(in), 10, errTooLarge)
	for _, want := range []string{"a", "", "!", strings.Repeat("y", 10), "last", "EOF"} {
		got, err := r.ReadLine()
		switch want {
		case "!":
			if err != errTooLarge {
				t.Fatalf("line over the limit: %q, %v", got, err)
			}
		case "EOF":
			if err != io.EOF {
				t.Fatalf("at the end: %q, %v", got, err)
			}
		default:
			if err != nil || string(got) != want {
				t.Fatalf("got %q, %v; want %q", got, err, want)
			}
		}
	}
	// A line longer than the buffer is read whole.
	long := strings.Repeat("z", 200<<10)
	r = NewReader(strings.NewReader(long+"\n"), 1<<20, errTooLarge)
	if got, err := r.ReadLine(); err != nil || string(got) != long {
		t.Fatalf("long line: %d bytes, %v", len(got), err)
	}
}

// failing fails every write after the first n bytes.
type failing struct{ n int }

func (f *failing) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errors.New("broken pipe")
	}
	f.n -= len(p)
	return len(p), nil
}

func TestWriterLinesAndErrors(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, nil)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() { _ = w.Write([]byte(`{"m":1}`)) })
	}
	wg.Wait()
	if got := buf.String(); got != strings.Repeat("{\"m\":1}\n", 50) {
		t.Errorf("interleaved or lost lines: %q", got)
	}
	var reported []error
	bad := NewWriter(&failing{n: 3}, func(err error) { reported = append(reported, err) })
	err1 := bad.Write([]byte("hello"))
	err2 := bad.Write([]byte("x"))
	if err1 == nil || err2 != err1 || len(reported) != 1 {
		t.Errorf("errors %v, %v; reported %v: want one sticky error, reported once", err1, err2, reported)
	}
}

func TestHasLine(t *testing.T) {
	pr, pw := io.Pipe()
	r := NewReader(pr, 100, errTooLarge)
	if r.HasLine() {
		t.Fatal("nothing read yet: HasLine")
	}
	go func() { pw.Write([]byte("a\nb\npart")) }()
	if got, err := r.ReadLine(); err != nil || string(got) != "a" {
		t.Fatalf("got %q, %v", got, err)
	}
	if !r.HasLine() {
		t.Error(`"b\n" buffered: !HasLine`)
	}
	if got, err := r.ReadLine(); err != nil || string(got) != "b" {
		t.Fatalf("got %q, %v", got, err)
	}
	if r.HasLine() {
		t.Error(`only "part" buffered: HasLine`)
	}
	go func() { pw.Write([]byte("ial\n")); pw.Close() }()
	if got, err := r.ReadLine(); err != nil || string(got) != "partial" {
		t.Fatalf("got %q, %v", got, err)
	}
}

// countingWriter counts Write calls (a flush is one).
type countingWriter struct {
	mu     sync.Mutex
	writes int
	buf    bytes.Buffer
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes++
	return c.buf.Write(p)
}

func (c *countingWriter) state() (int, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes, c.buf.String()
}

func TestWriterHold(t *testing.T) {
	var out countingWriter
	w := NewWriter(&out, nil)
	w.Write([]byte("1"))
	if n, s := out.state(); n != 1 || s != "1\n" {
		t.Fatalf("not held: %d writes, %q; want it flushed at once", n, s)
	}
	w.Hold()
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { _ = w.Write([]byte("2")) })
	}
	wg.Wait()
	if n, s := out.state(); n != 1 || s != "1\n" {
		t.Fatalf("held: %d writes, %q; want nothing more written", n, s)
	}
	w.Release()
	if n, s := out.state(); n != 2 || s != "1\n"+strings.Repeat("2\n", 10) {
		t.Fatalf("released: %d writes, %q; want the 10 held lines in one write", n, s)
	}
	w.Release() // not held: nothing to do
	w.Hold()
	w.Write([]byte("3"))
	w.Flush() // flushes, still held
	w.Write([]byte("4"))
	if n, s := out.state(); n != 3 || !strings.HasSuffix(s, "2\n3\n") {
		t.Fatalf("flushed while held: %d writes, %q", n, s)
	}
	w.Flush()
	w.Flush() // nothing buffered: no write
	if n, s := out.state(); n != 4 || !strings.HasSuffix(s, "3\n4\n") {
		t.Fatalf("second flush: %d writes, %q", n, s)
	}
}
