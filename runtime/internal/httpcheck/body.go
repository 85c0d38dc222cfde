package httpcheck

// body.go: reading a POST body within the transport's limits.

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"
)

// A BodyError is why a POST body was refused: the HTTP status, the JSON-RPC
// error code and message to answer with.
type BodyError struct {
	Status, Code int
	Msg          string
}

// ReadBody reads a POST body of at most max bytes, within timeout. Its media
// type must be application/json when given (415 otherwise); a longer body
// gets 413, a failed read 400. The deadline covers the body only: it is lifted
// before the response, which may be a long SSE stream. onDeadline learns that
// the ResponseWriter cannot set a read deadline (a middleware's wrapper without
// Unwrap): the timeout is then not enforced.
func ReadBody(w http.ResponseWriter, r *http.Request, max int64, timeout time.Duration, onDeadline func(error)) ([]byte, *BodyError) {
	if ct := r.Header.Get("Content-Type"); ct != "" && ct != "application/json" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return nil, &BodyError{http.StatusUnsupportedMediaType, -32600, "content type must be application/json"}
		}
	}
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		onDeadline(err)
	}
	body, err := readAtMost(w, r, max)
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		if tooBig, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, &BodyError{http.StatusRequestEntityTooLarge, -32600, fmt.Sprintf("request body exceeds %d bytes", tooBig.Limit)}
		}
		return nil, &BodyError{http.StatusBadRequest, -32700, "read body: " + err.Error()}
	}
	return body, nil
}

// readAtMost reads r's body, refusing one over max bytes: a body of known
// length is read into a buffer of that size (one allocation), one of unknown
// length (chunked) through http.MaxBytesReader.
func readAtMost(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	switch n := r.ContentLength; {
	case n > max:
		return nil, &http.MaxBytesError{Limit: max}
	case n >= 0:
		body := make([]byte, n)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			return nil, err
		}
		return body, nil
	}
	return io.ReadAll(http.MaxBytesReader(w, r.Body, max))
}
