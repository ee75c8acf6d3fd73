package eventttl

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// deleter is what expiring an Event needs of the server.
type deleter interface {
	Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error
}

// reconciler expires Events.
type reconciler struct {
	events client.Reader // the informer's copy
	api    deleter
	ttl    time.Duration
	clock  clock.Clock
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	ev := &corev1.Event{}
	if err := r.events.Get(ctx, req.NamespacedName, ev); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	expiry := lastWrite(ev).Add(r.ttl)
	if now := r.clock.Now(); now.Before(expiry) {
		return reconcile.Result{RequeueAfter: expiry.Sub(now)}, nil
	}
	// Only the version judged expired: one written since is not.
	uid, rv := ev.GetUID(), ev.GetResourceVersion()
	err := r.api.Delete(ctx, ev, client.Preconditions{UID: &uid, ResourceVersion: &rv})
	switch {
	case err == nil:
		reconcile.Logger(ctx).DebugContext(ctx, "event expired", "lastWrite", lastWrite(ev))
	case client.IsNotFound(err):
	case client.IsConflict(err):
		// Written meanwhile: the informer brings the new version, whose
		// event reconciles it again with its new expiry.
	default:
		return reconcile.Result{}, fmt.Errorf("deleting an expired event: %w", err)
	}
	return reconcile.Result{}, nil
}
