package testproc

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer safe for concurrent writers and a reader: a
// server's stderr, a log or audit handler's output, a client's wire log.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
