package etcd_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/internal/etcdtest"
	"github.com/setpoint-dev/setpoint/pkg/storage"
	"github.com/setpoint-dev/setpoint/pkg/storage/etcd"
	"github.com/setpoint-dev/setpoint/pkg/storage/storagetest"
)

func open(tb testing.TB, c *etcdtest.Cluster, prefix string) *etcd.Store {
	tb.Helper()
	s, err := etcd.Open(etcd.Options{Endpoints: c.Endpoints(), Prefix: prefix})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// Each test gets a new cluster: the suite wants a store at revision 1.
func TestConformance(t *testing.T) {
	storagetest.Run(t, func(tb testing.TB) storage.Interface {
		return open(tb, etcdtest.Start(tb, 1), "/setpoint")
	})
}

// stopOnClose stops the member with the store, so that the next open
// finds only what etcd kept on disk.
type stopOnClose struct {
	*etcd.Store
	m *etcdtest.Member
}

func (s stopOnClose) Close() error {
	err := s.Store.Close()
	s.m.Stop()
	return err
}

func TestDurable(t *testing.T) {
	clusters := map[string]*etcdtest.Cluster{}
	storagetest.RunDurable(t, func(t *testing.T, dir string) storage.Interface {
		c, ok := clusters[dir]
		if ok {
			c.Members[0].Restart(t)
		} else {
			c = etcdtest.Start(t, 1)
			clusters[dir] = c
		}
		return stopOnClose{open(t, c, ""), c.Members[0]}
	})
}

// TestProgress: a write outside a watch's prefix moves the revision
// without an event; asked for progress, the watch reports it has read
// past that write.
func TestProgress(t *testing.T) {
	s := open(t, etcdtest.Start(t, 1), "")
	defer s.Close()
	ctx := t.Context()
	ch, err := s.Watch(ctx, "/a/", 0)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := s.Create(ctx, "/b/x", []byte("v"))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for {
		if err := s.RequestProgress(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case ev := <-ch:
			if ev.Type != storage.Progress {
				t.Fatalf("event %v %s@%d, want only progress", ev.Type, ev.Key, ev.Revision)
			}
			if ev.Revision >= rev {
				return
			}
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatalf("no progress past revision %d", rev)
		}
	}
}

// TestRoot: with a root, keys are stored under the prefix in its place,
// exactly as kube-apiserver's --etcd-prefix lays them out.
func TestRoot(t *testing.T) {
	c := etcdtest.Start(t, 1)
	s, err := etcd.Open(etcd.Options{Endpoints: c.Endpoints(), Prefix: "/other", Root: "/registry"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	raw := open(t, c, "")
	defer raw.Close()
	ctx := t.Context()
	if _, err := s.Create(ctx, "/registry/pods/a", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Get(ctx, "/other/pods/a"); err != nil {
		t.Fatalf("the key in etcd: %v", err)
	}
	res, err := s.List(ctx, "", storage.ListOptions{})
	if err != nil || len(res.Items) != 1 || res.Items[0].Key != "/registry/pods/a" {
		t.Fatalf("List = %+v, %v; want /registry/pods/a", res.Items, err)
	}
	if _, err := s.Create(ctx, "/elsewhere", nil); !errors.Is(err, storage.ErrInvalidKey) {
		t.Fatalf("Create outside the root: %v, want %v", err, storage.ErrInvalidKey)
	}
}

// TestUnavailable: with the cluster gone, requests fail with
// storage.ErrUnavailable once their context ends, not later.
func TestUnavailable(t *testing.T) {
	c := etcdtest.Start(t, 1)
	s := open(t, c, "")
	defer s.Close()
	c.Members[0].Kill()
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	start := time.Now()
	_, err := s.Create(ctx, "/k", nil)
	if !errors.Is(err, storage.ErrUnavailable) {
		t.Fatalf("Create with etcd down: %v, want %v", err, storage.ErrUnavailable)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Create took %v to fail", d)
	}
}
