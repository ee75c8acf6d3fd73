package cache_test

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/cache"
)

// The helpers below are the live-server tests' copies of the unit tests'
// (informer_test.go, reflector_test.go, fake_test.go,
// relist_memory_test.go): the live-server tests are an external package,
// because the test server is built on the built-in controllers, which
// import this package, and the two test packages cannot share unexported
// helpers.

// calls records what a handler is told, as text:
// "add ns/name@rv [initial]", "update ns/name@old->new",
// "delete ns/name@rv".
type calls[T cache.Object] struct {
	mu    sync.Mutex
	got   []string
	pairs [][2]T
}

func (c *calls[T]) record(s string) {
	c.mu.Lock()
	c.got = append(c.got, s)
	c.mu.Unlock()
}

func (c *calls[T]) OnAdd(o T, initial bool) {
	s := "add " + cache.Key(o) + "@" + o.GetResourceVersion()
	if initial {
		s += " initial"
	}
	c.record(s)
}

func (c *calls[T]) OnUpdate(old, new T) {
	c.mu.Lock()
	c.pairs = append(c.pairs, [2]T{old, new})
	c.mu.Unlock()
	c.record(fmt.Sprintf("update %s@%s->%s", cache.Key(new), old.GetResourceVersion(), new.GetResourceVersion()))
}

func (c *calls[T]) OnDelete(o T) { c.record("delete " + cache.Key(o) + "@" + o.GetResourceVersion()) }

// len is how many calls were recorded since the last take.
func (c *calls[T]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.got)
}

// last is the latest call recorded since the last take.
func (c *calls[T]) last() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.got) == 0 {
		return ""
	}
	return c.got[len(c.got)-1]
}

func (c *calls[T]) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.got
	c.got = nil
	return g
}

// runInformer runs inf until the test ends.
func runInformer[T cache.Object](t *testing.T, inf *cache.Informer[T]) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

// runFactory runs f until the test ends and returns a context that ends
// then too.
func runFactory(t *testing.T, f *cache.Factory) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return ctx
}

func eq[E comparable](t *testing.T, what string, got, want []E) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s\n got %v\nwant %v", what, got, want)
	}
}

func cm(ns, name, rv string, data ...string) *corev1.ConfigMap {
	c := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv},
	}
	if len(data) > 0 {
		c.Data = map[string]string{}
		for i := 0; i+1 < len(data); i += 2 {
			c.Data[data[i]] = data[i+1]
		}
	}
	return c
}

var cmResource = k8sschema.GroupResource{Resource: "configmaps"}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
