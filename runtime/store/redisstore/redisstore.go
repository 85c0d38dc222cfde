// Package redisstore puts the store.Store contract on Redis (go-redis), so that
// replicas behind a load balancer share one idempotency ledger. Importing it
// registers the URL schemes "redis" and "rediss" with store.Open:
//
//	redis://[user:password@]host:port[/db]
//
// PutIfAbsent is SET NX PX, CompareAndSet a Lua script (GET, compare, SET PX),
// Delete DEL; values survive a restart of the MCP server (and of Redis, as far as
// its persistence settings go).
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/store"
)

func init() {
	store.Register("redis", open)
	store.Register("rediss", open)
}

// open is the store.Opener of the redis schemes: it parses the URL and checks
// that the server answers.
func open(ctx context.Context, u *url.URL) (store.Store, error) {
	opts, err := redis.ParseURL(u.String())
	if err != nil {
		return nil, fmt.Errorf("redis store URL: %w", err)
	}
	s := New(redis.NewClient(opts))
	if err := s.c.Ping(ctx).Err(); err != nil {
		s.c.Close()
		return nil, fmt.Errorf("redis store %s: %w", opts.Addr, err)
	}
	return s, nil
}

// Store is a store.Store on a Redis client.
type Store struct {
	c *redis.Client
}

var _ interface {
	store.Store
	store.PubSub
} = (*Store)(nil)

// New returns a Store on c; Close closes c.
func New(c *redis.Client) *Store { return &Store{c: c} }

// Open connects to the Redis server rawURL names (redis://host:port/db).
func Open(ctx context.Context, rawURL string) (*Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	s, err := open(ctx, u)
	if err != nil {
		return nil, err
	}
	return s.(*Store), nil
}

// PutIfAbsent implements store.Store (SET key val NX PX ttl).
func (s *Store) PutIfAbsent(ctx context.Context, key string, val []byte, ttl time.Duration) (bool, error) {
	args := redis.SetArgs{Mode: "NX"}
	if ttl > 0 {
		args.TTL = ttl
	}
	err := s.c.SetArgs(ctx, key, val, args).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	return err == nil, err
}

// Get implements store.Store.
func (s *Store) Get(ctx context.Context, key string) ([]byte, bool, error) {
	b, err := s.c.Get(ctx, key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

// casScript sets KEYS[1] to ARGV[2] (expiring after ARGV[3] ms, never when 0) if it
// holds ARGV[1].
var casScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if tonumber(ARGV[3]) > 0 then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
else
  redis.call('SET', KEYS[1], ARGV[2])
end
return 1`)

// CompareAndSet implements store.Store (one Lua script: atomic on the server).
func (s *Store) CompareAndSet(ctx context.Context, key string, old, val []byte, ttl time.Duration) (bool, error) {
	ms := max(ttl.Milliseconds(), 0)
	if ttl > 0 && ms == 0 {
		ms = 1
	}
	n, err := casScript.Run(ctx, s.c, []string{key}, old, val, ms).Int()
	return n == 1, err
}

// Delete implements store.Store.
func (s *Store) Delete(ctx context.Context, key string) error {
	return s.c.Del(ctx, key).Err()
}

// Close implements store.Store.
func (s *Store) Close() error { return s.c.Close() }

// Publish implements store.PubSub.
func (s *Store) Publish(ctx context.Context, channel string, msg []byte) error {
	return s.c.Publish(ctx, channel, msg).Err()
}

// Subscribe implements store.PubSub: it returns once Redis confirmed the
// subscription, so a message published afterwards is delivered.
func (s *Store) Subscribe(ctx context.Context, channel string) (<-chan []byte, error) {
	ps := s.c.Subscribe(ctx, channel)
	if _, err := ps.Receive(ctx); err != nil {
		ps.Close()
		return nil, err
	}
	out := make(chan []byte, 64)
	in := ps.Channel()
	go func() {
		defer close(out)
		defer ps.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case m, ok := <-in:
				if !ok {
					return
				}
				select {
				case out <- []byte(m.Payload):
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}
