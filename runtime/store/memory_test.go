package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/store"
	"github.com/mcpgen/mcpgen/runtime/store/storetest"
)

func TestMemoryContract(t *testing.T) {
	storetest.Run(t, store.NewMemory(), "t:")
}

func TestOpen(t *testing.T) {
	s, err := store.Open(context.Background(), "memory")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.(*store.Memory); !ok {
		t.Fatalf("memory: got %T", s)
	}
	if _, err := store.Open(context.Background(), "nosuch://x"); !errors.Is(err, store.ErrUnknownScheme) {
		t.Fatalf("unknown scheme: got %v", err)
	}
}
