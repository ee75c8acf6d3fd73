package events

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestLRUEvictsLeastRecentlyUsed(t *testing.T) {
	c := newLRU[string, int](2)
	c.put("a", 1)
	c.put("b", 2)
	c.get("a")
	c.put("c", 3)
	if _, ok := c.get("b"); ok {
		t.Error("b should have been evicted")
	}
	if v, ok := c.get("a"); !ok || v != 1 {
		t.Errorf("a = %d, %v", v, ok)
	}
	c.put("a", 4)
	if v, _ := c.get("a"); v != 4 || c.len() != 2 {
		t.Errorf("a = %d, len %d", v, c.len())
	}
}

func TestBucketRefillsFractionally(t *testing.T) {
	b := bucket{tokens: 2, at: t0}
	refill := 10 * time.Second
	var got []bool
	for range 3 {
		got = append(got, b.take(t0, 2, refill))
	}
	if !slices.Equal(got, []bool{true, true, false}) {
		t.Fatalf("a full bucket of 2 allowed %v", got)
	}
	// Half a refill twice earns one token, however it is split.
	if b.take(t0.Add(5*time.Second), 2, refill) {
		t.Error("half a refill earned a token")
	}
	if !b.take(t0.Add(10*time.Second), 2, refill) {
		t.Error("a whole refill earned nothing")
	}
	// A long idle fills to burst, not beyond.
	now := t0.Add(time.Hour)
	n := 0
	for b.take(now, 2, refill) {
		n++
	}
	if n != 2 {
		t.Errorf("after an hour: %d tokens, want the burst of 2", n)
	}
}

func TestEventNamesIncrease(t *testing.T) {
	b := &Broadcaster{}
	a, c := b.eventName("web", t0), b.eventName("web", t0)
	if a == c || !strings.HasPrefix(a, "web.") || !strings.HasPrefix(c, "web.") {
		t.Errorf("names on a stopped clock: %q, %q", a, c)
	}
	if got := b.eventName("system:role", t0); strings.Contains(got, ":") || len(got) != 32 {
		t.Errorf("name for an object name an Event cannot carry: %q", got)
	}
	if got := b.eventName(strings.Repeat("x", 250), t0); len(got) > 253 {
		t.Errorf("name too long: %d", len(got))
	}
}

func TestBackoffDoublesWithinBounds(t *testing.T) {
	b := &Broadcaster{opts: Options{RetryBackoff: time.Second}}
	for attempt, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 5: 16 * time.Second, 9: maxRetryBackoff} {
		for range 20 {
			if got := b.backoff(attempt); got < want/2 || got > want {
				t.Errorf("backoff(%d) = %v, want within [%v, %v]", attempt, got, want/2, want)
			}
		}
	}
}
