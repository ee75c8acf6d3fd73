package cache

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// fakeLW is a scripted ListerWatcher. Each List and Watch call is
// recorded, then answered by the list and watch functions; by default a
// watch is a fresh RaceFreeFakeWatcher the test drives through
// lastWatch.
type fakeLW struct {
	mu      sync.Mutex
	calls   []call
	list    func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	watch   func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	watches []*watch.RaceFreeFakeWatcher
}

type call struct {
	verb string
	opts metav1.ListOptions
}

func (f *fakeLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	f.mu.Lock()
	f.calls = append(f.calls, call{"list", opts})
	fn := f.list
	f.mu.Unlock()
	if fn == nil {
		return &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}, nil
	}
	return fn(ctx, opts)
}

func (f *fakeLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	f.mu.Lock()
	f.calls = append(f.calls, call{"watch", opts})
	fn := f.watch
	f.mu.Unlock()
	if fn != nil {
		return fn(ctx, opts)
	}
	return f.newWatch(), nil
}

// newWatch returns a fake watcher the test can reach with lastWatch.
func (f *fakeLW) newWatch() *watch.RaceFreeFakeWatcher {
	w := watch.NewRaceFreeFake()
	f.mu.Lock()
	f.watches = append(f.watches, w)
	f.mu.Unlock()
	return w
}

func (f *fakeLW) setList(fn func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)) {
	f.mu.Lock()
	f.list = fn
	f.mu.Unlock()
}

func (f *fakeLW) setWatch(fn func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)) {
	f.mu.Lock()
	f.watch = fn
	f.mu.Unlock()
}

func (f *fakeLW) lastWatch() *watch.RaceFreeFakeWatcher {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.watches) == 0 {
		return nil
	}
	return f.watches[len(f.watches)-1]
}

func (f *fakeLW) takeCalls() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.calls
	f.calls = nil
	return c
}

// verbs summarises calls as "list", "watch" or "watchlist".
func verbs(calls []call) []string {
	var out []string
	for _, c := range calls {
		v := c.verb
		if c.opts.SendInitialEvents != nil && *c.opts.SendInitialEvents {
			v = "watchlist"
		}
		out = append(out, v)
	}
	return out
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

func cmList(rv, cont string, items ...*corev1.ConfigMap) *corev1.ConfigMapList {
	l := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: rv, Continue: cont}}
	for _, c := range items {
		l.Items = append(l.Items, *c)
	}
	return l
}

func bookmark(rv string, end bool) *corev1.ConfigMap {
	b := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv}}
	if end {
		b.Annotations = map[string]string{initialEventsEnd: "true"}
	}
	return b
}

var cmResource = k8sschema.GroupResource{Resource: "configmaps"}

func errExpired() error     { return apierrors.NewResourceExpired("too old resource version") }
func errRefused() error     { return apierrors.NewBadRequest("sendInitialEvents is not supported") }
func errConnRefused() error { return errors.New("dial tcp 127.0.0.1:1: connect: connection refused") }

func expiredStatus() *metav1.Status {
	s := apierrors.NewResourceExpired("too old resource version: 1 (5)").Status()
	return &s
}

// recorder is a reflector sink that keeps deltas as text.
type recorder struct {
	mu     sync.Mutex
	deltas []string
}

func (r *recorder) add(d Delta[*corev1.ConfigMap]) {
	s := d.Op.String()
	if d.Object != nil {
		s += " " + Key(d.Object) + "@" + d.Object.ResourceVersion
	}
	r.mu.Lock()
	r.deltas = append(r.deltas, s)
	r.mu.Unlock()
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := r.deltas
	r.deltas = nil
	return d
}

// logBuffer collects log output safely across goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func groupResource(resource string) k8sschema.GroupResource {
	return k8sschema.GroupResource{Resource: resource}
}

func slicesSort(s []string) { sort.Strings(s) }
