// Package seal seals and opens the requestState of 2026-07-28 input_required
// results: AES-256-GCM with key rotation and a TTL, bound to the request it was
// issued for.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// KeyEnv (runtime.StateKeyEnv) names the environment variable NewServer reads
// requestState keys from when Options.StateKeys is empty: one secret, or several
// separated by commas (the first seals, all open, so keys can be rotated). Every
// replica behind one endpoint needs the same value.
const KeyEnv = "MCP_STATE_KEY"

// Defaults and formats.
const (
	defaultStateTTL  = 10 * time.Minute
	minStateKeyLen   = 16
	stateTokenPrefix = "mcs1."
)

// Errors of requestState verification (runtime.ErrState*). Each becomes a -32602 reply.
var (
	// ErrInvalid reports a requestState that was tampered with, is malformed, or
	// was sealed with a key this server does not hold.
	ErrInvalid = errors.New("invalid requestState")
	// ErrExpired reports a requestState presented after its expiry.
	ErrExpired = errors.New("requestState expired")
	// ErrMismatch reports a requestState issued for another method, tool,
	// resource, prompt or other arguments.
	ErrMismatch = errors.New("requestState was issued for another request")
)

// A Sealer seals and opens requestState tokens with AES-256-GCM. The first key
// seals; every key opens (rotation). Keys are never logged.
type Sealer struct {
	aeads  []cipher.AEAD
	ttl    time.Duration
	random bool // a per-process key: replicas cannot share rounds
	logger *slog.Logger
	served atomic.Bool // served over HTTP, where replicas may share an endpoint (ServedOverHTTP)

	warnOnce sync.Once
}

// State is the sealed payload of a requestState: what it is bound to, when it
// expires, how many rounds have passed, and the answers gathered so far.
type State struct {
	Method  string                     `json:"m"`
	Name    string                     `json:"n"`
	Digest  string                     `json:"d"`
	Expires int64                      `json:"e"` // Unix seconds
	Round   int                        `json:"r"`
	Caller  string                     `json:"p,omitempty"` // principalID of the caller it was sealed for
	Answers map[string]json.RawMessage `json:"a,omitempty"`
	// Asked are the keys of the questions the sealed round asked: the only
	// inputResponses the next round takes (an answer belongs to a question).
	Asked []string `json:"q,omitempty"`
}

// New derives the AEADs from secrets; with none it reads KeyEnv, and without that
// it uses a random key for this process.
func New(secrets [][]byte, ttl time.Duration, logger *slog.Logger) *Sealer {
	if ttl <= 0 {
		ttl = defaultStateTTL
	}
	sl := &Sealer{ttl: ttl, logger: logger}
	if len(secrets) == 0 {
		secrets = envSecrets(logger)
	}
	if len(secrets) == 0 {
		key := make([]byte, 32)
		_, _ = rand.Read(key) // crypto/rand never fails on supported platforms
		secrets, sl.random = [][]byte{key}, true
	}
	for _, sec := range secrets {
		if len(sec) < minStateKeyLen {
			panic(fmt.Sprintf("mcpgen runtime: requestState key shorter than %d bytes", minStateKeyLen))
		}
		sl.aeads = append(sl.aeads, newAEAD(sec))
	}
	return sl
}

// envSecrets returns the comma-separated secrets of KeyEnv; too short ones are
// dropped with an error log (naming the variable, never the value).
func envSecrets(logger *slog.Logger) [][]byte {
	var out [][]byte
	for _, part := range strings.Split(os.Getenv(KeyEnv), ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
		case len(part) < minStateKeyLen:
			logger.Error("ignoring a requestState key that is too short", "env", KeyEnv, "min_bytes", minStateKeyLen)
		default:
			out = append(out, []byte(part))
		}
	}
	return out
}

// newAEAD derives an AES-256-GCM AEAD from a secret of any length.
func newAEAD(secret []byte) cipher.AEAD {
	h := sha256.New()
	h.Write([]byte("mcpgen requestState v1\x00"))
	h.Write(secret)
	block, err := aes.NewCipher(h.Sum(nil))
	if err != nil {
		panic(fmt.Sprintf("mcpgen runtime: aes: %v", err)) // a 32-byte key cannot fail
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		panic(fmt.Sprintf("mcpgen runtime: gcm: %v", err))
	}
	return gcm
}

// stateAAD binds a token to its purpose.
const stateAAD = "mcpgen/requestState"

// ServedOverHTTP records that tokens go to HTTP clients, where several
// replicas may answer one endpoint: only then does a random per-process key
// deserve the log line that names KeyEnv. A stdio server is one process for one
// client; its random key is never a problem.
func (sl *Sealer) ServedOverHTTP() { sl.served.Store(true) }

// Seal encrypts st with the first key and stamps its expiry.
func (sl *Sealer) Seal(st *State, now time.Time) (string, error) {
	if sl.random && sl.served.Load() {
		sl.warnOnce.Do(func() {
			sl.logger.Info("requestState key is random for this process; replicas need a shared key", "env", KeyEnv)
		})
	}
	st.Expires = now.Add(sl.ttl).Unix()
	plain, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("encode requestState: %w", err)
	}
	aead := sl.aeads[0]
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	_, _ = rand.Read(nonce)
	sealed := aead.Seal(nonce, nonce, plain, []byte(stateAAD))
	return stateTokenPrefix + base64.RawURLEncoding.EncodeToString(sealed), nil
}

// Open verifies a token with every key and checks its expiry and binding.
func (sl *Sealer) Open(token string, want *State, now time.Time) (*State, error) {
	plain, err := sl.decrypt(token)
	if err != nil {
		return nil, err
	}
	st := &State{}
	if err := json.Unmarshal(plain, st); err != nil {
		return nil, fmt.Errorf("%w: undecodable payload", ErrInvalid)
	}
	if now.Unix() > st.Expires {
		return nil, ErrExpired
	}
	if st.Method != want.Method || st.Name != want.Name || st.Digest != want.Digest || st.Caller != want.Caller {
		return nil, ErrMismatch
	}
	return st, nil
}

// decrypt authenticates and decrypts a token with any of the keys.
func (sl *Sealer) decrypt(token string) ([]byte, error) {
	body, ok := strings.CutPrefix(token, stateTokenPrefix)
	if !ok {
		return nil, fmt.Errorf("%w: unknown format", ErrInvalid)
	}
	sealed, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return nil, fmt.Errorf("%w: not base64url", ErrInvalid)
	}
	for _, aead := range sl.aeads {
		n := aead.NonceSize()
		if len(sealed) < n+aead.Overhead() {
			break
		}
		if plain, err := aead.Open(nil, sealed[:n], sealed[n:], []byte(stateAAD)); err == nil {
			return plain, nil
		}
	}
	return nil, fmt.Errorf("%w: authentication failed", ErrInvalid)
}

// ArgsDigest is a digest of a request's salient params, stable under key order
// and whitespace: SHA-256 of the arguments re-encoded by encoding/json (sorted keys).
func ArgsDigest(args json.RawMessage) string {
	sum := sha256.Sum256(jsonwire.Canonical(args))
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}
