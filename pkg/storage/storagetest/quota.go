package storagetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// NewQuotaFunc returns a new, empty store that refuses creates and updates
// past quota bytes. The suite closes it.
type NewQuotaFunc func(tb testing.TB, quota int64) storage.Interface

// RunQuota checks the quota contract against stores made by newStore:
// past its quota a store refuses creates and updates with a
// *storage.QuotaError, consuming no revision, while reads, deletes and
// compaction go on; once deletes and compaction bring its usage below
// the quota it accepts writes again. Stores must implement
// storage.UsageReporter.
func RunQuota(t *testing.T, newStore NewQuotaFunc) {
	t.Run("RefusesWritesUntilCompacted", func(t *testing.T) {
		const quota = 256 << 10
		s := newStore(t, quota)
		t.Cleanup(func() { s.Close() })
		testQuota(t, s, quota)
	})
}

func usage(t *testing.T, s storage.Interface) storage.Usage {
	t.Helper()
	r, ok := s.(storage.UsageReporter)
	if !ok {
		t.Fatalf("%T does not implement storage.UsageReporter", s)
	}
	u, err := r.Usage()
	if err != nil {
		t.Fatalf("Usage() = %v", err)
	}
	return u
}

func wantQuotaError(t *testing.T, what string, err error, quota int64) {
	t.Helper()
	wantErr(t, what, err, storage.ErrQuotaExceeded)
	var qe *storage.QuotaError
	if !errors.As(err, &qe) || qe.Quota != quota || qe.Used < quota {
		t.Fatalf("%s: error %#v, want a *QuotaError with Quota %d and Used at least that", what, err, quota)
	}
}

func testQuota(t *testing.T, s storage.Interface, quota int64) {
	ctx := context.Background()
	value := strings.Repeat("v", 8<<10)
	if u := usage(t, s); u.Quota != quota || u.Exceeded() {
		t.Fatalf("new store: Usage() = %+v, want quota %d, not exceeded", u, quota)
	}
	// Fill the store with distinct keys until it refuses.
	var keys []string
	var refused error
	for i := 0; i < 4*int(quota)/len(value) && refused == nil; i++ {
		key := fmt.Sprintf("/q/%03d", i)
		if _, refused = s.Create(ctx, key, []byte(value)); refused == nil {
			keys = append(keys, key)
		}
	}
	if refused == nil {
		t.Fatalf("%d creates of %d bytes were all accepted under a %d-byte quota", len(keys), len(value), quota)
	}
	wantQuotaError(t, "Create past the quota", refused, quota)
	u := usage(t, s)
	if !u.Exceeded() {
		t.Fatalf("after a refused create, Usage() = %+v, want exceeded", u)
	}
	t.Logf("refused after %d creates of %d bytes at %d bytes in use", len(keys), len(value), u.Bytes)
	full := revision(t, s)
	_, err := s.Update(ctx, keys[0], []byte("small"), 0)
	wantQuotaError(t, "Update past the quota", err, quota)
	_, err = s.Create(ctx, "/q/tiny", []byte("x"))
	wantQuotaError(t, "small Create past the quota", err, quota)
	if got := revision(t, s); got != full {
		t.Fatalf("refused writes moved the revision from %d to %d", full, got)
	}
	// Reads go on.
	if got := len(list(t, s, "/q/", storage.ListOptions{}).Items); got != len(keys) {
		t.Fatalf("List past the quota: %d items, want %d", got, len(keys))
	}
	// Deletes go on; they keep the deleted values as history, so the
	// store stays past its quota until that history is compacted.
	for _, k := range keys {
		del(t, s, k)
	}
	_, err = s.Create(ctx, "/q/tiny", []byte("x"))
	wantQuotaError(t, "Create after deletes, before compaction", err, quota)
	if err := s.Compact(ctx, revision(t, s)); err != nil {
		t.Fatalf("Compact past the quota: %v", err)
	}
	if u = usage(t, s); u.Exceeded() || u.Bytes >= quota/2 {
		t.Fatalf("after deleting everything and compacting, Usage() = %+v, want well under %d", u, quota)
	}
	t.Logf("%d bytes in use after deletes and compaction", u.Bytes)
	rev := create(t, s, "/q/again", value)
	if got := update(t, s, "/q/again", "v2"); got != rev+1 {
		t.Fatalf("Update after compaction at revision %d, want %d", got, rev+1)
	}
}
