package httpstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// An sseWriter writes Server-Sent Events to one HTTP response. It is not safe
// for concurrent use; callers serialize writes.
type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// startSSE sends the status line and headers of an SSE response and returns
// a writer for its events.
func startSSE(w http.ResponseWriter, extra http.Header) *sseWriter {
	h := w.Header()
	for k, vs := range extra {
		h[k] = vs
	}
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s := &sseWriter{w: w, rc: http.NewResponseController(w)}
	_ = s.rc.Flush()
	return s
}

// event writes one event carrying a JSON message on a single data line
// (readers of the 2026 suite parse line by line), with an optional id, and
// flushes it.
func (s *sseWriter) event(id string, msg []byte) error {
	var b bytes.Buffer
	if id != "" {
		fmt.Fprintf(&b, "id: %s\n", id)
	}
	b.WriteString("data: ")
	if bytes.ContainsAny(msg, "\r\n") {
		if err := json.Compact(&b, msg); err != nil {
			return fmt.Errorf("compact sse data: %w", err)
		}
	} else {
		b.Write(msg)
	}
	b.WriteString("\n\n")
	return s.write(b.Bytes())
}

// prime writes the priming event of a resumable stream: an id, empty data and
// the reconnection delay.
func (s *sseWriter) prime(id string, retry time.Duration) error {
	return s.write(fmt.Appendf(nil, "id: %s\nretry: %d\ndata: \n\n", id, retry.Milliseconds()))
}

// comment writes a keep-alive comment line.
func (s *sseWriter) comment() error {
	return s.write([]byte(":\n\n"))
}

// write writes p and flushes it to the client.
func (s *sseWriter) write(p []byte) error {
	if _, err := s.w.Write(p); err != nil {
		return fmt.Errorf("write sse: %w", err)
	}
	if err := s.rc.Flush(); err != nil {
		return fmt.Errorf("flush sse: %w", err)
	}
	return nil
}

// SSEWriter is an sseWriter for transports outside this package (the
// 2024-11-05 HTTP+SSE transport).
type SSEWriter = sseWriter

// StartSSE starts an SSE response (see startSSE).
func StartSSE(w http.ResponseWriter, extra http.Header) *SSEWriter { return startSSE(w, extra) }

// WriteEvent answers with an SSE response of one event carrying msg (no id:
// nothing to resume), with the extra headers: a reply given as a stream to a
// client that reads one.
func WriteEvent(w http.ResponseWriter, extra http.Header, msg []byte) {
	_ = startSSE(w, extra).event("", msg)
}

// Comment writes a keep-alive comment.
func (s *sseWriter) Comment() error { return s.comment() }

// Named writes one event with an event name and a JSON message on one data line.
func (s *sseWriter) Named(event string, data []byte) error {
	b := make([]byte, 0, len(event)+len(data)+16)
	b = append(append(append(b, "event: "...), event...), '\n')
	b = append(append(append(b, "data: "...), compactLine(data)...), "\n\n"...)
	return s.write(b)
}

// compactLine returns data without line breaks (JSON keeps its meaning).
func compactLine(data []byte) []byte {
	if !strings.ContainsAny(string(data), "\r\n") {
		return data
	}
	return []byte(strings.NewReplacer("\r", "", "\n", "").Replace(string(data)))
}

// AcceptsStream reports whether the client's Accept header admits an SSE response.
func AcceptsStream(r *http.Request) bool {
	accept := strings.Join(r.Header.Values("Accept"), ",")
	if accept == "" {
		return true
	}
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, _ := strings.Cut(part, ";")
		switch strings.TrimSpace(mt) {
		case "text/event-stream", "text/*", "*/*":
			return true
		}
	}
	return false
}
