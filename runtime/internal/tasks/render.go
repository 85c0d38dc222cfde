package tasks

import (
	"encoding/json"
	"sort"
	"strconv"
	"time"
)

// Rendering: the wire shapes of a record for both eras.
//
//   - 2026-07-28 (extension io.modelcontextprotocol/tasks): Task fields are
//     taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs,
//     pollIntervalMs; a DetailedTask adds inputRequests, result or error.
//   - 2025-11-25: the same fields with ttl and pollInterval; results and
//     errors come from tasks/result, input requests as server-to-client
//     requests.

// stamp formats a Unix millisecond time as ISO 8601 UTC with milliseconds.
func stamp(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// appendTask appends the Task members (no braces) in the era's names.
func appendTask(b []byte, r *Record, modern bool) []byte {
	b = append(b, `"taskId":`...)
	b = strconv.AppendQuote(b, r.ID)
	b = append(b, `,"status":"`...)
	b = append(b, r.Status...)
	b = append(b, '"')
	if r.Message != "" {
		b = append(b, `,"statusMessage":`...)
		b = appendString(b, r.Message)
	}
	b = append(b, `,"createdAt":"`...)
	b = append(b, stamp(r.Created)...)
	b = append(b, `","lastUpdatedAt":"`...)
	b = append(b, stamp(max(r.Updated, r.Created))...)
	ttl, poll := `","ttl":`, `,"pollInterval":`
	if modern {
		ttl, poll = `","ttlMs":`, `,"pollIntervalMs":`
	}
	b = strconv.AppendInt(append(b, ttl...), r.TTLMs, 10)
	if r.PollMs <= 0 { // a poll interval under 1 ms: none suggested
		return b
	}
	return strconv.AppendInt(append(b, poll...), r.PollMs, 10)
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}

// CreateResult is the 2026-07-28 CreateTaskResult: the Task with
// resultType "task" and meta (the server's _meta member value).
func CreateResult(r *Record, meta json.RawMessage) []byte {
	b := appendTask([]byte{'{'}, r, true)
	b = append(b, `,"resultType":"task","_meta":`...)
	return append(append(b, meta...), '}')
}

// Detailed is the 2026-07-28 DetailedTask (notifications/tasks params):
// the Task plus inputRequests (input_required), result (completed) or
// error (failed).
func Detailed(r *Record) []byte {
	return append(appendDetailed([]byte{'{'}, r), '}')
}

func appendDetailed(b []byte, r *Record) []byte {
	b = appendTask(b, r, true)
	switch r.Status {
	case InputRequired:
		b = append(b, `,"inputRequests":{`...)
		for i, k := range sortedKeys(r.Inputs) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendString(b, k), ':')
			b = append(b, r.Inputs[k]...)
		}
		b = append(b, '}')
	case Completed:
		if r.Result != nil {
			b = append(append(b, `,"result":`...), r.Result...)
		}
	case Failed:
		if r.Error != nil {
			b = append(append(b, `,"error":`...), r.Error...)
		}
	}
	return b
}

// GetResult is the 2026-07-28 GetTaskResult: the DetailedTask with
// resultType "complete" and meta.
func GetResult(r *Record, meta json.RawMessage) []byte {
	b := appendDetailed([]byte{'{'}, r)
	b = append(b, `,"resultType":"complete","_meta":`...)
	return append(append(b, meta...), '}')
}

// LegacyTask is the 2025-11-25 Task object (tasks/get result,
// notifications/tasks/status params, tasks/list entries).
func LegacyTask(r *Record) []byte {
	rr := *r
	rr.Status = LegacyStatus(r)
	return append(appendTask([]byte{'{'}, &rr, false), '}')
}

// LegacyCreate is the 2025-11-25 CreateTaskResult: {"task": Task}.
func LegacyCreate(r *Record) []byte {
	b := append([]byte(`{"task":`), LegacyTask(r)...)
	return append(b, '}')
}

// LegacyStatus is the 2025-11-25 status of r: a tool result with isError
// true is "failed" in that revision (its result is still what tasks/result
// returns).
func LegacyStatus(r *Record) Status {
	if r.Status == Completed && isErrorResult(r.Result) {
		return Failed
	}
	return r.Status
}

// isErrorResult reports whether a CallToolResult has isError true.
func isErrorResult(raw json.RawMessage) bool {
	var v struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(raw, &v) == nil && v.IsError
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
