// Package storagetest is the conformance suite for storage.Interface.
// Every backend runs it from its own tests, so the contract written on
// the interface is checked the same way everywhere:
//
//	func TestConformance(t *testing.T) {
//		storagetest.Run(t, func(t *testing.T) storage.Interface { return memory.New() })
//	}
package storagetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// NewFunc returns a new, empty store. The suite closes it.
type NewFunc func(tb testing.TB) storage.Interface

// Run runs every conformance test against stores made by newStore.
func Run(t *testing.T, newStore NewFunc) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s storage.Interface)
	}{
		{"CreateGet", testCreateGet},
		{"Update", testUpdate},
		{"Delete", testDelete},
		{"FailedWritesKeepRevision", testFailedWritesKeepRevision},
		{"InvalidKeys", testInvalidKeys},
		{"ValuesAreStable", testValuesAreStable},
		{"ListPrefix", testListPrefix},
		{"ListPages", testListPages},
		{"ListAtRevision", testListAtRevision},
		{"ListErrors", testListErrors},
		{"WatchFromNow", testWatchFromNow},
		{"WatchReplay", testWatchReplay},
		{"WatchReplayLifecycle", testWatchReplayLifecycle},
		{"WatchPrefix", testWatchPrefix},
		{"WatchFutureRevision", testWatchFutureRevision},
		{"WatchEndsWithContext", testWatchEndsWithContext},
		{"WatchEndsOnClose", testWatchEndsOnClose},
		{"SlowWatcherLosesNothing", testSlowWatcher},
		{"Compact", testCompact},
		{"CompactDeletedKeys", testCompactDeletedKeys},
		{"WatchOvertakenByCompaction", testWatchOvertakenByCompaction},
		{"ConcurrentWritersOneKey", testConcurrentWritersOneKey},
		{"WatchOrderUnderConcurrentWrites", testWatchOrderUnderConcurrentWrites},
		{"ThousandWatchers", testThousandWatchers},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			t.Cleanup(func() { s.Close() })
			tt.fn(t, s)
		})
	}
}

// Helpers shared by the tests; each fails the test on error.

func create(t *testing.T, s storage.Interface, key, value string) int64 {
	t.Helper()
	rev, err := s.Create(context.Background(), key, []byte(value))
	if err != nil {
		t.Fatalf("Create(%q) = %v", key, err)
	}
	return rev
}

func update(t *testing.T, s storage.Interface, key, value string) int64 {
	t.Helper()
	rev, err := s.Update(context.Background(), key, []byte(value), 0)
	if err != nil {
		t.Fatalf("Update(%q) = %v", key, err)
	}
	return rev
}

func del(t *testing.T, s storage.Interface, key string) int64 {
	t.Helper()
	_, rev, err := s.Delete(context.Background(), key, 0)
	if err != nil {
		t.Fatalf("Delete(%q) = %v", key, err)
	}
	return rev
}

func revision(t *testing.T, s storage.Interface) int64 {
	t.Helper()
	rev, err := s.Revision(context.Background())
	if err != nil {
		t.Fatalf("Revision() = %v", err)
	}
	return rev
}

func list(t *testing.T, s storage.Interface, prefix string, opts storage.ListOptions) storage.ListResult {
	t.Helper()
	res, err := s.List(context.Background(), prefix, opts)
	if err != nil {
		t.Fatalf("List(%q, %+v) = %v", prefix, opts, err)
	}
	return res
}

// kvs renders items as "key=value@rev" for comparison.
func kvs(items []storage.KeyValue) []string {
	out := make([]string, len(items))
	for i, kv := range items {
		out[i] = fmt.Sprintf("%s=%s@%d", kv.Key, kv.Value, kv.Revision)
	}
	return out
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: got error %v, want %v", what, err, want)
	}
}
