package migration_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/internal/etcdtest"
	"github.com/setpoint-dev/setpoint/pkg/storage"
	"github.com/setpoint-dev/setpoint/pkg/storage/bolt"
	"github.com/setpoint-dev/setpoint/pkg/storage/etcd"
	"github.com/setpoint-dev/setpoint/pkg/storage/migration"
)

// TestCopyBoltToEtcd copies a bolt store with history (updates, deletes)
// into etcd and checks the keys, the values, and that every revision the
// target hands out is past the source's.
func TestCopyBoltToEtcd(t *testing.T) {
	ctx := context.Background()
	src, err := bolt.Open(filepath.Join(t.TempDir(), "db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for i := range 1200 {
		key := fmt.Sprintf("/registry/configmaps/default/cm-%04d", i)
		rev, err := src.Create(ctx, key, []byte("v1"))
		if err != nil {
			t.Fatal(err)
		}
		switch i % 3 {
		case 1:
			_, err = src.Update(ctx, key, []byte(fmt.Sprintf("v2-%d", i)), rev)
		case 2:
			_, _, err = src.Delete(ctx, key, rev)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// Outside the prefix: not copied.
	if _, err := src.Create(ctx, "/other/x", []byte("x")); err != nil {
		t.Fatal(err)
	}
	want, err := src.List(ctx, "/registry/", storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}

	cluster := etcdtest.Start(t, 1)
	dst, err := etcd.Open(etcd.Options{Endpoints: cluster.Endpoints(), Prefix: "/spx", Root: "/registry"})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	var progress []int
	res, err := migration.Copy(ctx, src, dst, migration.Options{PageSize: 300, Progress: func(n int) { progress = append(progress, n) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Keys != len(want.Items) || res.SourceRevision != want.Revision || res.Revision <= res.SourceRevision {
		t.Errorf("Copy = %+v; want %d keys read at %d, the target past it", res, len(want.Items), want.Revision)
	}
	if len(progress) != 3 || progress[2] != len(want.Items) {
		t.Errorf("progress %v, want three pages up to %d", progress, len(want.Items))
	}
	got, err := dst.List(ctx, "/registry/", storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != len(want.Items) {
		t.Fatalf("target holds %d keys, want %d", len(got.Items), len(want.Items))
	}
	for i, g := range got.Items {
		w := want.Items[i]
		if g.Key != w.Key || string(g.Value) != string(w.Value) {
			t.Fatalf("key %d: %s=%q, want %s=%q", i, g.Key, g.Value, w.Key, w.Value)
		}
		if g.Revision <= res.SourceRevision {
			t.Fatalf("%s copied at revision %d, not past the source's %d", g.Key, g.Revision, res.SourceRevision)
		}
	}
	_, err = dst.Watch(ctx, "/registry/", want.Revision)
	if !errors.As(err, new(*storage.CompactedError)) {
		t.Errorf("watch from a source revision: %v, want compacted", err)
	}
	if _, err := migration.Copy(ctx, src, dst, migration.Options{}); !errors.Is(err, migration.ErrTargetNotEmpty) {
		t.Errorf("second copy: %v, want ErrTargetNotEmpty", err)
	}
	// The keys Advance wrote are gone; only the store's keys are in etcd.
	raw, err := etcd.Open(etcd.Options{Endpoints: cluster.Endpoints()})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	all, err := raw.List(ctx, "", storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Items) != len(want.Items) {
		t.Errorf("etcd holds %d keys, want the %d copied", len(all.Items), len(want.Items))
	}
}

// BenchmarkCopy moves 10,000 keys of 1 KiB, each written three times, so
// that the target's revision is advanced by 20,000 before the copy.
func BenchmarkCopy(b *testing.B) {
	ctx := context.Background()
	src, err := bolt.Open(filepath.Join(b.TempDir(), "db"), bolt.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	value := make([]byte, 1024)
	for i := range 10_000 {
		key := fmt.Sprintf("/registry/configmaps/default/cm-%05d", i)
		rev, err := src.Create(ctx, key, value)
		for range 2 {
			if err == nil {
				rev, err = src.Update(ctx, key, value, rev)
			}
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		b.StopTimer()
		cluster := etcdtest.Start(b, 1)
		dst, err := etcd.Open(etcd.Options{Endpoints: cluster.Endpoints()})
		if err != nil {
			b.Fatal(err)
		}
		timed := &timedAdvance{Store: dst}
		b.StartTimer()
		start := time.Now()
		res, err := migration.Copy(ctx, src, timed, migration.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		dst.Close()
		b.ReportMetric(float64(res.SourceRevision)/timed.took.Seconds(), "advance-revs/s")
		b.ReportMetric(float64(res.Keys)/(time.Since(start)-timed.took).Seconds(), "copied-keys/s")
		b.StartTimer()
	}
}

// timedAdvance times the target's Advance.
type timedAdvance struct {
	*etcd.Store
	took time.Duration
}

func (t *timedAdvance) Advance(ctx context.Context, rev int64) (int64, error) {
	start := time.Now()
	defer func() { t.took = time.Since(start) }()
	return t.Store.Advance(ctx, rev)
}
