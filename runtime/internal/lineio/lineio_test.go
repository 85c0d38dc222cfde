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
