package controller

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// work reconciles requests until the queue shuts down.
func (c *Controller) work(ctx context.Context, q *workqueue.Queue[reconcile.Request]) {
	for {
		req, shutdown := q.Get()
		if shutdown {
			return
		}
		c.process(ctx, q, req)
		q.Done(req)
	}
}

// process runs one reconcile and decides what happens to req next.
func (c *Controller) process(ctx context.Context, q *workqueue.Queue[reconcile.Request], req reconcile.Request) {
	if ctx.Err() != nil {
		return
	}
	now := c.clock.Now()
	reasons := c.reasons.take(req, now)
	c.metrics.countReasons(reasons)
	c.waitForWrites(ctx, req)

	log := c.log.With("namespace", req.Namespace, "name", req.Name)
	rctx := reconcile.WithLogger(reconcile.WithReasons(ctx, reasons), log)
	var writes writeLog
	rctx = client.WithWriteObserver(rctx, &writes)
	if c.opts.ReconcileTimeout > 0 {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(rctx, c.opts.ReconcileTimeout)
		defer cancel()
	}
	log.DebugContext(ctx, "reconciling", "reasons", reasons)
	c.metrics.active(1)
	res, err := c.call(rctx, req, log)
	c.metrics.active(-1)
	elapsed := c.clock.Now().Sub(now)
	c.writes.set(req, writes.list())

	switch {
	case ctx.Err() != nil:
		// Stopping: the reconcile was cut short on purpose, and the next
		// leader or start will reconcile everything anyway.
		return
	case err != nil && reconcile.IsTerminal(err):
		q.Forget(req)
		c.metrics.done(resultError, elapsed, true)
		log.ErrorContext(ctx, "reconcile failed, not retrying", "err", err, "reasons", reasons)
	case err != nil:
		c.reasons.add(req, reconcile.Reason{Trigger: reconcile.TriggerRetry})
		q.AddRateLimited(req)
		c.metrics.done(resultError, elapsed, false)
		if client.IsConflict(err) {
			// Someone wrote the object between our read and our write:
			// routine with optimistic concurrency, and the retry reads
			// the new state.
			log.InfoContext(ctx, "reconcile conflicted with another write, retrying", "err", err, "reasons", reasons)
		} else {
			log.ErrorContext(ctx, "reconcile failed", "err", err, "reasons", reasons)
		}
	case res.RequeueAfter > 0:
		q.Forget(req)
		c.reasons.schedule(req, now.Add(elapsed+res.RequeueAfter))
		q.AddAfter(req, res.RequeueAfter)
		c.metrics.done(resultRequeueAfter, elapsed, false)
	default:
		q.Forget(req)
		c.metrics.done(resultSuccess, elapsed, false)
	}
}

// call runs the reconciler, turning a panic into an error unless
// recovery is off.
func (c *Controller) call(ctx context.Context, req reconcile.Request, log interface {
	ErrorContext(context.Context, string, ...any)
}) (res reconcile.Result, err error) {
	if !c.opts.DisablePanicRecovery {
		defer func() {
			if p := recover(); p != nil {
				c.metrics.panicked()
				log.ErrorContext(ctx, "reconcile panicked", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				err = fmt.Errorf("reconcile panicked: %v", p)
			}
		}()
	}
	return c.r.Reconcile(ctx, req)
}
