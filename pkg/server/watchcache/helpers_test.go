package watchcache_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
	"github.com/setpoint-dev/setpoint/pkg/storage"
	"github.com/setpoint-dev/setpoint/pkg/storage/memory"
)

var (
	configMaps = schema.GroupResource{Resource: "configmaps"}
	secrets    = schema.GroupResource{Resource: "secrets"}
)

// waitTimeout bounds every wait of these tests; the race detector on a
// busy two-core machine is slow, but nothing here takes seconds.
const waitTimeout = 10 * time.Second

// decode is a minimal DecodeFunc: the served JSON is the stored value.
func decode(key string, value []byte, rev int64) (*watchcache.Object, error) {
	var obj struct {
		Metadata struct {
			Namespace string            `json:"namespace"`
			Name      string            `json:"name"`
			Labels    map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(value, &obj); err != nil {
		return nil, err
	}
	m := obj.Metadata
	return &watchcache.Object{Key: key, Namespace: m.Namespace, Name: m.Name, Revision: rev,
		Labels: labels.Set(m.Labels), JSON: value}, nil
}

// value is a stored object; every value has the same length for a given
// namespace and name length, so event sizes are predictable.
func value(ns, name, team string, gen int) []byte {
	return fmt.Appendf(nil, `{"metadata":{"namespace":%q,"name":%q,"labels":{"team":%q}},"data":{"gen":"%06d"}}`, ns, name, team, gen)
}

func key(gr schema.GroupResource, ns, name string) string {
	return registry.PrefixFor(gr) + ns + "/" + name
}

// env is a memory store feeding a running watch cache with ConfigMaps
// cached.
type env struct {
	t     testing.TB
	ctx   context.Context
	mem   *memory.Store
	store *watchcache.Store
	cache *watchcache.Cache
	gen   int
}

// newEnv seeds the memory store with seed (before the cache lists it),
// then starts the cache and waits until it is ready.
func newEnv(t testing.TB, limits watchcache.Limits, seed func(e *env)) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e := &env{t: t, ctx: ctx, mem: memory.New()}
	if seed != nil {
		seed(e)
	}
	e.store = watchcache.New(e.mem, watchcache.Config{Limits: limits, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	var err error
	if e.cache, err = e.store.Add(ctx, configMaps, decode); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- e.store.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Start: %v", err)
		}
		_ = e.mem.Close()
	})
	select {
	case <-e.store.Ready():
	case err := <-done:
		t.Fatalf("Start returned before ready: %v", err)
	case <-time.After(waitTimeout):
		t.Fatal("cache not ready")
	}
	return e
}

// put creates or replaces a ConfigMap in storage and returns the write's
// revision and event type.
func (e *env) put(ns, name, team string) (int64, storage.EventType) {
	e.t.Helper()
	return e.putIn(configMaps, ns, name, team)
}

func (e *env) putIn(gr schema.GroupResource, ns, name, team string) (int64, storage.EventType) {
	e.t.Helper()
	e.gen++
	k, v := key(gr, ns, name), value(ns, name, team, e.gen)
	rev, err := e.mem.Update(e.ctx, k, v, 0)
	if errors.Is(err, storage.ErrNotFound) {
		rev, err = e.mem.Create(e.ctx, k, v)
		if err != nil {
			e.t.Fatal(err)
		}
		return rev, storage.Added
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return rev, storage.Modified
}

func (e *env) del(ns, name string) int64 {
	e.t.Helper()
	_, rev, err := e.mem.Delete(e.ctx, key(configMaps, ns, name), 0)
	if err != nil {
		e.t.Fatal(err)
	}
	return rev
}

// delIfPresent deletes the ConfigMap if it exists and returns the
// delete's revision, or 0.
func (e *env) delIfPresent(ns, name string) int64 {
	e.t.Helper()
	_, rev, err := e.mem.Delete(e.ctx, key(configMaps, ns, name), 0)
	if errors.Is(err, storage.ErrNotFound) {
		return 0
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return rev
}

// sync waits until the cache has applied rev.
func (e *env) sync(rev int64) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, waitTimeout)
	defer cancel()
	if err := e.store.WaitFor(ctx, rev); err != nil {
		e.t.Fatalf("WaitFor(%d): %v (cache at %d)", rev, err, e.store.Revision())
	}
}

// ev is an event reduced to what tests compare.
type ev struct {
	Type storage.EventType
	Key  string
	Rev  int64
}

func (x ev) String() string { return fmt.Sprintf("%s %s@%d", x.Type, x.Key, x.Rev) }

func evOf(e *watchcache.Event) ev {
	return ev{Type: e.Type, Key: e.Object.Key, Rev: e.Revision}
}

func evs(list []*watchcache.Event) []ev {
	out := []ev{}
	for _, e := range list {
		out = append(out, evOf(e))
	}
	return out
}

// receive reads n live events from w, failing if they do not come.
func receive(t testing.TB, w *watchcache.Watcher, n int) []ev {
	t.Helper()
	out := []ev{}
	timeout := time.After(waitTimeout)
	for len(out) < n {
		select {
		case e, ok := <-w.C():
			if !ok {
				t.Fatalf("watcher closed after %d of %d events: %v", len(out), n, w.Err())
			}
			out = append(out, evOf(e))
		case <-timeout:
			t.Fatalf("got %d of %d events", len(out), n)
		}
	}
	return out
}

// names are the keys of objects without the resource prefix.
func names(objs []*watchcache.Object) []string {
	out := []string{}
	for _, o := range objs {
		out = append(out, o.Namespace+"/"+o.Name)
	}
	return out
}
