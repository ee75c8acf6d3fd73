package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/controller"
)

// informers hands out shared metadata-only informers; the manager does.
type informers interface {
	Informers(ctx context.Context, gvk schema.GroupVersionKind, metadataOnly bool) ([]controller.Informer, error)
	// ForgetInformers stops the informers of a kind no longer served.
	ForgetInformers(gvk schema.GroupVersionKind, metadataOnly bool)
}

// resourceLister lists what the server serves; the manager's API client
// does.
type resourceLister interface {
	ServerResources(ctx context.Context) ([]client.Resource, error)
}

// monitor is the graph's handler on the informers of one kind.
type monitor struct {
	gvk  schema.GroupVersionKind
	regs []*cache.Registration
	// stopped is set once the kind is no longer watched: the graph
	// needs nothing more from it.
	stopped atomic.Bool
}

func (m *monitor) stop() {
	m.stopped.Store(true)
	for _, r := range m.regs {
		r.Remove()
	}
}

// monitors keeps one monitor per deletable kind the server serves. Only
// the discovery loop touches it.
type monitors struct {
	informers informers
	resources resourceLister
	graph     *graph
	ignored   []schema.GroupResource
	log       *slog.Logger
	active    map[schema.GroupKind]*monitor
}

// deletable picks the kinds to watch: those that can be listed,
// watched and deleted, once per kind (in its preferred version, which
// discovery lists first).
func deletable(res []client.Resource, ignored []schema.GroupResource) map[schema.GroupKind]schema.GroupVersionKind {
	out := map[schema.GroupKind]schema.GroupVersionKind{}
	for _, r := range res {
		if !r.Supports("list", "watch", "delete") || slices.Contains(ignored, r.GVR.GroupResource()) {
			continue
		}
		gvk := r.GVK()
		if _, ok := out[gvk.GroupKind()]; !ok {
			out[gvk.GroupKind()] = gvk
		}
	}
	return out
}

// sync makes the monitors match what the server serves now. It returns
// the monitors it started, whose initial lists the caller may wait for,
// and every resource discovery listed (nil if discovery failed). A kind
// that cannot be watched is left out and tried on the next sync.
func (ms *monitors) sync(ctx context.Context) (started []*monitor, served map[schema.GroupResource]bool, err error) {
	res, err := ms.resources.ServerResources(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("garbagecollector: discovery: %w", err)
	}
	served = make(map[schema.GroupResource]bool, len(res))
	for _, r := range res {
		served[r.GVR.GroupResource()] = true
	}
	want := deletable(res, ms.ignored)
	for gk, m := range ms.active {
		if gvk, ok := want[gk]; !ok || gvk != m.gvk {
			m.stop()
			delete(ms.active, gk)
			if !ok {
				// Its informer could only fail and retry from now on.
				ms.informers.ForgetInformers(m.gvk, true)
				ms.log.InfoContext(ctx, "kind no longer served; stopped watching it", "kind", m.gvk.String())
				ms.graph.recheckKind(gk)
			}
		}
	}
	var errs []error
	for gk, gvk := range want {
		if _, ok := ms.active[gk]; ok {
			continue
		}
		m, err := ms.start(ctx, gvk)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ms.active[gk] = m
		started = append(started, m)
	}
	if len(started) > 0 {
		ms.log.DebugContext(ctx, "watching new kinds", "count", len(started), "watched", len(ms.active))
	}
	return started, served, errors.Join(errs...)
}

func (ms *monitors) start(ctx context.Context, gvk schema.GroupVersionKind) (*monitor, error) {
	infs, err := ms.informers.Informers(ctx, gvk, true)
	if err != nil {
		return nil, fmt.Errorf("garbagecollector: informers of %s: %w", gvk, err)
	}
	m := &monitor{gvk: gvk}
	for _, inf := range infs {
		reg, err := inf.AddHandler(graphHandler(ms.graph, gvk), cache.HandlerOptions{Name: "garbagecollector"})
		if err != nil {
			m.stop()
			return nil, fmt.Errorf("garbagecollector: watching %s: %w", gvk, err)
		}
		m.regs = append(m.regs, reg)
	}
	return m, nil
}

func (ms *monitors) stopAll() {
	for gk, m := range ms.active {
		m.stop()
		delete(ms.active, gk)
	}
}

// graphHandler feeds one kind's informer events into the graph.
func graphHandler(g *graph, gvk schema.GroupVersionKind) cache.Handler[cache.Object] {
	return cache.HandlerFuncs[cache.Object]{
		AddFunc: func(obj cache.Object, _ bool) { g.upsert(nil, observe(gvk, obj)) },
		UpdateFunc: func(old, cur cache.Object) {
			prev := observe(gvk, old)
			g.upsert(&prev, observe(gvk, cur))
		},
		DeleteFunc: func(obj cache.Object) { g.remove(observe(gvk, obj)) },
	}
}

// unsynced lists the kinds of ms whose initial lists the graph has not
// yet been given in full.
func unsynced(ms []*monitor) []string {
	var out []string
	for _, m := range ms {
		for _, r := range m.regs {
			if !r.HasSynced() {
				out = append(out, m.gvk.String())
				break
			}
		}
	}
	return out
}
