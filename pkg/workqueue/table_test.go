package workqueue

import (
	"fmt"
	"testing"
)

// newTestShard returns a shard of a string queue and a function making
// entries of it, with hashes chosen by the test so that probes collide.
func newTestShard() (*shard[string], func(item string, h uint64) *entry[string]) {
	s := &shard[string]{}
	s.init()
	return s, func(item string, h uint64) *entry[string] {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.get(item, h, false)
	}
}

func TestTableFindInsertRemove(t *testing.T) {
	s, get := newTestShard()
	// Three items on one probe sequence, and one sharing a hash.
	a, b, c := get("a", 1), get("b", 1), get("c", 2)
	d := get("d", 1)
	tab := s.tab.Load()
	for _, tt := range []struct {
		item string
		h    uint64
		want *entry[string]
	}{
		{"a", 1, a}, {"b", 1, b}, {"c", 2, c}, {"d", 1, d},
		{"x", 1, nil}, {"a", 2, nil}, {"c", 1, nil},
	} {
		if got := tab.find(tt.item, tt.h); got != tt.want {
			t.Errorf("find(%q, %d) = %p, want %p", tt.item, tt.h, got, tt.want)
		}
	}

	// Removing b leaves a tombstone that later probes go past, and that
	// the next insert on the sequence reuses.
	used := tab.used
	tab.remove(b)
	if tab.find("b", 1) != nil || tab.find("d", 1) != d || tab.find("c", 2) != c {
		t.Fatal("find after remove: b still found, or an entry past the tombstone lost")
	}
	e := get("e", 1)
	if tab.used != used || tab.live != 4 {
		t.Errorf("after reusing the tombstone: used %d live %d, want %d 4", tab.used, tab.live, used)
	}
	if tab.find("e", 1) != e || tab.find("d", 1) != d {
		t.Error("find after reusing the tombstone")
	}
}

func TestTableGrowsAndCompacts(t *testing.T) {
	const n = 1000
	s, get := newTestShard()
	entries := make([]*entry[string], n)
	for i := range entries {
		entries[i] = get(fmt.Sprint(i), uint64(i*7))
		entries[i].flags.Store(flagQueued)
	}
	tab := s.tab.Load()
	if 2*tab.used > len(tab.slots) {
		t.Fatalf("table over half full: %d of %d slots", tab.used, len(tab.slots))
	}
	for i, e := range entries {
		if got := tab.find(fmt.Sprint(i), uint64(i*7)); got != e {
			t.Fatalf("entry %d lost by growing", i)
		}
	}

	// All but ten go idle without the lock-free path marking them: a
	// compaction keeps the busy ones and idleCap idle ones.
	for _, e := range entries[10:] {
		e.flags.Store(0)
	}
	s.mu.Lock()
	old := s.compact()
	s.mu.Unlock()
	if old == tab {
		t.Fatal("compact did not replace the table")
	}
	kept := 0
	for i, e := range entries {
		got := s.find(fmt.Sprint(i), uint64(i*7))
		if i < 10 && got != e {
			t.Errorf("busy entry %d dropped", i)
		}
		if got != nil {
			kept++
		}
		// The old table still answers, for readers that hold it.
		if tab.find(fmt.Sprint(i), uint64(i*7)) != e {
			t.Errorf("old table lost entry %d", i)
		}
	}
	if want := 10 + idleCap; kept != want || s.nidle != idleCap {
		t.Errorf("kept %d entries, %d idle; want %d, %d", kept, s.nidle, want, idleCap)
	}
}

func TestReleaseKeepsIdleCapEntries(t *testing.T) {
	s, get := newTestShard()
	var entries []*entry[string]
	for i := range idleCap + 5 {
		entries = append(entries, get(fmt.Sprint(i), uint64(i)))
	}
	for _, e := range entries {
		s.idle(e) // flags are 0: nobody queued them
	}
	if s.nidle != idleCap || s.tab.Load().live != idleCap {
		t.Errorf("nidle %d, live %d; want both %d", s.nidle, s.tab.Load().live, idleCap)
	}
	if got := s.dones.Load(); got != int64(len(entries)) {
		t.Errorf("dones = %d, want %d", got, len(entries))
	}
	// Reviving an idle entry uncounts it.
	if e := get("0", 0); e != entries[0] || e.idle || s.nidle != idleCap-1 {
		t.Errorf("revived entry: same %v, idle %v, nidle %d", e == entries[0], e.idle, s.nidle)
	}
}
