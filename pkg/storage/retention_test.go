package storage_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/storage"
	"github.com/setpoint-dev/setpoint/pkg/storage/memory"
)

func TestRetentionTracker(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	type write struct {
		rev  int64
		size int
		at   time.Duration
	}
	tests := []struct {
		name      string
		retention storage.Retention
		writes    []write
		now       time.Duration
		// overMax is OverMax after the writes.
		overMax bool
		want    int64
	}{
		{
			name:      "young history is kept",
			retention: storage.Retention{MinAge: time.Minute, MinBytes: 0},
			writes:    []write{{2, 10, 0}, {3, 10, 30 * time.Second}},
			now:       59 * time.Second,
			want:      0,
		},
		{
			name:      "old history is released up to the last old span",
			retention: storage.Retention{MinAge: time.Minute, MinBytes: 0},
			writes:    []write{{2, 10, 0}, {3, 10, 10 * time.Second}, {4, 10, 30 * time.Second}},
			now:       75 * time.Second,
			want:      3, // revision 4 is 45 s old
		},
		{
			name:      "bytes keep old history when the young part is small",
			retention: storage.Retention{MinAge: time.Minute, MinBytes: 100},
			writes:    []write{{2, 60, 0}, {3, 60, 10 * time.Second}, {4, 10, 5 * time.Minute}},
			now:       10 * time.Minute,
			// Releasing rev 2 leaves 70 bytes, below 100: keep it all.
			want: 0,
		},
		{
			name:      "bytes release what lies beyond the newest MinBytes",
			retention: storage.Retention{MinAge: time.Minute, MinBytes: 100},
			writes:    []write{{2, 60, 0}, {3, 60, 10 * time.Second}, {4, 60, 20 * time.Second}, {5, 60, 30 * time.Second}},
			now:       10 * time.Minute,
			want:      3, // 120 bytes of revisions 4 and 5 remain
		},
		{
			name:      "writes within one second share a span",
			retention: storage.Retention{MinAge: time.Minute},
			writes:    []write{{2, 1, 0}, {3, 1, 500 * time.Millisecond}, {4, 1, 2 * time.Minute}},
			now:       90 * time.Second,
			want:      3,
		},
		{
			name:      "past MaxBytes young history is released",
			retention: storage.Retention{MinAge: time.Hour, MaxBytes: 100},
			writes:    []write{{2, 60, 0}, {3, 60, 10 * time.Second}, {4, 60, 20 * time.Second}},
			now:       30 * time.Second,
			overMax:   true,
			// 180 bytes: release down to 100 less an eighth (88).
			want: 3,
		},
		{
			name:      "under MaxBytes young history is kept",
			retention: storage.Retention{MinAge: time.Hour, MaxBytes: 200},
			writes:    []write{{2, 60, 0}, {3, 60, 10 * time.Second}, {4, 60, 20 * time.Second}},
			now:       30 * time.Second,
			want:      0,
		},
		{
			name:      "MaxBytes wins over MinBytes",
			retention: storage.Retention{MinAge: time.Hour, MinBytes: 1000, MaxBytes: 100},
			writes:    []write{{2, 60, 0}, {3, 60, 10 * time.Second}, {4, 60, 20 * time.Second}},
			now:       30 * time.Second,
			overMax:   true,
			want:      3,
		},
		{
			name:      "a burst within one second is split by size",
			retention: storage.Retention{MinAge: time.Hour, MaxBytes: 100},
			writes: []write{{2, 30, 0}, {3, 30, 100 * time.Millisecond},
				{4, 30, 200 * time.Millisecond}, {5, 30, 300 * time.Millisecond}},
			now:     400 * time.Millisecond,
			overMax: true,
			// Spans close at 12 bytes, so each write is one: 120 bytes
			// go down to 60.
			want: 3,
		},
		{
			name:      "the newest span is kept even past MaxBytes",
			retention: storage.Retention{MinAge: time.Hour, MaxBytes: 100},
			writes:    []write{{2, 500, 0}, {3, 500, 5 * time.Second}},
			now:       6 * time.Second,
			overMax:   true,
			want:      2,
		},
		{
			name:      "old history is released under MaxBytes too",
			retention: storage.Retention{MinAge: time.Minute, MaxBytes: 1000},
			writes:    []write{{2, 10, 0}, {3, 10, 2 * time.Minute}},
			now:       3 * time.Minute,
			want:      2,
		},
		{
			name:      "history before tracking started counts as new",
			retention: storage.Retention{MinAge: time.Minute},
			writes:    nil,
			now:       59 * time.Second,
			want:      0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := storage.NewRetentionTracker(tt.retention, 1, t0)
			for _, w := range tt.writes {
				tr.Observe(w.rev, w.size, at(w.at))
			}
			if got := tr.OverMax(); got != tt.overMax {
				t.Errorf("OverMax = %v, want %v", got, tt.overMax)
			}
			if got := tr.Compactable(at(tt.now)); got != tt.want {
				t.Fatalf("Compactable = %d, want %d", got, tt.want)
			}
			// What was released is not released again.
			if got := tr.Compactable(at(tt.now)); got != 0 {
				t.Fatalf("second Compactable = %d, want 0", got)
			}
		})
	}
}

func TestRetentionForQuota(t *testing.T) {
	tests := []struct {
		name  string
		in    storage.Retention
		quota int64
		want  storage.Retention
	}{
		{"the default quota keeps the default", storage.DefaultRetention, storage.DefaultQuota, storage.DefaultRetention},
		{"no quota keeps the retention", storage.Retention{MinAge: time.Minute, MinBytes: 10}, 0, storage.Retention{MinAge: time.Minute, MinBytes: 10}},
		{"a small quota lowers both bounds", storage.DefaultRetention, 64 << 20,
			storage.Retention{MinAge: 15 * time.Minute, MinBytes: 8 << 20, MaxBytes: 8 << 20}},
		{"no byte bound gets one from the quota", storage.Retention{MinAge: time.Minute}, 800, storage.Retention{MinAge: time.Minute, MaxBytes: 100}},
		{"a bound under the quota's share stays", storage.Retention{MaxBytes: 50, MinBytes: 10}, 800, storage.Retention{MaxBytes: 50, MinBytes: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := storage.RetentionForQuota(tt.in, tt.quota); got != tt.want {
				t.Fatalf("RetentionForQuota(%+v, %d) = %+v, want %+v", tt.in, tt.quota, got, tt.want)
			}
		})
	}
}

// TestCompactorByteBound writes 160 updates of one large object within
// MinAge, as a burst of patches does, and checks that the compactor keeps
// the store's history near MaxBytes as it goes rather than for MinAge.
func TestCompactorByteBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const (
			valueSize = 1 << 10
			maxBytes  = 16 << 10
		)
		ctx, cancel := context.WithCancel(context.Background())
		s := memory.New()
		defer s.Close()
		c := &storage.Compactor{Store: s, Retention: storage.Retention{MinAge: 15 * time.Minute, MinBytes: 1 << 10, MaxBytes: maxBytes}, Interval: 10 * time.Second}
		done := make(chan error)
		go func() { done <- c.Start(ctx) }()
		synctest.Wait()

		value := make([]byte, valueSize)
		if _, err := s.Create(ctx, "/big/obj", value); err != nil {
			t.Fatal(err)
		}
		var worst int64
		for i := range 160 {
			value[0] = byte(i)
			if _, err := s.Update(ctx, "/big/obj", value, 0); err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
			synctest.Wait()
			u, _ := s.Usage()
			worst = max(worst, u.Bytes)
		}
		// The memory store counts key, value and 128 bytes per version;
		// the tracker counts key and value. Allow the step down (an
		// eighth) and the newest span on top of the bound.
		if bound := int64(maxBytes*(valueSize+128+8)/valueSize + 2*valueSize); worst > bound {
			t.Errorf("history grew to %d bytes, want at most %d (160 updates hold %d)", worst, bound, 160*valueSize)
		}
		t.Logf("largest usage %d bytes", worst)
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Start = %v on a clean stop", err)
		}
	})
}

// TestCompactor runs the compactor on a memory store in a synctest bubble,
// where time moves only when every goroutine waits.
func TestCompactor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		s := memory.New()
		defer s.Close()
		c := &storage.Compactor{Store: s, Retention: storage.Retention{MinAge: 15 * time.Minute, MinBytes: 1 << 10}, Interval: 10 * time.Second}
		done := make(chan error)
		go func() { done <- c.Start(ctx) }()
		synctest.Wait()

		var early int64
		for minute := range 30 {
			rev, err := s.Create(ctx, fmt.Sprintf("/k/%d", minute), make([]byte, 100))
			if err != nil {
				t.Fatal(err)
			}
			if minute == 0 {
				early = rev
			}
			time.Sleep(time.Minute)
		}
		synctest.Wait()
		// 30 minutes of 100-byte writes: the last 15 minutes hold 1.5 KB,
		// more than MinBytes, so everything older than 15 minutes goes.
		_, err := s.List(ctx, "/k/", storage.ListOptions{Revision: early})
		if !errors.Is(err, storage.ErrCompacted) {
			t.Fatalf("List at the first revision = %v, want ErrCompacted", err)
		}
		cur, _ := s.Revision(ctx)
		if _, err := s.List(ctx, "/k/", storage.ListOptions{Revision: cur - 14}); err != nil {
			t.Fatalf("List 14 minutes back = %v, want it retained", err)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Start = %v on a clean stop", err)
		}
	})
}
