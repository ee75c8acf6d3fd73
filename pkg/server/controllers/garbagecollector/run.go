package garbagecollector

import (
	"context"
	"errors"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// crdGVK is the kind whose changes change what the server serves.
var crdGVK = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

// runnable is the garbage collector as the manager runs it: on the
// leader only, a fresh graph each leadership term.
type runnable struct {
	opts      Options
	informers informers
	resources resourceLister
	api       objects
	scopes    scopes
}

// NeedLeaderElection: two collectors would race each other's deletes.
func (r *runnable) NeedLeaderElection() bool { return true }

// term is the state of one Start.
type term struct {
	opts     Options
	c        *collector
	toDelete *workqueue.Queue[types.UID]
	toOrphan *workqueue.Queue[types.UID]
	// gate holds back the decisions that need kinds just watched in the
	// graph: made before their objects are known, they could release a
	// foreground-deleting owner too early.
	gate *syncGate
}

// Start runs the collector until ctx ends.
func (r *runnable) Start(ctx context.Context) error {
	log := r.opts.Logger
	t := &term{
		opts:     r.opts,
		toDelete: workqueue.New(workqueue.Options[types.UID]{Name: "garbage_collector_attempt_to_delete"}),
		toOrphan: workqueue.New(workqueue.Options[types.UID]{Name: "garbage_collector_attempt_to_orphan"}),
		gate:     &syncGate{timeout: r.opts.SyncTimeout, log: log},
	}
	absent := newAbsentOwners(absentOwnersSize)
	g := newGraph(absent, t.toDelete, t.toOrphan)
	t.c = &collector{graph: g, api: r.api, scopes: r.scopes, absent: absent, toDelete: t.toDelete, gate: t.gate, log: log}
	ms := &monitors{
		informers: r.informers, resources: r.resources, graph: g,
		ignored: r.opts.Ignored, log: log, active: map[schema.GroupKind]*monitor{},
	}
	defer ms.stopAll()

	rediscover := make(chan struct{}, 1)
	awaited := &awaitedCRDs{}
	if stop, err := r.watchCRDs(ctx, rediscover, awaited); err != nil {
		log.WarnContext(ctx, "cannot watch CustomResourceDefinitions; new kinds are found by periodic discovery only", "err", err)
	} else {
		defer stop()
	}

	t.resync(ctx, ms)
	var wg sync.WaitGroup
	for range r.opts.Workers {
		wg.Go(func() { t.work(ctx, t.toDelete, t.c.attemptToDelete, true) })
		wg.Go(func() { t.work(ctx, t.toOrphan, t.c.attemptToOrphan, false) })
	}
	log.InfoContext(ctx, "garbage collector started", "kinds", len(ms.active))

	tick := time.NewTicker(r.opts.ResyncDiscovery)
	defer tick.Stop()
	// retry rediscovers while a CRD's change is not in discovery yet.
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	var delay, waited time.Duration
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
			continue
		case <-tick.C:
		case <-rediscover:
			delay, waited = 0, 0
		case <-retry.C:
		}
		served := t.resync(ctx, ms)
		if awaited.reflected(served) {
			retry.Stop()
			delay, waited = 0, 0
			continue
		}
		var ok bool
		if delay, ok = nextRetry(delay, waited, r.opts.ResyncDiscovery); !ok {
			awaited.forget()
			delay, waited = 0, 0
			continue
		}
		waited += delay
		retry.Reset(delay)
	}
	t.toDelete.ShutDown()
	t.toOrphan.ShutDown()
	wg.Wait()
	return nil
}

// resync re-runs discovery; the kinds it starts watching hold back the
// decisions that need them until their informers have listed them. It
// returns the resources discovery listed, nil if it failed.
func (t *term) resync(ctx context.Context, ms *monitors) map[schema.GroupResource]bool {
	started, served, err := ms.sync(ctx)
	if ctx.Err() != nil {
		return served
	}
	if err != nil {
		t.opts.Logger.WarnContext(ctx, "discovery failed; kinds missing from it are retried", "err", err)
	}
	if len(started) > 0 {
		t.gate.add(started)
	}
	return served
}

// work takes items off q until it shuts down. Items left when ctx ends
// are dropped: the next term rebuilds everything from the informers.
func (t *term) work(ctx context.Context, q *workqueue.Queue[types.UID], process func(context.Context, types.UID) error, recheckVirtual bool) {
	for {
		uid, shutdown := q.Get()
		if shutdown {
			return
		}
		if ctx.Err() == nil {
			t.settle(ctx, q, uid, process(ctx, uid), recheckVirtual)
		}
		q.Done(uid)
	}
}

// settle decides whether uid comes back: after a failure, with backoff;
// a virtual node the API says exists, until an informer sees it.
func (t *term) settle(ctx context.Context, q *workqueue.Queue[types.UID], uid types.UID, err error, recheckVirtual bool) {
	switch {
	case ctx.Err() != nil:
	case err == nil:
		if recheckVirtual && t.c.graph.isVirtual(uid) {
			q.AddRateLimited(uid)
			return
		}
		q.Forget(uid)
	case errors.Is(err, errAbsent):
		q.Forget(uid)
	case errors.Is(err, errGraphIncomplete):
		q.AddAfter(uid, graphRetry)
	case errors.Is(err, ErrNamespacedOwnerOfClusterScoped):
		t.opts.Logger.DebugContext(ctx, "object left alone", "uid", uid, "err", err)
		q.Forget(uid)
	default:
		t.opts.Logger.WarnContext(ctx, "garbage collection of an object failed; retrying", "uid", uid, "err", err, "retries", q.NumRequeues(uid))
		q.AddRateLimited(uid)
	}
}

// watchCRDs signals rediscover when a CustomResourceDefinition changes:
// a kind may have started or stopped being served. awaited learns which.
func (r *runnable) watchCRDs(ctx context.Context, rediscover chan<- struct{}, awaited *awaitedCRDs) (stop func(), err error) {
	infs, err := r.informers.Informers(ctx, crdGVK, true)
	if err != nil {
		return nil, err
	}
	signal := func() {
		select {
		case rediscover <- struct{}{}:
		default:
		}
	}
	h := cache.HandlerFuncs[cache.Object]{
		// Initial adds count too: the informer lists after the first
		// discovery may have run, and a CRD made in between would
		// otherwise wait for the periodic resync.
		AddFunc: func(crd cache.Object, _ bool) {
			if crd.GetDeletionTimestamp() == nil {
				awaited.expect(crd.GetName(), true)
			}
			signal()
		},
		UpdateFunc: func(old, cur cache.Object) {
			if old != cur {
				if cur.GetDeletionTimestamp() == nil {
					awaited.expect(cur.GetName(), true)
				}
				signal()
			}
		},
		DeleteFunc: func(crd cache.Object) {
			awaited.expect(crd.GetName(), false)
			signal()
		},
	}
	var regs []*cache.Registration
	stop = func() {
		for _, reg := range regs {
			reg.Remove()
		}
	}
	for _, inf := range infs {
		reg, err := inf.AddHandler(h, cache.HandlerOptions{Name: "garbagecollector-discovery"})
		if err != nil {
			stop()
			return nil, err
		}
		regs = append(regs, reg)
	}
	return stop, nil
}
