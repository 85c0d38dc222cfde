// Package ledger is the idempotency ledger of the mcpgen runtime: it makes a
// write with an idempotency key run at most once per (principal, tool, key)
// within a retention, on any store.Store (in-memory, Redis).
//
// Before the handler runs, a call claims the key with an atomic put-if-absent of
// a "running" record (the digest of its arguments, its action id, a lease the
// ledger renews while the handler runs). On a store that lives in this process
// (a store.DigestStore: store.Memory) a claim cannot outlive the process that
// holds it, so it needs no renewal: its record says "held" (lease leaseHeld)
// until the claim ends, and only Abandon gives it a lease to lapse. A
// successful result replaces the record, by compare-and-set, with a "done"
// record holding the result (Claim.Done); a
// failed call deletes its claim so that the same key can be tried again
// (Claim.Release); a call whose handler may still act lets its claim lapse
// (Claim.Abandon). A repeat of the key (Ledger.Begin):
//   - with other arguments: Conflict;
//   - finding "done": Replayed, with the stored result;
//   - finding "running" with a live lease: waits for the result (polling, up to
//     Config.Wait and the call's deadline), then InProgress;
//   - finding "running" with a lapsed lease (the process died, or the handler was
//     abandoned at its deadline): Unknown, or, for a caller that can reconcile,
//     Reconcile with the claim taken over.
//
// The package knows records, not results: the runtime encodes a result into the
// done record (Claim.Done's append function) and rebuilds it from the pieces
// ParseStored returns.
package ledger

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/store"
)

// Defaults of Config's zero values.
const (
	DefaultRetention = 24 * time.Hour
	DefaultWait      = 10 * time.Second
	DefaultLease     = 5 * time.Second
)

// Config tunes a Ledger; zero values take the defaults.
type Config struct {
	Retention time.Duration // how long a key and its result are kept
	Wait      time.Duration // how long a repeat waits for a running first call
	Lease     time.Duration // how long a claim outlives its last renewal
	Logger    *slog.Logger  // renewal and release failures; nil: discarded
}

// A Ledger is the idempotency ledger on one store.
type Ledger struct {
	cfg    Config
	store  store.Store
	owner  store.Owner       // store, when it can keep values without copies
	ds     store.DigestStore // store, when it takes keys as digests (store.Memory)
	leases leaseSet
}

// New returns the ledger on st.
func New(st store.Store, cfg Config) *Ledger {
	if cfg.Retention <= 0 {
		cfg.Retention = DefaultRetention
	}
	if cfg.Wait <= 0 {
		cfg.Wait = DefaultWait
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	l := &Ledger{cfg: cfg}
	l.SetStore(st)
	return l
}

// SetStore replaces the ledger's store; call it before the first Begin.
func (l *Ledger) SetStore(st store.Store) {
	l.store = st
	l.owner, _ = st.(store.Owner)
	l.ds, _ = st.(store.DigestStore)
}

// Store returns the ledger's store.
func (l *Ledger) Store() store.Store { return l.store }

// An Outcome is what Begin found for a call.
type Outcome uint8

// Outcomes of Begin.
const (
	// Fresh: the call claimed the key; run the handler, then Claim.Done,
	// Release or Abandon.
	Fresh Outcome = iota + 1
	// Replayed: the key is done with these arguments; Decision.Result holds the
	// stored result.
	Replayed
	// Conflict: the key was used with other arguments.
	Conflict
	// InProgress: a call with the key still runs (Decision.Action is its action id).
	InProgress
	// Unknown: the first call's claim lapsed before it recorded an outcome
	// (Decision.Action is its action id).
	Unknown
	// Reconcile: the first call's claim lapsed and this call took it over: look
	// the outcome up, then Claim.Done, Release or Abandon (or run the handler).
	Reconcile
	// StoreError: the store failed (Decision.Err); nothing ran.
	StoreError
)

// String names an outcome as the audit trail does.
func (o Outcome) String() string {
	switch o {
	case Fresh:
		return "fresh"
	case Replayed:
		return "replayed"
	case Conflict:
		return "conflict"
	case InProgress:
		return "in_progress"
	case Unknown:
		return "outcome_unknown"
	case Reconcile:
		return "reconciled"
	case StoreError:
		return "store_error"
	}
	return ""
}

// A Decision is Begin's answer.
type Decision struct {
	Outcome Outcome
	Claim   *Claim // Fresh, Reconcile: the claim this call holds
	Action  string // InProgress, Unknown: the other call's action id
	Result  Stored // Replayed
	Err     error  // StoreError
}

// Who is the principal a key belongs to: subject and OAuth client, as
// sessions, tasks and requestState bind them. A key of one client is not
// another client's, even for the same subject (a token without "sub" may carry
// its client id as the subject).
type Who struct{ Subject, Client string }

// Key is the store key of (who, tool, key): a digest, so that neither the
// caller's key nor its principal appear in the store's key space.
func Key(who Who, tool, key string) string {
	var b [keyLen]byte
	return string(appendKey(b[:0], who, tool, key))
}

// keyLen is the length of a store key.
const keyLen = len(keyPrefix) + 40

const keyPrefix = "mcpgen:idem:"

// appendKey appends Key(who, tool, key).
func appendKey(b []byte, who Who, tool, key string) []byte {
	sum := whoDigest(who, tool, key)
	return appendKeyOf(b, sum[:keyDigestLen])
}

// whoDigest is the digest of a key's parts: subject, tool, key, then the
// client when there is one (the parts are length-prefixed, so a key with a
// client never meets one without; a principal without a client keeps the keys
// of the runtime that knew subjects only).
func whoDigest(who Who, tool, key string) [sha256.Size]byte {
	if who.Client == "" {
		return digestParts(who.Subject, tool, key)
	}
	return digestParts(who.Subject, tool, key, who.Client)
}

// appendKeyOf appends the store key of the digest d (keyDigestLen bytes).
func appendKeyOf(b []byte, d []byte) []byte {
	return hex.AppendEncode(append(b, keyPrefix...), d)
}

// keyDigestLen is how much of the SHA-256 a store key keeps.
const keyDigestLen = 20

// ActionID digests what identifies an action: tool, principal, the arguments'
// digest and the idempotency key ("" for none); the client last, when there is
// one (as Key).
func ActionID(tool string, who Who, argsDigest, key string) string {
	var sum [sha256.Size]byte
	if who.Client == "" {
		sum = digestParts(tool, who.Subject, argsDigest, key)
	} else {
		sum = digestParts(tool, who.Subject, argsDigest, key, who.Client)
	}
	var b [4 + 32]byte
	copy(b[:], "act_")
	hex.Encode(b[4:], sum[:16])
	return string(b[:])
}

// ArgsDigest is the hex SHA-256 of args re-encoded with sorted keys and no spaces
// (numbers kept as written), so that a retry whose client orders or spaces the
// arguments differently has the same digest.
func ArgsDigest(args []byte) string {
	sum := sha256.Sum256(jsonwire.Canonical(args))
	var b [2 * sha256.Size]byte
	hex.Encode(b[:], sum[:])
	return string(b[:])
}

// digestParts returns the SHA-256 of parts, each written as its length, ':' and
// its bytes.
func digestParts(parts ...string) [sha256.Size]byte {
	var buf [256]byte
	b := buf[:0]
	for _, part := range parts {
		b = append(appendLen(b, len(part)), ':')
		b = append(b, part...)
	}
	return sha256.Sum256(b)
}

// appendLen appends n in decimal, as strconv.AppendInt does, the common short
// lengths without its general path.
func appendLen(b []byte, n int) []byte {
	switch {
	case n < 10:
		return append(b, byte('0'+n))
	case n < 100:
		return append(b, byte('0'+n/10), byte('0'+n%10))
	}
	return strconv.AppendInt(b, int64(n), 10)
}

// Begin looks up the key of (who, tool, key) (Key) for a call whose
// arguments digest to args and whose action id is action, claiming it when it is
// free. canReconcile says whether the
// caller can look up the outcome of a lapsed claim (then it gets Reconcile
// instead of Unknown). ctx bounds the wait for a running first call; the store is
// written under a context without its cancellation (the ledger is kept even when
// the caller gives up).
func (l *Ledger) Begin(ctx context.Context, who Who, tool, key, args, action string, canReconcile bool) Decision {
	var until time.Time // set when the first wait starts
	c := l.newClaim(ctx, whoDigest(who, tool, key), args, action)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		// The claim's record is written into the claim itself; a record the
		// store did not take is overwritten by the next try.
		mine := c.running()
		claimed, err := l.putIfAbsent(c, mine)
		if err != nil {
			l.recycle(c)
			return Decision{Outcome: StoreError, Err: err}
		}
		if claimed {
			return Decision{Outcome: Fresh, Claim: l.hold(c, mine)}
		}
		cur, found, err := l.get(c, nil)
		if err != nil {
			l.recycle(c)
			return Decision{Outcome: StoreError, Err: err}
		}
		if !found {
			continue // released or expired meanwhile: claim it
		}
		d, done := l.decide(c, cur, mine, canReconcile)
		if done {
			if d.Claim == nil {
				l.recycle(c)
			}
			return d
		}
		if d.Outcome == Reconcile {
			continue // the lapsed claim changed meanwhile: look again
		}
		if until.IsZero() {
			until = time.Now().Add(l.cfg.Wait)
			if d, ok := ctx.Deadline(); ok && d.Before(until) {
				until = d
			}
		}
		if !time.Now().Add(pause).Before(until) {
			l.recycle(c)
			return d
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			l.recycle(c)
			return d
		case <-t.C:
		}
	}
}

// decide reads the record cur that holds the key claim c wants: done says
// whether d is the answer; else d is InProgress (wait and look again) or
// Reconcile (the takeover lost a race: look again).
func (l *Ledger) decide(c *Claim, cur, mine []byte, canReconcile bool) (d Decision, done bool) {
	rec, err := parseRecord(cur)
	if err != nil {
		return Decision{Outcome: StoreError, Err: err}, true
	}
	switch {
	case string(rec.args) != c.args:
		return Decision{Outcome: Conflict}, true
	case string(rec.state) == stateDone:
		st, err := ParseStored(rec.result)
		if err != nil {
			return Decision{Outcome: StoreError, Err: err}, true
		}
		return Decision{Outcome: Replayed, Result: st}, true
	case time.Now().UnixMilli() >= rec.lease: // the first run's claim lapsed
		if !canReconcile {
			return Decision{Outcome: Unknown, Action: string(rec.action)}, true
		}
		ok, err := l.compareAndSet(c, cur, mine, true)
		if err != nil {
			return Decision{Outcome: StoreError, Err: err}, true
		}
		if ok {
			return Decision{Outcome: Reconcile, Claim: l.hold(c, mine)}, true
		}
		return Decision{Outcome: Reconcile}, false
	}
	return Decision{Outcome: InProgress, Action: string(rec.action)}, false
}

// ErrClaimLost reports a done record not written because the claim was taken
// over (its lease lapsed) or removed meanwhile.
var ErrClaimLost = errors.New("the claim was taken over (its lease lapsed)")

// A Claim is a call's hold on a key: renewed by the ledger's lease sweep until
// Done, Release or Abandon, after which it must not be used.
type Claim struct {
	l            *Ledger
	ctx          context.Context
	key          string             // the store key (a store without DigestStore)
	d            [keyDigestLen]byte // the store key's digest (a DigestStore)
	args, action string             // under mu
	mu           sync.Mutex
	cur          []byte // the claim as the store holds it
	held         bool   // renewals on
	prev, next   *Claim // in the ledger's leaseSet, under its mu
	listed       bool
	buf          [keyLen + runningLen]byte // the running record, after the key (string keys)
	rec          []byte                    // Done's buffer (a recycled claim's)
}

// claims recycles the claims of a DigestStore's ledger (the store copies what
// it keeps: nothing outside the ledger refers to a claim after its end).
var claims sync.Pool

// newClaim returns a claim on the key whose SHA-256 is sum, for a call under
// ctx. The store is written under ctx without its cancellation: a DigestStore
// never blocks and ignores a context's cancellation (store.DigestStore), so it
// gets ctx as is, without the allocation of a context.WithoutCancel.
func (l *Ledger) newClaim(ctx context.Context, sum [sha256.Size]byte, args, action string) *Claim {
	if l.ds == nil {
		c := &Claim{l: l, ctx: context.WithoutCancel(ctx), args: args, action: action}
		copy(c.d[:], sum[:])
		c.key = unsafe.String(&c.buf[0], len(appendKeyOf(c.buf[:0], c.d[:])))
		return c
	}
	c, _ := claims.Get().(*Claim)
	if c == nil {
		c = new(Claim)
	}
	// A DigestStore's claims are never renewed (hold): no lease sweep looks
	// at a recycled claim, so its fields change without the lock.
	c.l, c.ctx, c.args, c.action, c.cur = l, ctx, args, action, nil
	copy(c.d[:], sum[:])
	return c
}

// recycle ends c's use (a DigestStore's claim goes back to the pool).
func (l *Ledger) recycle(c *Claim) {
	if l.ds == nil {
		return
	}
	c.ctx, c.args, c.action, c.cur = nil, "", "", nil // not held: see newClaim
	claims.Put(c)
}

// running writes the claim's running record into c.buf (after the key, for
// string keys): its lease starting now, or leaseHeld on a DigestStore.
func (c *Claim) running() []byte {
	start, lease := 0, int64(leaseHeld)
	if c.key != "" {
		start = keyLen
	}
	if c.l.ds == nil {
		lease = time.Now().Add(c.l.cfg.Lease).UnixMilli()
	}
	b := appendRecordHead(c.buf[:start], stateRunning, c.args, c.action, lease)
	b = append(b, '}')
	return b[start:len(b):len(b)]
}

// runningLen is room for a running record (hex digest, action id, lease).
const runningLen = 192

// leaseHeld is the lease of a claim held on a DigestStore (an in-process
// store): it lapses only when Abandon gives it a lease, or with the process,
// which takes the store along.
const leaseHeld = math.MaxInt64

// leaseHeldMember is a held claim's lease member, as appendRecordHead writes it.
var leaseHeldMember = `,"lease":` + strconv.FormatInt(leaseHeld, 10)

// Private reports whether the claim's store lives in this process (a
// DigestStore, store.Memory): no other process, nor another version of the
// runtime, reads its done record, which may then keep a result in the short
// forms Stored describes.
func (c *Claim) Private() bool { return c.l.ds != nil }

// Action is the claim's action id.
func (c *Claim) Action() string { return c.action }

// Done replaces the claim with the done record whose result appendResult
// appends (the stored result, replayed to every repeat). The record is built in
// a reused scratch buffer, which the store copies (store.Memory into its
// chunks, without an allocation of its own). An error means the result was not
// recorded; a repeat then finds the claim lapsed.
func (c *Claim) Done(appendResult func([]byte) ([]byte, error)) error {
	cur := c.stop()
	// The store copies the record (store.Memory into its chunks): the buffer is
	// reused, the recycled claim's own on a DigestStore, else a pooled one.
	sp := &c.rec
	if c.l.ds == nil {
		sp, _ = scratch.Get().(*[]byte)
		if sp == nil {
			sp = new([]byte)
		}
		defer func() {
			if cap(*sp) <= maxScratch {
				scratch.Put(sp)
			}
		}()
	}
	b := appendRecordHead((*sp)[:0], stateDone, c.args, c.action, 0)
	b, err := appendResult(append(b, `,"result":`...))
	if err == nil {
		b = append(b, '}')
		var ok bool
		ok, err = c.l.compareAndSet(c, cur, b, false)
		if err == nil && !ok {
			err = ErrClaimLost
		}
	}
	*sp = b[:0]
	if cap(b) > maxScratch {
		*sp = nil
	}
	c.l.recycle(c)
	return err
}

// scratch holds the buffers Done builds done records in (*[]byte) when claims
// are not recycled; one larger than maxScratch is dropped after use.
var scratch sync.Pool

const maxScratch = 64 << 10

// Release deletes the claim, if the key still holds it: the call had no effect,
// and the key may be tried again.
func (c *Claim) Release() {
	cur := c.stop()
	var buf [keyLen + runningLen]byte
	if got, ok, err := c.l.get(c, buf[:0]); err == nil && ok && bytes.Equal(got, cur) {
		if err := c.l.delete(c); err != nil {
			c.l.cfg.Logger.Error("idempotency: claim not released", "err", err)
		}
	}
	c.l.recycle(c)
}

// Abandon stops renewing the claim: the handler may still act, so the claim
// lapses and a repeat learns that the outcome is unknown (or reconciles it).
// A claim held on a DigestStore, which is never renewed, gets a lease from now.
func (c *Claim) Abandon() {
	cur := c.stop()
	if c.l.ds != nil {
		// Built in Done's buffer: cur lies in c.buf.
		lapsing := append(appendRecordHead(c.rec[:0], stateRunning, c.args, c.action, time.Now().Add(c.l.cfg.Lease).UnixMilli()), '}')
		if ok, err := c.l.compareAndSet(c, cur, lapsing, false); err != nil || !ok {
			c.l.cfg.Logger.Warn("idempotency: abandoned claim not given its lease", "action_id", c.action, "ok", ok, "err", err)
		}
		c.rec = lapsing[:0]
	}
	c.l.recycle(c)
}

// stop ends the renewals and returns the claim as the store holds it.
func (c *Claim) stop() []byte {
	if c.l.ds != nil { // never renewed (hold)
		return c.cur
	}
	c.l.leases.remove(c)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held = false
	return c.cur
}

// renew extends the claim's lease (the lease sweep calls it).
func (c *Claim) renew() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.held {
		return
	}
	next := append(appendRecordHead(nil, stateRunning, c.args, c.action, time.Now().Add(c.l.cfg.Lease).UnixMilli()), '}')
	ok, err := c.l.compareAndSet(c, c.cur, next, true)
	switch {
	case err != nil:
		c.l.cfg.Logger.Warn("idempotency: lease not renewed", "err", err)
	case !ok:
		c.l.cfg.Logger.Error("idempotency: claim lost while the handler runs", "action_id", c.action)
		c.held = false
	default:
		c.cur = next
	}
}

// hold makes c the claim of its key, whose record mine the store holds,
// renewed until stopped; a DigestStore's claim (lease leaseHeld) is not.
func (l *Ledger) hold(c *Claim, mine []byte) *Claim {
	if l.ds != nil {
		c.cur = mine
		return c
	}
	c.mu.Lock()
	c.cur, c.held = mine, true
	c.mu.Unlock()
	l.leases.add(c, l)
	return c
}

// A leaseSet is the claims a ledger renews: one sweep per ledger every third
// of the lease, over the claims held at that time, instead of a timer per call.
// The claims form a list through the claims themselves (no map, no allocation).
type leaseSet struct {
	mu      sync.Mutex
	head    *Claim
	n       int
	timer   *time.Timer
	armed   bool
	scratch []*Claim
}

// add registers c, arming the sweep when it is idle.
func (s *leaseSet) add(c *Claim, l *Ledger) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.next, c.prev, c.listed = s.head, nil, true
	if s.head != nil {
		s.head.prev = c
	}
	s.head = c
	s.n++
	if s.armed {
		return
	}
	s.armed = true
	if s.timer == nil {
		s.timer = time.AfterFunc(l.cfg.Lease/3, l.sweep)
	} else {
		s.timer.Reset(l.cfg.Lease / 3)
	}
}

// remove unregisters c; the sweep disarms itself when none is left.
func (s *leaseSet) remove(c *Claim) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !c.listed {
		return
	}
	if c.prev != nil {
		c.prev.next = c.next
	} else {
		s.head = c.next
	}
	if c.next != nil {
		c.next.prev = c.prev
	}
	c.prev, c.next, c.listed = nil, nil, false
	s.n--
}

// sweep renews every claim held, then rearms while any is left.
func (l *Ledger) sweep() {
	s := &l.leases
	s.mu.Lock()
	list := s.scratch[:0]
	for c := s.head; c != nil; c = c.next {
		list = append(list, c)
	}
	s.scratch = nil // renewals run unlocked: a concurrent sweep must not share it
	s.mu.Unlock()
	for _, c := range list {
		c.renew()
	}
	clear(list)
	s.mu.Lock()
	s.scratch = list[:0]
	if s.n == 0 {
		s.armed = false
	} else {
		s.timer.Reset(l.cfg.Lease / 3)
	}
	s.mu.Unlock()
}

// heldClaims is how many claims the sweep renews (tests).
func (l *Ledger) heldClaims() int {
	l.leases.mu.Lock()
	defer l.leases.mu.Unlock()
	return l.leases.n
}

// putIfAbsent writes c's record val, which the ledger never changes while the
// store may hold it: an Owner store keeps it without a copy.
func (l *Ledger) putIfAbsent(c *Claim, val []byte) (bool, error) {
	switch {
	case l.ds != nil:
		return l.ds.PutIfAbsentDigest(c.ctx, keyPrefix, &c.d, val, l.cfg.Retention)
	case l.owner != nil:
		return l.owner.PutIfAbsentOwned(c.ctx, c.key, val, l.cfg.Retention)
	}
	return l.store.PutIfAbsent(c.ctx, c.key, val, l.cfg.Retention)
}

// compareAndSet replaces c's record old with val; owned says that the ledger
// never changes val (an Owner store may keep it).
func (l *Ledger) compareAndSet(c *Claim, old, val []byte, owned bool) (bool, error) {
	switch {
	case l.ds != nil:
		return l.ds.CompareAndSetDigest(c.ctx, keyPrefix, &c.d, old, val, l.cfg.Retention)
	case l.owner != nil && owned:
		return l.owner.CompareAndSetOwned(c.ctx, c.key, old, val, l.cfg.Retention)
	}
	return l.store.CompareAndSet(c.ctx, c.key, old, val, l.cfg.Retention)
}

// get reads c's key's record, which the ledger only reads (appending it to dst
// on a DigestStore; an Owner store shares it).
func (l *Ledger) get(c *Claim, dst []byte) ([]byte, bool, error) {
	switch {
	case l.ds != nil:
		return l.ds.GetDigest(c.ctx, keyPrefix, &c.d, dst)
	case l.owner != nil:
		return l.owner.GetShared(c.ctx, c.key)
	}
	return l.store.Get(c.ctx, c.key)
}

// delete removes c's key.
func (l *Ledger) delete(c *Claim) error {
	if l.ds != nil {
		return l.ds.DeleteDigest(c.ctx, keyPrefix, &c.d)
	}
	return l.store.Delete(c.ctx, c.key)
}

// Record states.
const (
	stateRunning = "running"
	stateDone    = "done"
)

// A record is a ledger record as read: sub-slices of the stored bytes.
type record struct {
	state, args, action, result []byte
	lease                       int64 // running: claim valid until (Unix ms)
}

// AppendRunning appends a running record (tests write the claim of a process
// that died).
func AppendRunning(b []byte, args, action string, lease time.Time) []byte {
	return append(appendRecordHead(b, stateRunning, args, action, lease.UnixMilli()), '}')
}

// appendRecordHead appends a record up to its result, without the '}':
// {"state":...,"args":...,"action":...[,"lease":N]. The values are hex digests,
// action ids and state names: no escapes.
func appendRecordHead(b []byte, state, args, action string, lease int64) []byte {
	b = append(b, `{"state":"`...)
	b = append(b, state...)
	b = append(b, `","args":"`...)
	b = append(b, args...)
	b = append(b, `","action":"`...)
	b = append(b, action...)
	b = append(b, '"')
	switch lease {
	case 0:
	case leaseHeld: // every claim on a DigestStore: its digits once
		b = append(b, leaseHeldMember...)
	default:
		b = strconv.AppendInt(append(b, `,"lease":`...), lease, 10)
	}
	return b
}

// parseRecord reads a record with the jsonwire scanner (no decoder, no copies).
func parseRecord(b []byte) (record, error) {
	var r record
	b = jsonwire.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' || !jsonwire.Valid(b) {
		return r, errors.New("ledger record: not a JSON object")
	}
	var bad string
	jsonwire.EachMember(b, func(key, val []byte) {
		switch string(key) {
		case "state", "args", "action":
			s, ok := plainString(val)
			if !ok {
				bad = string(key)
			}
			switch string(key) {
			case "state":
				r.state = s
			case "args":
				r.args = s
			default:
				r.action = s
			}
		case "lease":
			n, err := strconv.ParseInt(string(val), 10, 64)
			if err != nil {
				bad = "lease"
			}
			r.lease = n
		case "result":
			r.result = val
		}
	})
	switch {
	case bad != "":
		return r, fmt.Errorf("ledger record: bad %s", bad)
	case string(r.state) != stateRunning && string(r.state) != stateDone:
		return r, fmt.Errorf("ledger record: unknown state %q", r.state)
	case string(r.state) == stateDone && r.result == nil:
		return r, errors.New("ledger record: done without a result")
	}
	return r, nil
}

// plainString returns the contents of a JSON string without escapes.
func plainString(val []byte) ([]byte, bool) {
	if len(val) < 2 || val[0] != '"' || val[len(val)-1] != '"' || bytes.IndexByte(val, '\\') >= 0 {
		return nil, false
	}
	return val[1 : len(val)-1], true
}
