package redisstore_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/store"
	"github.com/mcpgen/mcpgen/runtime/store/redisstore"
	"github.com/mcpgen/mcpgen/runtime/store/storetest"
)

// RedisURL returns the test Redis from MCPGEN_TEST_REDIS (e.g. redis://127.0.0.1:6390/0);
// the test is skipped when it is unset, and fails when it is set but unreachable.
func redisURL(t *testing.T) string {
	u := os.Getenv("MCPGEN_TEST_REDIS")
	if u == "" {
		t.Skip("MCPGEN_TEST_REDIS is not set (CI sets it and starts redis-server)")
	}
	return u
}

func TestRedisContract(t *testing.T) {
	s, err := redisstore.Open(context.Background(), redisURL(t))
	if err != nil {
		t.Fatalf("MCPGEN_TEST_REDIS is set but Redis is unreachable: %v", err)
	}
	defer s.Close()
	storetest.Run(t, s, fmt.Sprintf("storetest:%d:", time.Now().UnixNano()))
}

func TestOpenViaRegistry(t *testing.T) {
	s, err := store.Open(context.Background(), redisURL(t))
	if err != nil {
		t.Fatalf("MCPGEN_TEST_REDIS is set but Redis is unreachable: %v", err)
	}
	defer s.Close()
	if _, ok := s.(*redisstore.Store); !ok {
		t.Fatalf("got %T", s)
	}
	if _, err := store.Open(context.Background(), "redis://127.0.0.1:1/0"); err == nil {
		t.Fatal("open of a closed port: got no error")
	}
}
