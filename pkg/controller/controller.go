package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// Options configure a Controller. Only Name is required.
type Options struct {
	// Name names the controller in logs and metrics; it must be unique
	// among a manager's controllers.
	Name string
	// Workers is how many reconciles run at once, never two for one
	// object; 0 means 1.
	Workers int
	// ReconcileTimeout bounds each reconcile's context; 0 means none.
	ReconcileTimeout time.Duration
	// DisablePanicRecovery lets a panicking reconciler crash the
	// process. By default a panic is logged with its stack, counted and
	// retried like an error.
	DisablePanicRecovery bool
	// RateLimiter spaces retries of failed requests; nil is the
	// workqueue's default (per-item 5 ms doubling to 1000 s, and an
	// overall 10 qps, burst 100).
	RateLimiter workqueue.RateLimiter[reconcile.Request]
	// CacheSyncTimeout bounds the wait for the sources' informers to
	// sync at start; 0 means 2 minutes. The error names each informer
	// not synced and why (a missing CRD shows as its 404).
	CacheSyncTimeout time.Duration
	// ReadYourWritesTimeout bounds how long a reconcile waits for the
	// cache to see the previous reconcile's writes; 0 means 10 seconds,
	// negative turns the wait off.
	ReadYourWritesTimeout time.Duration
	// LeaderElected runs the controller on the elected leader only, which
	// is the default; set it to a pointer to false for a controller every
	// replica runs.
	LeaderElected *bool
	// Metrics receives controller_runtime_* metrics; nil means none.
	Metrics *Metrics
	// QueueMetrics receives the queue's workqueue_* metrics, named after
	// the controller; nil means none.
	QueueMetrics workqueue.MetricsProvider
	// Clock is the time source of the queue and of requeues; nil means
	// the real clock.
	Clock clock.Clock
	// Logger receives the controller's logs; nil means slog.Default().
	Logger *slog.Logger
}

// Controller reconciles the objects of one kind. Start runs it.
type Controller struct {
	name    string
	opts    Options
	cluster Cluster
	r       reconcile.Reconciler
	sources []Source
	clock   clock.Clock
	log     *slog.Logger
	metrics *controllerMetrics
	reasons reasonBook
	writes  writeBook

	mu      sync.Mutex
	ctx     context.Context                     // of the latest Start; Watches map functions get it
	queue   *workqueue.Queue[reconcile.Request] // while Start runs
	started bool
	state   error // why not Ready; nil once workers run
	// watched holds the informers of every source kind, for the read
	// your writes wait.
	watched map[schema.GroupVersionKind][]Informer
}

// New returns a controller that runs r for the objects of its For
// source, fed by sources, with informers from cluster.
func New(cluster Cluster, r reconcile.Reconciler, opts Options, sources ...Source) (*Controller, error) {
	if opts.Name == "" {
		return nil, errors.New("controller: Options.Name is required")
	}
	if r == nil {
		return nil, fmt.Errorf("controller %s: a reconciler is required", opts.Name)
	}
	primaries := 0
	for _, s := range sources {
		if s, ok := s.(informerSource); ok && s.isPrimary() {
			primaries++
		}
	}
	if primaries != 1 {
		return nil, fmt.Errorf("controller %s: want exactly one For source, have %d", opts.Name, primaries)
	}
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	if opts.CacheSyncTimeout <= 0 {
		opts.CacheSyncTimeout = 2 * time.Minute
	}
	if opts.ReadYourWritesTimeout == 0 {
		opts.ReadYourWritesTimeout = 10 * time.Second
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Controller{
		name: opts.Name, opts: opts, cluster: cluster, r: r, sources: sources,
		clock: opts.Clock, log: opts.Logger.With("controller", opts.Name),
		metrics: opts.Metrics.forController(opts.Name),
		state:   errors.New("not running"),
	}, nil
}

// Name is the controller's name.
func (c *Controller) Name() string { return c.name }

// NeedLeaderElection reports whether the controller runs on the leader
// only; a manager asks.
func (c *Controller) NeedLeaderElection() bool {
	return c.opts.LeaderElected == nil || *c.opts.LeaderElected
}

// Enqueue asks for a reconcile of req, for a cause outside the sources
// (a timer, an external system): the reconcile's reasons show it as a
// generic trigger.
func (c *Controller) Enqueue(req reconcile.Request) {
	c.enqueue(req, reconcile.Reason{Trigger: reconcile.TriggerGeneric})
}

// enqueue notes the reason and queues req. Between runs there is no
// queue; the reason waits for the next run, whose initial sync queues
// every object again.
func (c *Controller) enqueue(req reconcile.Request, reason reconcile.Reason) {
	c.reasons.add(req, reason)
	c.mu.Lock()
	q := c.queue
	c.mu.Unlock()
	if q != nil {
		q.Add(req)
	}
}

// Start registers the sources, waits for their informers to sync, then
// reconciles until ctx ends. On the way out it lets running reconciles
// finish (their context is cancelled) and returns nil; it returns an
// error only when a source cannot be set up. A controller runs one Start
// at a time and may start again after Start returned: a manager does
// so each time it regains leadership.
//
// Caches that do not sync within CacheSyncTimeout do not end Start:
// the controller logs why (a missing CRD shows as its 404), reports it
// through Ready, and keeps waiting, so it starts as soon as the cause is
// fixed instead of crashing the process while health checks pass.
func (c *Controller) Start(ctx context.Context) error {
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		return fmt.Errorf("controller %s: already running", c.name)
	}
	q := workqueue.New(workqueue.Options[reconcile.Request]{
		Name: c.name, Clock: c.opts.Clock, RateLimiter: c.opts.RateLimiter, Metrics: c.opts.QueueMetrics,
	})
	c.started, c.ctx, c.queue = true, ctx, q
	c.state = errors.New("waiting for caches to sync")
	c.watched = map[schema.GroupVersionKind][]Informer{}
	c.mu.Unlock()
	defer func() {
		q.ShutDown()
		c.mu.Lock()
		c.started, c.queue = false, nil
		c.state = errors.New("not running")
		c.mu.Unlock()
	}()

	regs, err := c.register(ctx)
	defer func() {
		for _, r := range regs {
			r.Remove()
		}
	}()
	if err != nil {
		return err
	}
	if !c.waitForSync(ctx, regs) {
		return nil
	}
	c.setState(nil)
	c.log.Info("starting workers", "workers", c.opts.Workers)
	c.metrics.setWorkers(c.opts.Workers)
	var wg sync.WaitGroup
	for range c.opts.Workers {
		wg.Go(func() { c.work(ctx, q) })
	}
	<-ctx.Done()
	q.ShutDown()
	wg.Wait()
	c.log.Info("workers stopped")
	return nil
}

// waitForSync waits until the sources' informers and handlers have
// synced; false means ctx ended first.
func (c *Controller) waitForSync(ctx context.Context, regs []*cache.Registration) bool {
	// Informers first: when one cannot sync, its error says why, which
	// its handlers' registrations cannot.
	var syncers []cache.Syncer
	c.mu.Lock()
	for _, infs := range c.watched {
		for _, inf := range infs {
			syncers = append(syncers, inf.Informer)
		}
	}
	c.mu.Unlock()
	for _, r := range regs {
		syncers = append(syncers, r)
	}
	for {
		sctx, cancel := context.WithTimeout(ctx, c.opts.CacheSyncTimeout)
		err := cache.WaitForSync(sctx, syncers...)
		cancel()
		switch {
		case err == nil:
			return true
		case ctx.Err() != nil:
			return false
		}
		err = fmt.Errorf("caches did not sync within %v: %w", c.opts.CacheSyncTimeout, err)
		c.setState(err)
		c.log.Error("caches not synced, still waiting", "err", err)
	}
}

// runContext is the context of the latest Start.
func (c *Controller) runContext() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctx
}

func (c *Controller) setState(err error) {
	c.mu.Lock()
	c.state = err
	c.mu.Unlock()
}

// Ready returns nil while the controller's workers run, and otherwise
// why not: not started, waiting for caches, or caches that did not sync
// in time and the reason. Managers serve it on /readyz.
func (c *Controller) Ready() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == nil && c.started {
		return nil
	}
	if c.state == nil {
		return fmt.Errorf("controller %s: not running", c.name)
	}
	return fmt.Errorf("controller %s: %w", c.name, c.state)
}

// register starts the sources and returns the registrations of their
// handlers on the informers.
func (c *Controller) register(ctx context.Context) ([]*cache.Registration, error) {
	r := &sourceQueue{c: c}
	for _, s := range c.sources {
		if s, ok := s.(informerSource); ok && s.isPrimary() {
			gvk, err := s.kind(c)
			if err != nil {
				return nil, err
			}
			r.primary = gvk
		}
	}
	for _, s := range c.sources {
		if err := s.Start(ctx, r); err != nil {
			return r.regs, err
		}
	}
	return r.regs, nil
}

// sourceQueue is the Queue a controller's sources feed during one Start.
type sourceQueue struct {
	c       *Controller
	primary schema.GroupVersionKind // the For kind, which Owns maps to
	regs    []*cache.Registration   // of the informer sources' handlers
}

// Add queues req, noting reason.
func (r *sourceQueue) Add(req reconcile.Request, reason reconcile.Reason) { r.c.enqueue(req, reason) }

// watch adds h to the informers of gvk.
func (r *sourceQueue) watch(ctx context.Context, gvk schema.GroupVersionKind, metadataOnly bool, h cache.Handler[cache.Object]) error {
	c := r.c
	infs, err := c.cluster.Informers(ctx, gvk, metadataOnly)
	if err != nil {
		return fmt.Errorf("controller %s: informers of %s: %w", c.name, gvk, err)
	}
	c.mu.Lock()
	c.watched[gvk] = append(c.watched[gvk], infs...)
	c.mu.Unlock()
	for _, inf := range infs {
		reg, err := inf.AddHandler(h, cache.HandlerOptions{Name: c.name})
		if err != nil {
			return fmt.Errorf("controller %s: %w", c.name, err)
		}
		r.regs = append(r.regs, reg)
	}
	return nil
}
