package nodelifecycle

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// writer is what the controller needs of the server.
type writer interface {
	Update(ctx context.Context, obj client.Object, opts ...client.WriteOption) error
	UpdateStatus(ctx context.Context, obj client.Object, opts ...client.WriteOption) error
}

type reconciler struct {
	cache client.Reader // Nodes and Leases from informers
	api   writer
	clock clock.Clock
	grace time.Duration
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	node := &corev1.Node{}
	if err := r.cache.Get(ctx, req.NamespacedName, node); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	lease := &coordinationv1.Lease{}
	if err := r.cache.Get(ctx, types.NamespacedName{Namespace: corev1.NamespaceNodeLease, Name: node.Name}, lease); err != nil {
		if !client.IsNotFound(err) {
			return reconcile.Result{}, err
		}
		lease = nil
	}
	d := Health(node, lease, r.clock.Now(), r.grace)
	node = node.DeepCopy()
	if d.Conditions != nil {
		node.Status.Conditions = d.Conditions
		if err := r.api.UpdateStatus(ctx, node); err != nil {
			// A conflict means the kubelet wrote meanwhile: look again.
			return reconcile.Result{}, err
		}
		reconcile.Logger(ctx).InfoContext(ctx, "node stopped reporting", "node", node.Name)
	}
	if !equality.Semantic.DeepEqual(node.Spec.Taints, d.Taints) && !(len(node.Spec.Taints) == 0 && len(d.Taints) == 0) {
		node.Spec.Taints = d.Taints
		if err := r.api.Update(ctx, node); err != nil {
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{RequeueAfter: d.Recheck}, nil
}
