package bolt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// TestByteBoundedHistoryUnderQuota replays, scaled down 12 times, the
// burst that grew a database from 34 MB to 572 MB: 160 updates of one
// large object within MinAge. With the default retention fitted to the
// quota, the history is compacted as it passes its byte bound, so every
// update is accepted and the file stays a small multiple of that bound;
// with MinAge alone the same updates fill the quota and are refused.
func TestByteBoundedHistoryUnderQuota(t *testing.T) {
	const (
		valueSize = 256 << 10 // 3 MiB / 12
		quota     = 24 << 20  // 2 GiB / 12 would keep all of it; this is tight
		updates   = 160
		step      = 5 * time.Second // 160 updates in 13 minutes, under MinAge
	)
	tests := []struct {
		name      string
		retention storage.Retention
		// refused is whether some update must be refused for the quota.
		refused bool
	}{
		{"byte bound", storage.RetentionForQuota(storage.DefaultRetention, quota), false},
		{"age only", storage.Retention{MinAge: storage.DefaultRetention.MinAge, MinBytes: storage.DefaultRetention.MinBytes}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db")
			s, err := Open(path, Options{NoSync: true, QuotaBytes: quota})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			value := make([]byte, valueSize)
			for i := range value {
				value[i] = byte('a' + i%26)
			}
			t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			rev, err := s.Create(ctx, "/big/obj", value)
			if err != nil {
				t.Fatal(err)
			}
			// The compactor's steps, on simulated time: observe every
			// change, compact at once past the byte bound.
			tracker := storage.NewRetentionTracker(tt.retention, rev, t0)
			refused := 0
			for i := range updates {
				now := t0.Add(time.Duration(i+1) * step)
				value[0] = byte(i)
				rev, err := s.Update(ctx, "/big/obj", value, 0)
				if err != nil {
					if !tt.refused {
						t.Fatalf("update %d: %v", i, err)
					}
					wantQuota(t, err)
					refused++
					continue
				}
				tracker.Observe(rev, len("/big/obj")+valueSize, now)
				if tracker.OverMax() {
					if err := s.Compact(ctx, tracker.Compactable(now)); err != nil {
						t.Fatal(err)
					}
				}
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			u, err := s.Usage()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("retention %+v: %d refused, file %d bytes, %d in use", tt.retention, refused, fi.Size(), u.Bytes)
			if tt.refused {
				if refused == 0 {
					t.Fatalf("all %d updates of %d bytes were accepted under a %d-byte quota without a byte bound", updates, valueSize, quota)
				}
				return
			}
			// History up to MaxBytes, the live value and one update in
			// flight, within twice their size on disk.
			if bound := 2 * (tt.retention.MaxBytes + 2*valueSize); fi.Size() > bound {
				t.Fatalf("file grew to %d bytes, want at most %d", fi.Size(), bound)
			}
		})
	}
}

func wantQuota(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, storage.ErrQuotaExceeded) {
		t.Fatalf("refused update: %v, want %v", err, storage.ErrQuotaExceeded)
	}
}
