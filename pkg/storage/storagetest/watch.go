package storagetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// hangGuard only stops a broken store from hanging the suite; no test
// depends on how fast anything happens.
const hangGuard = 30 * time.Second

func watch(t *testing.T, s storage.Interface, prefix string, after int64) <-chan storage.Event {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch, err := s.Watch(ctx, prefix, after)
	if err != nil {
		t.Fatalf("Watch(%q, %d) = %v", prefix, after, err)
	}
	return ch
}

func next(t *testing.T, ch <-chan storage.Event) storage.Event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("watch closed early")
		}
		return ev
	case <-time.After(hangGuard):
		t.Fatal("no watch event")
	}
	panic("unreachable")
}

// render shows an event as "TYPE key=value@rev" with "(was prev)" when the
// event carries a previous value.
func render(ev storage.Event) string {
	if ev.Err != nil {
		return "ERROR " + ev.Err.Error()
	}
	s := fmt.Sprintf("%s %s=%s@%d", ev.Type, ev.Key, ev.Value, ev.Revision)
	if ev.PrevValue != nil {
		s += fmt.Sprintf(" (was %s)", ev.PrevValue)
	}
	return s
}

func collect(t *testing.T, ch <-chan storage.Event, n int) []string {
	t.Helper()
	out := make([]string, 0, n)
	for range n {
		out = append(out, render(next(t, ch)))
	}
	return out
}

func testWatchFromNow(t *testing.T, s storage.Interface) {
	create(t, s, "/w/old", "x")
	ch := watch(t, s, "/w/", 0)
	r := create(t, s, "/w/a", "1")
	update(t, s, "/w/a", "2")
	del(t, s, "/w/a")
	want := []string{
		fmt.Sprintf("ADDED /w/a=1@%d", r),
		fmt.Sprintf("MODIFIED /w/a=2@%d (was 1)", r+1),
		fmt.Sprintf("DELETED /w/a=2@%d (was 2)", r+2),
	}
	if got := collect(t, ch, 3); !slices.Equal(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
}

// testWatchReplay checks that a watch from a past revision replays
// history exactly once and then continues live without a gap.
func testWatchReplay(t *testing.T, s storage.Interface) {
	start := revision(t, s)
	var want []string
	for i := range 600 { // more than one replay batch and one live buffer
		key := fmt.Sprintf("/r/%d", i%7)
		if i < 7 {
			want = append(want, fmt.Sprintf("ADDED %s=%d@%d", key, i, create(t, s, key, fmt.Sprint(i))))
		} else {
			want = append(want, fmt.Sprintf("MODIFIED %s=%d@%d (was %d)", key, i, update(t, s, key, fmt.Sprint(i)), i-7))
		}
	}
	ch := watch(t, s, "/r/", start)
	for i := 600; i < 700; i++ {
		key := fmt.Sprintf("/r/%d", i%7)
		want = append(want, fmt.Sprintf("MODIFIED %s=%d@%d (was %d)", key, i, update(t, s, key, fmt.Sprint(i)), i-7))
	}
	if got := collect(t, ch, len(want)); !slices.Equal(got, want) {
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("event %d = %q, want %q", i, got[i], want[i])
			}
		}
	}
	// Mid-history: from the 300th change on.
	ch = watch(t, s, "/r/", start+300)
	if got := collect(t, ch, 400); !slices.Equal(got, want[300:]) {
		t.Fatalf("replay from the middle differs: first %q, want %q", got[0], want[300])
	}
}

// testWatchReplayLifecycle replays a key's whole life from history: the
// DELETED event carries the last value and the previous value, rebuilt
// from what the backend kept.
func testWatchReplayLifecycle(t *testing.T, s storage.Interface) {
	start := revision(t, s)
	r := create(t, s, "/l/k", "1")
	update(t, s, "/l/k", "2")
	del(t, s, "/l/k")
	create(t, s, "/l/k", "3")
	want := []string{
		fmt.Sprintf("ADDED /l/k=1@%d", r),
		fmt.Sprintf("MODIFIED /l/k=2@%d (was 1)", r+1),
		fmt.Sprintf("DELETED /l/k=2@%d (was 2)", r+2),
		fmt.Sprintf("ADDED /l/k=3@%d", r+3),
	}
	if got := collect(t, watch(t, s, "/l/", start), 4); !slices.Equal(got, want) {
		t.Fatalf("replayed events = %v, want %v", got, want)
	}
}

func testWatchPrefix(t *testing.T, s storage.Interface) {
	ch := watch(t, s, "/a/", 0)
	create(t, s, "/ab/x", "no")
	create(t, s, "/b/x", "no")
	create(t, s, "/a", "no")
	r := create(t, s, "/a/x", "yes")
	if got, want := render(next(t, ch)), fmt.Sprintf("ADDED /a/x=yes@%d", r); got != want {
		t.Fatalf("first event under /a/ = %q, want %q", got, want)
	}
}

func testWatchFutureRevision(t *testing.T, s storage.Interface) {
	cur := revision(t, s)
	ch := watch(t, s, "/f/", cur+2)
	create(t, s, "/f/1", "skipped")
	create(t, s, "/f/2", "skipped")
	r := create(t, s, "/f/3", "seen")
	if got, want := render(next(t, ch)), fmt.Sprintf("ADDED /f/3=seen@%d", r); got != want {
		t.Fatalf("first event = %q, want %q", got, want)
	}
}

func testWatchEndsWithContext(t *testing.T, s storage.Interface) {
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := s.Watch(ctx, "/c/", 0)
	if err != nil {
		t.Fatal(err)
	}
	create(t, s, "/c/1", "v")
	cancel()
	for range ch { // drains, then must close
	}
	// The store still works for others.
	ch2 := watch(t, s, "/c/", 0)
	r := create(t, s, "/c/2", "v")
	if ev := next(t, ch2); ev.Revision != r {
		t.Fatalf("event at %d, want %d", ev.Revision, r)
	}
}

func testWatchEndsOnClose(t *testing.T, s storage.Interface) {
	// One watcher is live; the other is part-way through replaying
	// history when the store closes. Neither may report an error for a
	// clean close.
	live := watch(t, s, "/c/", 0)
	for i := range 2000 {
		create(t, s, fmt.Sprintf("/c/%d", i), "v")
	}
	replaying := watch(t, s, "/c/", 1)
	<-replaying
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []<-chan storage.Event{live, replaying} {
		for ev := range ch {
			if ev.Err != nil {
				t.Fatalf("clean close ended the watch with %v", ev.Err)
			}
		}
	}
	_, err := s.Create(context.Background(), "/c/x", nil)
	wantErr(t, "Create after Close", err, storage.ErrClosed)
	_, err = s.Watch(context.Background(), "/c/", 0)
	wantErr(t, "Watch after Close", err, storage.ErrClosed)
}

// testSlowWatcher keeps a watcher from reading while many changes pass,
// which overflows any live buffer: it must still see every change once.
func testSlowWatcher(t *testing.T, s storage.Interface) {
	ch := watch(t, s, "/s/", 0)
	first := revision(t, s) + 1
	const n = 3000
	for i := range n {
		create(t, s, fmt.Sprintf("/s/%04d", i), "v")
	}
	for i := range n {
		ev := next(t, ch)
		if want := first + int64(i); ev.Revision != want || ev.Type != storage.Added {
			t.Fatalf("event %d: %s, want ADDED at %d", i, render(ev), want)
		}
	}
}

func testCompact(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	create(t, s, "/k/a", "a1")
	create(t, s, "/k/b", "b1")
	update(t, s, "/k/a", "a2")
	c := update(t, s, "/k/a", "a3")
	atC := kvs(list(t, s, "/k/", storage.ListOptions{}).Items)
	after := update(t, s, "/k/b", "b2")

	wantErr(t, "Compact past current", s.Compact(ctx, after+1), storage.ErrFutureRevision)
	if err := s.Compact(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(ctx, c-1); err != nil {
		t.Fatalf("Compact below the compacted revision = %v, want no-op", err)
	}
	if got := kvs(list(t, s, "/k/", storage.ListOptions{Revision: c}).Items); !slices.Equal(got, atC) {
		t.Fatalf("List at the compacted revision = %v, want %v", got, atC)
	}
	_, err := s.List(ctx, "/k/", storage.ListOptions{Revision: c - 1})
	wantErr(t, "List below compaction", err, storage.ErrCompacted)
	_, err = s.Watch(ctx, "/k/", c-1)
	var ce *storage.CompactedError
	if !errors.As(err, &ce) || ce.Oldest != c {
		t.Fatalf("Watch below compaction = %v, want CompactedError with Oldest %d", err, c)
	}
	ch := watch(t, s, "/k/", c)
	if got, want := render(next(t, ch)), fmt.Sprintf("MODIFIED /k/b=b2@%d (was b1)", after); got != want {
		t.Fatalf("watch from the compacted revision: %q, want %q", got, want)
	}
	kv, err := s.Get(ctx, "/k/a")
	if err != nil || string(kv.Value) != "a3" {
		t.Fatalf("Get after compaction = %s, %v", kv.Value, err)
	}
	// Writes and history keep working after compaction.
	r := update(t, s, "/k/a", "a4")
	if got, want := render(next(t, ch)), fmt.Sprintf("MODIFIED /k/a=a4@%d (was a3)", r); got != want {
		t.Fatalf("event after compaction = %q, want %q", got, want)
	}
}

// testCompactDeletedKeys compacts across deletes and re-creates: a key
// deleted at or below the compacted revision is gone from every read,
// and one deleted after it still shows at older revisions.
func testCompactDeletedKeys(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	create(t, s, "/d/gone", "1")
	update(t, s, "/d/gone", "2")
	del(t, s, "/d/gone")
	create(t, s, "/d/back", "1")
	del(t, s, "/d/back")
	create(t, s, "/d/back", "2")
	create(t, s, "/d/late", "1")
	c := revision(t, s)
	lateDel := del(t, s, "/d/late")
	if err := s.Compact(ctx, c); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rev  int64
		want []string
	}{
		{c, []string{fmt.Sprintf("/d/back=2@%d", c-1), fmt.Sprintf("/d/late=1@%d", c)}},
		{lateDel, []string{fmt.Sprintf("/d/back=2@%d", c-1)}},
	}
	for _, tt := range tests {
		if got := kvs(list(t, s, "/d/", storage.ListOptions{Revision: tt.rev}).Items); !slices.Equal(got, tt.want) {
			t.Errorf("List at %d = %v, want %v", tt.rev, got, tt.want)
		}
	}
	// Everything compacts away when all history is released.
	del(t, s, "/d/back")
	if err := s.Compact(ctx, revision(t, s)); err != nil {
		t.Fatal(err)
	}
	if got := list(t, s, "", storage.ListOptions{}).Items; len(got) != 0 {
		t.Fatalf("List after deleting everything = %v", kvs(got))
	}
	r := create(t, s, "/d/gone", "3")
	if got := kvs(list(t, s, "/d/", storage.ListOptions{}).Items); !slices.Equal(got, []string{fmt.Sprintf("/d/gone=3@%d", r)}) {
		t.Fatalf("re-created after compaction: %v", got)
	}
}

func testWatchOvertakenByCompaction(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	ch := watch(t, s, "/o/", 0)
	for i := range 2000 {
		create(t, s, fmt.Sprintf("/o/%d", i), "v")
	}
	if err := s.Compact(ctx, revision(t, s)); err != nil {
		t.Fatal(err)
	}
	for ev := range ch {
		if ev.Err != nil {
			wantErr(t, "watch overtaken by compaction", ev.Err, storage.ErrCompacted)
			return
		}
	}
	t.Fatal("watch closed without an error")
}

func testConcurrentWritersOneKey(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	rev := create(t, s, "/hot", "0")
	const writers, rounds = 16, 50
	for round := range rounds {
		var wg sync.WaitGroup
		results := make(chan error, writers)
		for w := range writers {
			wg.Go(func() {
				_, err := s.Update(ctx, "/hot", fmt.Appendf(nil, "%d-%d", round, w), rev)
				results <- err
			})
		}
		wg.Wait()
		close(results)
		wins := 0
		for err := range results {
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, storage.ErrConflict):
				t.Fatalf("round %d: unexpected error %v", round, err)
			}
		}
		if wins != 1 {
			t.Fatalf("round %d: %d writers won, want exactly 1", round, wins)
		}
		rev++
		if got := revision(t, s); got != rev {
			t.Fatalf("round %d: revision %d, want %d", round, got, rev)
		}
	}
}

func testWatchOrderUnderConcurrentWrites(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	start := revision(t, s)
	ch := watch(t, s, "/cw/", start)
	const writers, each = 8, 100
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			key := fmt.Sprintf("/cw/%d", w)
			if _, err := s.Create(ctx, key, []byte("0")); err != nil {
				t.Error(err)
				return
			}
			for i := 1; i < each; i++ {
				if _, err := s.Update(ctx, key, fmt.Append(nil, i), 0); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	lastSeq := map[string]int{}
	for i := range writers * each {
		ev := next(t, ch)
		if want := start + 1 + int64(i); ev.Revision != want {
			t.Fatalf("event %d at revision %d, want %d (gap or duplicate)", i, ev.Revision, want)
		}
		var seq int
		fmt.Sscan(string(ev.Value), &seq)
		if prev, ok := lastSeq[ev.Key]; ok && seq != prev+1 {
			t.Fatalf("%s: value %d after %d, out of order", ev.Key, seq, prev)
		}
		lastSeq[ev.Key] = seq
	}
	wg.Wait()
}

func testThousandWatchers(t *testing.T, s storage.Interface) {
	const watchers = 1000
	chans := make([]<-chan storage.Event, watchers)
	for i := range chans {
		chans[i] = watch(t, s, "/t/", 0)
	}
	r1 := create(t, s, "/t/a", "1")
	r2 := update(t, s, "/t/a", "2")
	for i, ch := range chans {
		if a, b := next(t, ch), next(t, ch); a.Revision != r1 || b.Revision != r2 {
			t.Fatalf("watcher %d got %d, %d; want %d, %d", i, a.Revision, b.Revision, r1, r2)
		}
	}
}
