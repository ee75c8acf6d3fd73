package bolt_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/storage"
	"github.com/setpoint-dev/setpoint/pkg/storage/bolt"
)

// TestReadsSeeWhatWasAcknowledged checks the writer's deferred bbolt
// commits from the readers' side: as soon as a write returns, a Get, a
// List, a snapshot and a compaction at it all see it,
// while other writers keep the transaction busy.
func TestReadsSeeWhatWasAcknowledged(t *testing.T) {
	ctx := context.Background()
	s, err := bolt.Open(filepath.Join(t.TempDir(), "db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 100 {
				key := fmt.Sprintf("/registry/w%d/%d", w, i)
				rev, err := s.Create(ctx, key, []byte("v"))
				if err != nil {
					t.Error(err)
					return
				}
				got, err := s.Get(ctx, key)
				if err != nil || got.Revision != rev {
					t.Errorf("Get(%s) right after its create at %d: %v, %v", key, rev, got.Revision, err)
					return
				}
				// Other writers compact meanwhile, so the list is current.
				list, err := s.List(ctx, key, storage.ListOptions{})
				if err != nil || len(list.Items) != 1 || list.Items[0].Revision != rev || list.Revision < rev {
					t.Errorf("List right after the create at %d: %+v, %v", rev, list, err)
					return
				}
				if i%25 == 0 {
					if err := s.Compact(ctx, rev); err != nil {
						t.Errorf("Compact(%d) right after the create: %v", rev, err)
						return
					}
					sn, err := s.Snapshot()
					if err != nil {
						t.Error(err)
						return
					}
					if sn.Revision() < rev {
						t.Errorf("snapshot at %d, before the create at %d", sn.Revision(), rev)
					}
					sn.Close()
				}
			}
		})
	}
	wg.Wait()
}

// TestReadsSeeWhatWatchersSaw reads each key as soon as a watch delivers
// its event: a client that learns of a write from a watch (a scheduler
// binding the pod it was told of) must find it.
func TestReadsSeeWhatWatchersSaw(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := bolt.Open(filepath.Join(t.TempDir(), "db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	events, err := s.Watch(ctx, "/registry/", 0)
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 250
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if _, err := s.Create(ctx, fmt.Sprintf("/registry/w%d/%d", w, i), []byte("v")); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for range writers * each {
		ev := <-events
		got, err := s.Get(ctx, ev.Key)
		if err != nil || got.Revision != ev.Revision {
			t.Fatalf("Get(%s) as its event at %d arrived: %v, %v", ev.Key, ev.Revision, got.Revision, err)
		}
	}
	wg.Wait()
}
