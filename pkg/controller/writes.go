package controller

import (
	"context"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// Read your writes. A reconciler reads from the cache and writes to the
// server; its next reconcile of the same object can run before the
// cache has seen those writes (the write's own event triggers it, but
// so may any other event), and would then act on state it has already
// replaced: a create that fails with AlreadyExists, an update that fails
// with Conflict, a duplicate side effect. So each reconcile's context
// records the writes made through it (client.WithWriteObserver), and the
// next reconcile of that request first waits, up to
// ReadYourWritesTimeout, until the informers of the written kinds have
// reached each write's resourceVersion: the controller's sources', and
// any others the cluster already runs (those behind a manager's cached
// client). No informer is started for the wait, and deletes are not
// waited for.

// existingInformers is a Cluster that can tell which informers it runs
// for a kind without starting one; a manager can.
type existingInformers interface {
	ExistingInformers(gvk schema.GroupVersionKind) []Informer
}

// writeLog collects one reconcile's writes; a reconciler may write from
// several goroutines.
type writeLog struct {
	mu     sync.Mutex
	writes []client.Write
}

func (l *writeLog) ObserveWrite(w client.Write) {
	if w.ResourceVersion == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes = append(l.writes, w)
}

func (l *writeLog) list() []client.Write {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.writes
}

// writeBook holds, per request, the writes of its last reconcile.
type writeBook struct {
	mu sync.Mutex
	m  map[reconcile.Request][]client.Write
}

func (b *writeBook) set(req reconcile.Request, ws []client.Write) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(ws) == 0 {
		delete(b.m, req)
		return
	}
	if b.m == nil {
		b.m = map[reconcile.Request][]client.Write{}
	}
	b.m[req] = ws
}

func (b *writeBook) take(req reconcile.Request) []client.Write {
	b.mu.Lock()
	defer b.mu.Unlock()
	ws := b.m[req]
	delete(b.m, req)
	return ws
}

// waitForWrites waits until the cache holds the writes of req's previous
// reconcile, or the timeout passes.
func (c *Controller) waitForWrites(ctx context.Context, req reconcile.Request) {
	ws := c.writes.take(req)
	if len(ws) == 0 || c.opts.ReadYourWritesTimeout < 0 {
		return
	}
	wctx, cancel := context.WithTimeout(ctx, c.opts.ReadYourWritesTimeout)
	defer cancel()
	for _, w := range newestWrites(ws) {
		c.mu.Lock()
		infs := c.watched[w.GVK]
		c.mu.Unlock()
		if ex, ok := c.cluster.(existingInformers); ok {
			// Informers the cluster started for other readers (the
			// manager's cached client): the reconciler reads those too.
			infs = append(infs[:len(infs):len(infs)], ex.ExistingInformers(w.GVK)...)
		}
		for _, inf := range infs {
			if !inf.covers(w.Namespace) {
				continue
			}
			if err := inf.WaitForResourceVersion(wctx, w.ResourceVersion); err != nil {
				if ctx.Err() == nil {
					c.metrics.staleWaitTimedOut()
					c.log.InfoContext(ctx, "cache did not catch up with the last reconcile's writes in time",
						"namespace", req.Namespace, "name", req.Name, "kind", w.GVK.Kind, "resourceVersion", w.ResourceVersion)
				}
				return
			}
		}
	}
}

// newestWrites keeps the highest resourceVersion per kind and namespace:
// one wait covers every earlier write there.
func newestWrites(ws []client.Write) []client.Write {
	type scope struct {
		kind string
		ns   string
	}
	best := map[scope]client.Write{}
	order := []scope{}
	for _, w := range ws {
		k := scope{w.GVK.String(), w.Namespace}
		cur, ok := best[k]
		if !ok {
			order = append(order, k)
		}
		if !ok || newer(w.ResourceVersion, cur.ResourceVersion) {
			best[k] = w
		}
	}
	out := make([]client.Write, 0, len(order))
	for _, k := range order {
		out = append(out, best[k])
	}
	return out
}

func newer(a, b string) bool {
	x, err1 := strconv.ParseUint(a, 10, 64)
	y, err2 := strconv.ParseUint(b, 10, 64)
	return err1 == nil && err2 == nil && x > y
}
