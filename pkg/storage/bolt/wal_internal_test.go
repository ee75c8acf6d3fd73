package bolt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// TestLeavesPinnedModeNearMapEnd fills a store whose map is small: it
// must leave pinned mode before bbolt would remap, keep every write, and
// mark the log so that a restart does not restore over the synced file.
func TestLeavesPinnedModeNearMapEnd(t *testing.T) {
	mapSizeOverride = mapMargin + 8<<20
	defer func() { mapSizeOverride = 0 }()
	path := filepath.Join(t.TempDir(), "db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.pin == nil {
		t.Fatal("a new store is not pinned")
	}
	ctx := context.Background()
	value := make([]byte, 64<<10)
	var rev int64
	for i := 0; s.pin != nil; i++ {
		if i == 1000 {
			t.Fatal("still pinned after 64 MiB of writes")
		}
		if rev, err = s.Create(ctx, fmt.Sprintf("/k/%d", i), value); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		if rev, err = s.Create(ctx, fmt.Sprintf("/synced/%d", i), value); err != nil {
			t.Fatal(err)
		}
	}
	h, found, err := readHeader(s.log.f)
	if err != nil || !found || h.restore {
		t.Fatalf("log header %+v, found %v, err %v: want one without restore", h, found, err)
	}
	s.Abandon()

	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, _ := s.Revision(ctx); got != rev {
		t.Fatalf("revision %d after restart, want %d", got, rev)
	}
	if _, err := s.Get(ctx, "/synced/9"); err != nil {
		t.Fatal(err)
	}
}

// FuzzRecords reads arbitrary bytes as the log's record area: replay must
// stop or fail, never panic or read past the data.
func FuzzRecords(f *testing.F) {
	path := filepath.Join(f.TempDir(), "wal")
	file, err := os.Create(path)
	if err != nil {
		f.Fatal(err)
	}
	defer file.Close()
	w := &wal{f: file, pageSize: 4096, epoch: 3, off: 2 * walSlot}
	events := []storage.Event{
		{Type: storage.Added, Key: "/a", Value: []byte("1")},
		{Type: storage.Modified, Key: "/a", Value: []byte("2")},
		{Type: storage.Deleted, Key: "/a"},
	}
	if err := w.appendBatch(7, events); err != nil {
		f.Fatal(err)
	}
	valid := slices.Clone(w.buf)
	f.Add(valid)
	f.Add(append(slices.Clone(valid), valid...))
	f.Add(valid[:len(valid)-1])
	f.Add([]byte{})
	f.Add(valid[8:])
	f.Fuzz(func(t *testing.T, data []byte) {
		// Past the checksum the payload is trusted as far as its lengths
		// go, so it is fuzzed on its own too.
		if b, err := decodeBatch(data); err == nil && len(b.events) > len(data) {
			t.Fatalf("%d changes from %d bytes", len(b.events), len(data))
		}
		batches, err := w.parseRecords(data)
		if err != nil {
			return
		}
		n := 0
		for _, b := range batches {
			for _, ev := range b.events {
				n += len(ev.Key) + len(ev.Value)
			}
		}
		if n > len(data) {
			t.Fatalf("%d bytes of changes from %d bytes of log", n, len(data))
		}
	})
}

func TestRecordsRoundTrip(t *testing.T) {
	file, err := os.Create(filepath.Join(t.TempDir(), "wal"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	w := &wal{f: file, pageSize: 4096, epoch: 1, off: 2 * walSlot}
	want := []walBatch{
		{first: 2, events: []storage.Event{{Type: storage.Added, Key: "/a", Value: []byte("x")}}},
		{first: 3, events: []storage.Event{{Type: storage.Modified, Key: "/a", Value: []byte{}}, {Type: storage.Deleted, Key: "/a", Value: []byte{}}}},
	}
	for _, b := range want {
		if err := w.appendBatch(b.first, b.events); err != nil {
			t.Fatal(err)
		}
	}
	got, err := w.records()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("records %+v, want %+v", got, want)
	}
	// A new epoch starts over: the old records no longer read back.
	if err := w.writeHeader(walHeader{rev: 4}); err != nil {
		t.Fatal(err)
	}
	if got, err := w.records(); err != nil || len(got) != 0 {
		t.Fatalf("records after a checkpoint: %+v, %v; want none", got, err)
	}
}
