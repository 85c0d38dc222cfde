package runtime

import (
	"bytes"
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
	"time"
)

// StateKeyEnv names the environment variable NewServer reads requestState keys from
// when Options.StateKeys is empty: one secret, or several separated by commas (the
// first seals, all open, so keys can be rotated). Every replica behind one endpoint
// needs the same value.
const StateKeyEnv = "MCP_STATE_KEY"

// Defaults for the MRTR options.
const (
	defaultStateTTL       = 10 * time.Minute
	defaultInputTimeout   = 5 * time.Minute
	defaultMaxInputRounds = 10
	minStateKeyLen        = 16
	stateTokenPrefix      = "mcs1."
)

// Errors of requestState verification. Each becomes a -32602 reply.
var (
	// ErrStateInvalid reports a requestState that was tampered with, is malformed, or
	// was sealed with a key this server does not hold.
	ErrStateInvalid = errors.New("invalid requestState")
	// ErrStateExpired reports a requestState presented after its expiry.
	ErrStateExpired = errors.New("requestState expired")
	// ErrStateMismatch reports a requestState issued for another method, tool,
	// resource, prompt or other arguments.
	ErrStateMismatch = errors.New("requestState was issued for another request")
)

// A stateSealer seals and opens requestState tokens with AES-256-GCM. The first key
// seals; every key opens (rotation). Keys are never logged.
type stateSealer struct {
	aeads  []cipher.AEAD
	ttl    time.Duration
	random bool // a per-process key: replicas cannot share rounds
	logger *slog.Logger

	warnOnce sync.Once
}

// roundState is the sealed payload of a requestState: what it is bound to, when it
// expires, how many rounds have passed, and the answers gathered so far.
type roundState struct {
	Method  string                     `json:"m"`
	Name    string                     `json:"n"`
	Digest  string                     `json:"d"`
	Expires int64                      `json:"e"` // Unix seconds
	Round   int                        `json:"r"`
	Caller  string                     `json:"p,omitempty"` // principalID of the caller it was sealed for
	Answers map[string]json.RawMessage `json:"a,omitempty"`
}

// newStateSealer derives the AEADs from secrets; with none it reads StateKeyEnv, and
// without that it uses a random key for this process.
func newStateSealer(secrets [][]byte, ttl time.Duration, logger *slog.Logger) *stateSealer {
	if ttl <= 0 {
		ttl = defaultStateTTL
	}
	sl := &stateSealer{ttl: ttl, logger: logger}
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

// envSecrets returns the comma-separated secrets of StateKeyEnv; too short ones are
// dropped with an error log (naming the variable, never the value).
func envSecrets(logger *slog.Logger) [][]byte {
	var out [][]byte
	for _, part := range strings.Split(os.Getenv(StateKeyEnv), ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
		case len(part) < minStateKeyLen:
			logger.Error("ignoring a requestState key that is too short", "env", StateKeyEnv, "min_bytes", minStateKeyLen)
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

// seal encrypts st with the first key and stamps its expiry.
func (sl *stateSealer) seal(st *roundState, now time.Time) (string, error) {
	if sl.random {
		sl.warnOnce.Do(func() {
			sl.logger.Info("requestState key is random for this process; replicas need a shared key", "env", StateKeyEnv)
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

// open verifies a token with every key and checks its expiry and binding.
func (sl *stateSealer) open(token string, want *roundState, now time.Time) (*roundState, error) {
	plain, err := sl.decrypt(token)
	if err != nil {
		return nil, err
	}
	st := &roundState{}
	if err := json.Unmarshal(plain, st); err != nil {
		return nil, fmt.Errorf("%w: undecodable payload", ErrStateInvalid)
	}
	if now.Unix() > st.Expires {
		return nil, ErrStateExpired
	}
	if st.Method != want.Method || st.Name != want.Name || st.Digest != want.Digest || st.Caller != want.Caller {
		return nil, ErrStateMismatch
	}
	return st, nil
}

// decrypt authenticates and decrypts a token with any of the keys.
func (sl *stateSealer) decrypt(token string) ([]byte, error) {
	body, ok := strings.CutPrefix(token, stateTokenPrefix)
	if !ok {
		return nil, fmt.Errorf("%w: unknown format", ErrStateInvalid)
	}
	sealed, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return nil, fmt.Errorf("%w: not base64url", ErrStateInvalid)
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
	return nil, fmt.Errorf("%w: authentication failed", ErrStateInvalid)
}

// argsDigest is a digest of a request's salient params, stable under key order and
// whitespace: SHA-256 of the arguments re-encoded by encoding/json (sorted keys).
func argsDigest(args json.RawMessage) string {
	canon := []byte("{}")
	if len(bytes.TrimSpace(args)) > 0 && string(args) != "null" {
		var v any
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.UseNumber()
		if err := dec.Decode(&v); err == nil {
			if b, err := json.Marshal(v); err == nil {
				canon = b
			}
		} else {
			canon = args
		}
	}
	sum := sha256.Sum256(canon)
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}
