package redisstore_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
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

// redisServer starts redis-server on port (a free one when 0) and returns
// the port and a function that kills it (SIGKILL, as a crash). The test is
// skipped without redis-server on PATH.
func redisServer(t *testing.T, port int) (int, func()) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed (apt-get install redis-server)")
	}
	if port == 0 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kill := func() { cmd.Process.Kill(); cmd.Wait() }
	t.Cleanup(kill)
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			return port, kill
		}
		if i == 200 {
			t.Fatalf("redis-server on port %d does not accept connections", port)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// TestSubscriptionSurvivesRestart: a subscription outlives a crash and
// restart of Redis (go-redis reconnects and subscribes again), which the
// fan-out of change notifications relies on; what is published while Redis
// is down is lost (at most once).
func TestSubscriptionSurvivesRestart(t *testing.T) {
	port, kill := redisServer(t, 0)
	url := fmt.Sprintf("redis://127.0.0.1:%d/0", port)
	sub, err := redisstore.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	pub, err := redisstore.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := sub.Subscribe(ctx, "restart")
	if err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(ctx, "restart", []byte("before")); err != nil {
		t.Fatal(err)
	}
	if got := <-ch; string(got) != "before" {
		t.Fatalf("got %q", got)
	}
	kill()
	if err := pub.Publish(ctx, "restart", []byte("while down")); err == nil {
		t.Fatal("publish with Redis down: no error")
	}
	redisServer(t, port)
	restarted := time.Now()
	// Publish until the resubscribed connection hears it (go-redis notices
	// the dead connection on its next read or health check).
	deadline := time.Now().Add(90 * time.Second)
	for i := 0; ; i++ {
		_ = pub.Publish(ctx, "restart", []byte(fmt.Sprint("after-", i)))
		select {
		case got, ok := <-ch:
			if !ok {
				t.Fatal("the subscription ended with the restart")
			}
			if !strings.HasPrefix(string(got), "after-") {
				t.Fatalf("got %q after the restart, want a message published after it", got)
			}
			t.Logf("the subscription delivered again %v after the restart", time.Since(restarted).Round(time.Millisecond))
			return
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("no message through the subscription within 90s of the restart")
		}
	}
}
