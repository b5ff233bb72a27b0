package api

import (
	"bytes"
	"fmt"
	"testing"
)

func TestPageCacheVersionsAndBounds(t *testing.T) {
	c := newPageCache(64 * 100) // entries up to 100 bytes
	body := func(n int) []byte { return bytes.Repeat([]byte("x"), n) }
	c.put(&pageEntry{key: "a", version: 1, body: body(100)})
	if c.get("a", 1) == nil {
		t.Fatal("a missing at its version")
	}
	if c.get("a", 2) != nil {
		t.Fatal("a served at another version")
	}
	if c.get("a", 1) != nil || c.size != 0 {
		t.Fatalf("a stale entry was kept (size %d)", c.size)
	}
	c.put(&pageEntry{key: "big", version: 1, body: body(101)})
	if c.get("big", 1) != nil {
		t.Fatal("an entry above maxBytes/64 was kept")
	}
	// Fill past the bound: the least recently used go first.
	for i := range 64 {
		c.put(&pageEntry{key: fmt.Sprint(i), version: 1, body: body(100)})
	}
	c.get("0", 1) // 0 becomes the most recent
	c.put(&pageEntry{key: "new", version: 1, body: body(100)})
	if c.size > c.maxBytes {
		t.Fatalf("size %d above the bound %d", c.size, c.maxBytes)
	}
	if c.get("1", 1) != nil {
		t.Error("the least recently used entry survived")
	}
	if c.get("0", 1) == nil || c.get("new", 1) == nil {
		t.Error("a recent entry was evicted")
	}
	// Replacing a key keeps the size exact.
	c.put(&pageEntry{key: "new", version: 2, body: body(10)})
	var sum int64
	for _, el := range c.entries {
		sum += int64(len(el.Value.(*pageEntry).body))
	}
	if sum != c.size || len(c.entries) != c.lru.Len() {
		t.Errorf("size %d, entries sum %d, %d entries, lru %d", c.size, sum, len(c.entries), c.lru.Len())
	}
	if newPageCache(0) != nil {
		t.Error("a zero-byte cache is not off")
	}
}
