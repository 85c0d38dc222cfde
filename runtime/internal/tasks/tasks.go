// Package tasks is the task engine of the mcpgen runtime: durable task records
// on a runtime/store Store, their status machine, time to live, poll interval,
// and the lease by which the server instance running a task shows it is alive;
// their wire shapes for both eras (render.go), the tasks/* methods and their
// errors (methods.go), and the phases and questions of a handler running as a
// task (run.go). It knows nothing of servers, calls or handlers: the tasks
// extension (package runtime/tasks) runs the handlers and wires the methods.
//
// A record is one JSON value under "task:<id>". Every change is a
// compare-and-set on the whole value, so any number of server instances
// sharing the store may read and change a task; the instance running its
// handler renews the record's lease, and any instance that observes a
// non-terminal task whose lease has lapsed marks it failed (Observe).
package tasks

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/store"
)

// A Status is a task's state.
type Status string

// The statuses of the status machine: working <-> input_required, then one
// terminal status (completed, failed, cancelled) that never changes again.
const (
	Working       Status = "working"
	InputRequired Status = "input_required"
	Completed     Status = "completed"
	Failed        Status = "failed"
	Cancelled     Status = "cancelled"
)

// Terminal reports whether st is completed, failed or cancelled.
func (st Status) Terminal() bool { return st == Completed || st == Failed || st == Cancelled }

// Errors of the engine.
var (
	// ErrNotFound reports an unknown id, an id of another principal or era, or
	// a record purged after its TTL.
	ErrNotFound = errors.New("task not found")
	// ErrExpired reports a task whose TTL has ended (kept a little while so
	// the client learns why it is gone).
	ErrExpired = errors.New("task has expired")
	// ErrMalformed reports an id that cannot be one this engine issued.
	ErrMalformed = errors.New("malformed task id")
	// ErrNoChange, returned by an Update function, leaves the record as is.
	ErrNoChange = errors.New("no change")
	// ErrContention reports a record changed by others on every attempt.
	ErrContention = errors.New("task record contended")
)

// A Record is the durable state of one task. Times are Unix milliseconds.
type Record struct {
	ID      string `json:"id"`
	Owner   string `json:"owner"` // the principal that created it
	Era     string `json:"era"`   // the protocol revision it was created under
	Tool    string `json:"tool"`
	Status  Status `json:"status"`
	Message string `json:"message,omitempty"`
	Created int64  `json:"created"`
	Updated int64  `json:"updated"`
	TTLMs   int64  `json:"ttlMs"`
	PollMs  int64  `json:"pollMs"`
	// Lease is when the runner's claim lapses unless renewed; Runner names
	// the server instance that runs the handler.
	Lease  int64  `json:"lease"`
	Runner string `json:"runner"`
	// Inputs are the open input requests ({"method","params"}) by key;
	// Answers the responses tasks/update delivered that the handler has not
	// taken yet; Asked every key ever asked (keys are never reused).
	Inputs  map[string]json.RawMessage `json:"inputs,omitempty"`
	Answers map[string]json.RawMessage `json:"answers,omitempty"`
	Asked   []string                   `json:"asked,omitempty"`
	// CancelRequested is set by tasks/cancel; the runner cancels its handler.
	CancelRequested bool `json:"cancelRequested,omitempty"`
	// Result is the request's result as the era encodes it (completed);
	// Error the JSON-RPC error object (failed).
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// Expires is when the task's TTL ends.
func (r *Record) Expires() time.Time { return time.UnixMilli(r.Created + r.TTLMs) }

// WasAsked reports whether key was ever asked.
func (r *Record) WasAsked(key string) bool {
	for _, k := range r.Asked {
		if k == key {
			return true
		}
	}
	return false
}

// Limits bound what clients and the server may ask of the engine.
type Limits struct {
	// DefaultTTL is the TTL of a task when nobody asks for one; MinTTL and
	// MaxTTL clamp any requested TTL.
	DefaultTTL, MinTTL, MaxTTL time.Duration
	// Poll is the pollIntervalMs the engine suggests.
	Poll time.Duration
	// Lease is how long a runner's claim lasts without renewal.
	Lease time.Duration
	// Grace is how long an expired record is kept to answer "expired"
	// instead of "not found".
	Grace time.Duration
}

// Defaults for zero Limits fields.
const (
	DefaultTTL   = time.Hour
	DefaultMin   = time.Second
	DefaultMax   = 24 * time.Hour
	DefaultPoll  = 500 * time.Millisecond
	DefaultLease = 15 * time.Second
	DefaultGrace = 5 * time.Minute
)

// An Engine keeps task records in a store.
type Engine struct {
	st     store.Store
	lim    Limits
	runner string
	now    func() time.Time

	// snaps holds the record each task's last poll read, so that a client
	// polling far faster than its pollIntervalMs is answered without a
	// store read (see Observe); local changes drop a task's snapshot.
	mu    sync.Mutex
	snaps map[string]snapshot
	epoch uint64 // counts local changes: a read that raced one is not kept

	running atomic.Int64 // task handlers running (Admit)
}

// A snapshot is a record as a poll read it.
type snapshot struct {
	rec *Record
	at  time.Time
}

// maxSnaps bounds the snapshots kept; beyond it they are all dropped.
const maxSnaps = 4096

// New returns an engine over st; runner names this server instance in the
// records whose handlers it runs.
func New(st store.Store, lim Limits, runner string) *Engine {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&lim.MinTTL, DefaultMin)
	def(&lim.MaxTTL, DefaultMax)
	def(&lim.DefaultTTL, DefaultTTL)
	def(&lim.Poll, DefaultPoll)
	def(&lim.Lease, DefaultLease)
	def(&lim.Grace, DefaultGrace)
	lim.MaxTTL = max(lim.MaxTTL, lim.MinTTL)
	lim.DefaultTTL = min(max(lim.DefaultTTL, lim.MinTTL), lim.MaxTTL)
	return &Engine{st: st, lim: lim, runner: runner, now: time.Now}
}

// Limits returns the engine's limits with their defaults filled.
func (e *Engine) Limits() Limits { return e.lim }

// Runner returns the name of this server instance.
func (e *Engine) Runner() string { return e.runner }

// SetClock replaces the engine's clock (tests).
func (e *Engine) SetClock(now func() time.Time) { e.now = now }

// Now returns the engine's clock reading.
func (e *Engine) Now() time.Time { return e.now() }

// ClampTTL returns the TTL for a requested one in milliseconds: 0 (none
// asked) is the default, anything else is clamped to [MinTTL, MaxTTL].
// Negative values are the caller's to refuse.
func (e *Engine) ClampTTL(requestedMs int64) time.Duration {
	if requestedMs == 0 {
		return e.lim.DefaultTTL
	}
	if requestedMs > e.lim.MaxTTL.Milliseconds() {
		return e.lim.MaxTTL
	}
	return max(time.Duration(requestedMs)*time.Millisecond, e.lim.MinTTL)
}

// idBytes is the entropy of a task id: 256 bits.
const idBytes = 32

// NewID returns an unguessable task id: 32 random bytes, base64url.
func NewID() string {
	var b [idBytes]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// ValidID reports whether id has the shape NewID gives.
func ValidID(id string) bool {
	if len(id) != base64.RawURLEncoding.EncodedLen(idBytes) {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func key(id string) string { return "task:" + id }

// keep is how long the store keeps a record from now: to its TTL's end plus
// the grace period.
func (e *Engine) keep(r *Record) time.Duration {
	return max(time.Until(r.Expires())+e.lim.Grace, time.Second)
}

// Create stores a new working record for tool, owned by owner, with the
// given TTL and status message, leased to this instance. It returns once the store holds it:
// any instance sharing the store can read it from then on.
func (e *Engine) Create(ctx context.Context, owner, era, tool string, ttl time.Duration, msg string) (*Record, error) {
	now := e.now().UnixMilli()
	r := &Record{
		ID: NewID(), Owner: owner, Era: era, Tool: tool, Status: Working, Message: msg,
		Created: now, Updated: now, TTLMs: ttl.Milliseconds(), PollMs: e.lim.Poll.Milliseconds(),
		Lease: now + e.lim.Lease.Milliseconds(), Runner: e.runner,
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	ok, err := e.st.PutIfAbsent(ctx, key(r.ID), b, e.keep(r))
	if err != nil {
		return nil, fmt.Errorf("create task: %w", err)
	}
	if !ok { // 256 random bits collided: the store is lying
		return nil, fmt.Errorf("create task: id %s already taken", r.ID)
	}
	return r, nil
}

// load reads a record and its stored bytes.
func (e *Engine) load(ctx context.Context, id string) (*Record, []byte, error) {
	if !ValidID(id) {
		return nil, nil, ErrMalformed
	}
	b, ok, err := e.st.Get(ctx, key(id))
	if err != nil {
		return nil, nil, fmt.Errorf("read task: %w", err)
	}
	if !ok {
		return nil, nil, ErrNotFound
	}
	r := new(Record)
	if err := json.Unmarshal(b, r); err != nil {
		return nil, nil, fmt.Errorf("read task: corrupt record: %w", err)
	}
	return r, b, nil
}

// Get returns the record of id as stored, whoever owns it.
func (e *Engine) Get(ctx context.Context, id string) (*Record, error) {
	r, _, err := e.load(ctx, id)
	return r, err
}

// maxAttempts bounds the compare-and-set retries of one Update.
const maxAttempts = 64

// Update applies f to the record of id and stores the result with a
// compare-and-set, retrying on a concurrent change. f may return ErrNoChange
// (the record is returned unchanged) or another error (returned). A record in
// a terminal status is passed to f too; f decides.
func (e *Engine) Update(ctx context.Context, id string, f func(r *Record) error) (*Record, error) {
	for range maxAttempts {
		r, old, err := e.load(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := f(r); err != nil {
			if errors.Is(err, ErrNoChange) {
				return r, nil
			}
			return r, err
		}
		b, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		ok, err := e.st.CompareAndSet(ctx, key(id), old, b, e.keep(r))
		e.forget(id)
		if err != nil {
			return nil, fmt.Errorf("update task: %w", err)
		}
		if ok {
			return r, nil
		}
	}
	return nil, ErrContention
}

// Observe returns the record of id for owner in era as a client may see it:
// ErrNotFound for another owner's or era's task (never "forbidden": a task id
// is not a secret worth confirming), ErrExpired after its TTL, and a task
// whose runner's lease lapsed is first marked failed (abandoned).
//
// Polls of one task on this instance closer together than a tenth of its
// pollIntervalMs are answered from the record the previous poll read
// (polling storms cost no store reads); changes made through this engine
// are seen at once, changes made by other instances within that tenth.
func (e *Engine) Observe(ctx context.Context, id, owner, era string) (*Record, error) {
	r, epoch := e.snapshot(id)
	if r == nil {
		var err error
		if r, err = e.Get(ctx, id); err != nil {
			return nil, err
		}
		e.remember(r, epoch)
	}
	if r.Owner != owner || r.Era != era {
		return nil, ErrNotFound
	}
	now := e.now()
	if !now.Before(r.Expires()) {
		return nil, ErrExpired
	}
	if !r.Status.Terminal() && now.UnixMilli() > r.Lease {
		return e.Update(ctx, id, func(r *Record) error {
			if r.Status.Terminal() || e.now().UnixMilli() <= r.Lease {
				return ErrNoChange
			}
			Abandon(r)
			e.Touch(r)
			return nil
		})
	}
	return r, nil
}

// snapshot returns the record a recent poll read, or nil and the count of
// local changes so far.
func (e *Engine) snapshot(id string) (*Record, uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.snaps[id]
	if !ok || e.now().Sub(s.at) >= time.Duration(s.rec.PollMs)*time.Millisecond/10 {
		return nil, e.epoch
	}
	return s.rec, e.epoch
}

// remember keeps the record a poll read, unless a local change happened since
// the read began (epoch): the read may predate it.
func (e *Engine) remember(r *Record, epoch uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.epoch != epoch {
		return
	}
	if e.snaps == nil || len(e.snaps) >= maxSnaps {
		e.snaps = map[string]snapshot{}
	}
	e.snaps[r.ID] = snapshot{r, e.now()}
}

// forget drops a task's snapshot.
func (e *Engine) forget(id string) {
	e.mu.Lock()
	delete(e.snaps, id)
	e.epoch++
	e.mu.Unlock()
}

// StoppedMessage is the error message of a task whose handler was still
// running on this instance when the server shut down.
func (e *Engine) StoppedMessage() string {
	return fmt.Sprintf("task stopped: the server instance running it (%s) shut down before it finished; the task was not retried", e.runner)
}

// Abandon marks r failed because its runner stopped renewing its lease.
func Abandon(r *Record) {
	lapsed := time.UnixMilli(r.Lease).UTC().Format(time.RFC3339Nano)
	msg := fmt.Sprintf("task abandoned: the server instance running it (%s) stopped renewing its lease at %s (it was stopped or lost); the task did not finish and was not retried", r.Runner, lapsed)
	Finish(r, Failed, msg, nil, ErrorObject(-32603, msg, nil))
}

// Touch sets r's lastUpdatedAt to now.
func (e *Engine) Touch(r *Record) { r.Updated = max(e.now().UnixMilli(), r.Updated) }

// Finish puts r into a terminal status with its result or error, and drops
// its open input requests.
func Finish(r *Record, st Status, msg string, result, rpcErr json.RawMessage) {
	r.Status, r.Message, r.Result, r.Error = st, msg, result, rpcErr
	r.Inputs, r.Answers = nil, nil
}

// ErrorObject encodes a JSON-RPC error object.
func ErrorObject(code int, msg string, data any) json.RawMessage {
	v := map[string]any{"code": code, "message": msg}
	if data != nil {
		v["data"] = data
	}
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"code": code, "message": msg})
	}
	return b
}

// Renew extends the lease of a task this instance runs; it reports the
// record as stored (a cancel request or answers may have arrived).
func (e *Engine) Renew(ctx context.Context, id string) (*Record, error) {
	return e.Update(ctx, id, func(r *Record) error {
		if r.Status.Terminal() || r.Runner != e.runner {
			return ErrNoChange
		}
		r.Lease = e.now().Add(e.lim.Lease).UnixMilli()
		return nil
	})
}

// LeaseDue reports whether the lease of r should be renewed now (a third of
// it is gone).
func (e *Engine) LeaseDue(r *Record) bool {
	return e.now().UnixMilli() > r.Lease-2*e.lim.Lease.Milliseconds()/3
}

// ErrTerminal reports a change asked of a task that already ended.
var ErrTerminal = errors.New("task already ended")

// Ask records the questions a task's handler asks (key -> the input request
// {"method","params"}) and takes the answers tasks/update delivered for
// them: it returns those answers (each handed out once) and the record. Keys
// asked before are not asked again; while questions are open the task is
// input_required.
func (e *Engine) Ask(ctx context.Context, id string, questions map[string]json.RawMessage) (map[string]json.RawMessage, *Record, error) {
	var got map[string]json.RawMessage
	rec, err := e.Update(ctx, id, func(r *Record) error {
		got = nil
		if r.Status.Terminal() {
			return fmt.Errorf("%w: %s", ErrTerminal, r.Status)
		}
		changed := false
		for k, q := range questions {
			if raw, ok := r.Answers[k]; ok {
				if got == nil {
					got = map[string]json.RawMessage{}
				}
				got[k] = raw
				delete(r.Answers, k)
				changed = true
			} else if !r.WasAsked(k) {
				if r.Inputs == nil {
					r.Inputs = map[string]json.RawMessage{}
				}
				r.Inputs[k], r.Asked = q, append(r.Asked, k)
				changed = true
			}
		}
		if len(r.Inputs) > 0 && r.Status != InputRequired {
			r.Status, r.Message, changed = InputRequired, "waiting for input", true
		}
		if !changed {
			return ErrNoChange
		}
		e.Touch(r)
		return nil
	})
	return got, rec, err
}

// Answer delivers tasks/update's responses to the open input requests they
// name; other keys are ignored. The task is working again once none is open.
// It reports whether anything was taken.
func (e *Engine) Answer(ctx context.Context, id string, responses map[string]json.RawMessage) (*Record, bool, error) {
	taken := false
	rec, err := e.Update(ctx, id, func(r *Record) error {
		taken = false
		if r.Status.Terminal() {
			return fmt.Errorf("%w: %s", ErrTerminal, r.Status)
		}
		for k, v := range responses {
			if _, open := r.Inputs[k]; !open {
				continue
			}
			if r.Answers == nil {
				r.Answers = map[string]json.RawMessage{}
			}
			r.Answers[k] = v
			delete(r.Inputs, k)
			taken = true
		}
		if !taken {
			return ErrNoChange
		}
		if len(r.Inputs) == 0 && r.Status == InputRequired {
			r.Status, r.Message = Working, "input received"
		}
		e.Touch(r)
		return nil
	})
	return rec, taken, err
}

// Cancel cancels a task that has not ended; it reports whether it did.
func (e *Engine) Cancel(ctx context.Context, id string) (*Record, bool, error) {
	done := false
	rec, err := e.Update(ctx, id, func(r *Record) error {
		if r.Status.Terminal() {
			return ErrNoChange
		}
		Finish(r, Cancelled, "cancelled by the client", nil, nil)
		r.CancelRequested, done = true, true
		e.Touch(r)
		return nil
	})
	return rec, done, err
}

// SetStatus changes a running task's status (st may be "" to keep it) and
// message; it reports whether anything changed.
func (e *Engine) SetStatus(ctx context.Context, id string, st Status, msg string) (*Record, bool, error) {
	changed := false
	rec, err := e.Update(ctx, id, func(r *Record) error {
		changed = false
		if st == "" {
			st = r.Status
		}
		if r.Status.Terminal() || r.Status == st && r.Message == msg {
			return ErrNoChange
		}
		r.Status, r.Message, changed = st, msg, true
		e.Touch(r)
		return nil
	})
	return rec, changed, err
}

// WithRelatedTask adds _meta["io.modelcontextprotocol/related-task"] to a
// result object (2025-11-25 tasks/result).
func WithRelatedTask(result json.RawMessage, id string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(result, &obj) != nil {
		return result
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := obj["_meta"]; ok {
		_ = json.Unmarshal(raw, &meta)
	}
	meta["io.modelcontextprotocol/related-task"], _ = json.Marshal(map[string]string{"taskId": id})
	obj["_meta"], _ = json.Marshal(meta)
	b, err := json.Marshal(obj)
	if err != nil {
		return result
	}
	return b
}

// Follow watches the record of a task this instance runs until done is
// closed: every interval it reads the record, renews the lease when due,
// calls stop when the task ended or was lost (cancelled elsewhere, abandoned,
// purged), and wake when answers are waiting. Read errors are passed to
// warn.
func (e *Engine) Follow(id string, done <-chan struct{}, stop, wake func(), warn func(msg string, err error)) {
	tick := time.NewTicker(min(e.lim.Lease/3, 250*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		r, err := e.Get(ctx, id)
		switch {
		case errors.Is(err, ErrNotFound):
			stop()
		case err != nil:
			warn("task record unreadable", err)
		case r.Status.Terminal() || r.Runner != e.runner:
			stop()
		case e.LeaseDue(r):
			if _, err := e.Renew(ctx, id); err != nil {
				warn("task lease not renewed", err)
			}
		}
		if err == nil && len(r.Answers) > 0 {
			wake()
		}
		cancel()
	}
}

// LegacyTTL reads the ttl of a 2025-11-25 params.task: absent or null is 0
// (the default); it must be a non-negative integer of milliseconds.
func LegacyTTL(task json.RawMessage) (int64, error) {
	var t struct {
		TTL *json.Number `json:"ttl"`
	}
	if len(task) == 0 || task[0] != '{' || json.Unmarshal(task, &t) != nil {
		return 0, errors.New("params.task must be an object")
	}
	if t.TTL == nil {
		return 0, nil
	}
	v, err := t.TTL.Int64()
	if err != nil || v < 0 {
		return 0, errors.New("params.task.ttl must be a non-negative integer (milliseconds)")
	}
	return v, nil
}

// maxListed bounds the tasks one owner's list keeps (the oldest go first).
const maxListed = 1000

// indexKey is the store key of an owner's task list in an era.
func indexKey(owner, era string) string {
	sum := sha256.Sum256([]byte(era + "\x00" + owner))
	return "tasks-of:" + hex.EncodeToString(sum[:16])
}

// An indexEntry is one task of an owner's list.
type indexEntry struct {
	ID      string `json:"id"`
	Expires int64  `json:"exp"` // Unix ms, with the grace period
}

// Index adds r to its owner's list (2025-11-25 tasks/list), dropping expired
// entries, and the oldest beyond maxListed.
func (e *Engine) Index(ctx context.Context, r *Record) error {
	k := indexKey(r.Owner, r.Era)
	exp := r.Created + r.TTLMs + e.lim.Grace.Milliseconds()
	for range maxAttempts {
		old, found, err := e.st.Get(ctx, k)
		if err != nil {
			return err
		}
		var list []indexEntry
		if found && json.Unmarshal(old, &list) != nil {
			list = nil
		}
		now := e.now().UnixMilli()
		kept := list[:0]
		for _, x := range list {
			if x.Expires > now {
				kept = append(kept, x)
			}
		}
		kept = append(kept, indexEntry{r.ID, exp})
		if len(kept) > maxListed {
			kept = kept[len(kept)-maxListed:]
		}
		keep := time.Duration(0)
		for _, x := range kept {
			keep = max(keep, time.Until(time.UnixMilli(x.Expires)))
		}
		b, err := json.Marshal(kept)
		if err != nil {
			return err
		}
		var ok bool
		if found {
			ok, err = e.st.CompareAndSet(ctx, k, old, b, max(keep, time.Second))
		} else {
			ok, err = e.st.PutIfAbsent(ctx, k, b, max(keep, time.Second))
		}
		if err != nil || ok {
			return err
		}
	}
	return ErrContention
}

// List returns the owner's tasks of an era, oldest first, as Observe sees
// them (expired and vanished ones left out).
func (e *Engine) List(ctx context.Context, owner, era string) ([]*Record, error) {
	b, found, err := e.st.Get(ctx, indexKey(owner, era))
	if err != nil || !found {
		return nil, err
	}
	var list []indexEntry
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("task list: %w", err)
	}
	var out []*Record
	for _, x := range list {
		if r, err := e.Observe(ctx, x.ID, owner, era); err == nil {
			out = append(out, r)
		}
	}
	return out, nil
}
