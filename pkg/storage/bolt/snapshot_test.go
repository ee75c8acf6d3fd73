package bolt_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/storage"
	"github.com/setpoint-dev/setpoint/pkg/storage/bolt"
)

// TestSnapshotRestore takes a snapshot while writers run, restores it
// with and without a revision bump, and checks that the restored store
// holds exactly the snapshot's state and goes on from the right
// revision.
func TestSnapshotRestore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := bolt.Open(filepath.Join(dir, "db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 200 {
		if _, err := s.Create(ctx, fmt.Sprintf("/registry/a/%03d", i), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	// Writers keep going while the snapshot is written out.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := s.Create(ctx, fmt.Sprintf("/registry/b/%d-%d", w, i), []byte("later")); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	sn, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	want, err := s.List(ctx, "/registry/", storage.ListOptions{Revision: sn.Revision()})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "snap")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	n, err := sn.WriteTo(f)
	if err != nil || n != sn.Size() {
		t.Fatalf("WriteTo = %d, %v; want %d bytes", n, err, sn.Size())
	}
	f.Close()
	sn.Close()
	close(stop)
	wg.Wait()

	if got, err := bolt.Verify(file); err != nil || got != sn.Revision() {
		t.Fatalf("Verify = %d, %v; want %d", got, err, sn.Revision())
	}
	for _, tc := range []struct {
		name string
		bump int64
	}{{"as taken", 0}, {"bumped", 1_000_000}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db")
			rev, err := bolt.Restore(file, path, bolt.RestoreOptions{BumpRevision: tc.bump})
			if want := sn.Revision() + tc.bump; err != nil || rev != want {
				t.Fatalf("Restore = %d, %v; want %d", rev, err, want)
			}
			r, err := bolt.Open(path, bolt.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, err := r.List(ctx, "/registry/", storage.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Revision != rev || len(got.Items) != len(want.Items) {
				t.Fatalf("restored list: revision %d, %d items; want %d, %d", got.Revision, len(got.Items), rev, len(want.Items))
			}
			for i := range got.Items {
				if g, w := got.Items[i], want.Items[i]; g.Key != w.Key || g.Revision != w.Revision || string(g.Value) != string(w.Value) {
					t.Fatalf("item %d = %s@%d, want %s@%d", i, g.Key, g.Revision, w.Key, w.Revision)
				}
			}
			_, err = r.Watch(ctx, "/registry/", sn.Revision()-1)
			if compacted := errors.As(err, new(*storage.CompactedError)); compacted != (tc.bump > 0) {
				t.Errorf("watch from before the snapshot: %v; want compacted %v", err, tc.bump > 0)
			}
			next, err := r.Create(ctx, "/registry/c/new", []byte("v"))
			if err != nil || next != rev+1 {
				t.Errorf("create after restore = %d, %v; want revision %d", next, err, rev+1)
			}
		})
	}
}

func TestRestoreRefuses(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk")
	if err := os.WriteFile(junk, []byte("not a database"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := bolt.Restore(junk, filepath.Join(dir, "db"), bolt.RestoreOptions{}); !errors.Is(err, bolt.ErrNotSnapshot) {
		t.Errorf("restore of junk: %v, want ErrNotSnapshot", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed restore left a database behind: %v", err)
	}
	existing := filepath.Join(dir, "existing")
	s, err := bolt.Open(existing, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := bolt.Restore(existing, existing, bolt.RestoreOptions{}); !errors.Is(err, bolt.ErrExists) {
		t.Errorf("restore over a database: %v, want ErrExists", err)
	}
	if _, err := bolt.Verify(junk); !errors.Is(err, bolt.ErrNotSnapshot) {
		t.Errorf("Verify(junk) = %v, want ErrNotSnapshot", err)
	}
}
