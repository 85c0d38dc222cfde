// Package lineio frames newline-delimited messages, as the stdio transport
// carries them: a reader that returns one line at a time without its "\n" or
// "\r\n" and skips lines over a limit, and a writer, safe for concurrent use,
// that writes each message as one line and flushes a burst of them with one
// write (held by the reader while more input is buffered, the replies to a
// pipelined burst of requests too).
package lineio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// A Reader reads lines of at most max bytes.
type Reader struct {
	r        *bufio.Reader
	max      int
	tooLarge error // for a line over max, which is skipped
}

// NewReader returns a reader of r's lines of at most max bytes; a longer line
// is skipped and reported as tooLarge.
func NewReader(r io.Reader, max int, tooLarge error) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), max: max, tooLarge: tooLarge}
}

// ReadLine returns the next line without its "\n" or "\r\n". A final line
// without a newline counts; a line over the limit is skipped and reported as
// the reader's tooLarge error.
func (lr *Reader) ReadLine() ([]byte, error) {
	var buf []byte
	tooLarge := false
	for {
		frag, err := lr.r.ReadSlice('\n')
		if !tooLarge && len(buf)+len(frag) > lr.max+2 {
			tooLarge, buf = true, nil
		}
		if !tooLarge {
			buf = append(buf, frag...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case tooLarge && (err == nil || errors.Is(err, io.EOF)):
			return nil, lr.tooLarge
		case errors.Is(err, io.EOF) && len(buf) > 0:
			return trimEOL(buf), nil
		case err != nil:
			return nil, err
		}
		return trimEOL(buf), nil
	}
}

// HasLine reports whether a whole line is already buffered: the next ReadLine
// returns without reading.
func (lr *Reader) HasLine() bool {
	n := lr.r.Buffered()
	if n == 0 {
		return false
	}
	b, _ := lr.r.Peek(n)
	return bytes.IndexByte(b, '\n') >= 0
}

// trimEOL drops a trailing "\n" and "\r".
func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// A Writer writes messages as lines. Safe for concurrent use: messages never
// interleave. After a failed write every write fails with the same error.
type Writer struct {
	writers atomic.Int32 // Write calls writing or waiting for mu
	onError func(error)  // called once, on the first failed flush
	// hold keeps written lines buffered until Release or Flush (read under
	// mu by Write, so that a line written before Release is flushed by it).
	hold atomic.Bool

	// mu guards w and err.
	mu  sync.Mutex
	w   *bufio.Writer
	err error
}

// NewWriter returns a writer of lines to w; onError (may be nil) learns of the
// first failure.
func NewWriter(w io.Writer, onError func(error)) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, 64<<10), onError: onError}
}

// Write writes msg and a newline. It is flushed at once unless another message
// is already waiting to be written (the last of a burst flushes them all with
// one write) or the writer is held (Hold).
func (lw *Writer) Write(msg []byte) error {
	lw.writers.Add(1)
	lw.mu.Lock()
	defer lw.mu.Unlock()
	next := lw.writers.Add(-1) > 0
	if lw.err != nil {
		return lw.err
	}
	lw.w.Write(msg)
	lw.w.WriteByte('\n')
	if next || lw.hold.Load() {
		return nil // the waiting writer, Release or Flush flushes
	}
	return lw.flush()
}

// Hold makes further writes stay buffered until Release or Flush: the
// stdio reader holds while it still has whole lines of input to handle, so
// that the replies to a burst of requests leave with one write, as a
// single-threaded server answering a pipelined burst does.
func (lw *Writer) Hold() {
	if !lw.hold.Load() {
		lw.hold.Store(true)
	}
}

// Release ends a Hold and flushes what it kept: every line written before
// Release returns has been flushed (or has failed).
func (lw *Writer) Release() {
	if lw.hold.Load() {
		lw.hold.Store(false)
		lw.Flush()
	}
}

// Flush writes out what is buffered, held or not.
func (lw *Writer) Flush() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err == nil && lw.w.Buffered() > 0 {
		_ = lw.flush()
	}
}

// flush flushes the buffer (mu held); its first failure sticks.
func (lw *Writer) flush() error {
	if err := lw.w.Flush(); err != nil {
		lw.err = fmt.Errorf("write stdout: %w", err)
		if lw.onError != nil {
			lw.onError(err)
		}
		return lw.err
	}
	return nil
}
