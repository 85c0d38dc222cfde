// Package lineio frames newline-delimited messages, as the stdio transport
// carries them: a reader that returns one line at a time without its "\n" or
// "\r\n" and skips lines over a limit, and a writer, safe for concurrent use,
// that writes each message as one line and flushes a burst of them with one
// write.
package lineio

import (
	"bufio"
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
// is already waiting to be written: the last of a burst flushes them all with
// one write.
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
	if next {
		return nil // the waiting writer flushes
	}
	if err := lw.w.Flush(); err != nil {
		lw.err = fmt.Errorf("write stdout: %w", err)
		if lw.onError != nil {
			lw.onError(err)
		}
		return lw.err
	}
	return nil
}
