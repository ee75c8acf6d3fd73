package deployment

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/ownership"
)

// eventRecorder records events on a Deployment.
type eventRecorder interface {
	Eventf(obj client.Object, eventtype, reason, format string, args ...any)
}

// reconciler runs one pass of a Deployment: claim its ReplicaSets, then
// pause bookkeeping, a rollback, a proportional scaling or one step of
// its rollout strategy, then its status.
type reconciler struct {
	cache client.Reader // Deployments and ReplicaSets, from informers
	// pods lists the pods of a namespace a selector matches, from the
	// informers without copying them: read only.
	pods func(ctx context.Context, ns string, sel labels.Selector) ([]*corev1.Pod, error)
	// replicaSets lists the ReplicaSets of a namespace the same way.
	replicaSets func(ctx context.Context, ns string) ([]*appsv1.ReplicaSet, error)
	api         *client.Client
	events      eventRecorder
	clock       clock.Clock
}

// pass is one reconcile of one Deployment; d is the working copy,
// refreshed by every write of it.
type pass struct {
	*reconciler
	ctx     context.Context
	d       *appsv1.Deployment
	now     time.Time
	recheck time.Duration
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cached := &appsv1.Deployment{}
	if err := r.cache.Get(ctx, req.NamespacedName, cached); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	p := &pass{reconciler: r, ctx: ctx, d: cached.DeepCopy(), now: r.clock.Now()}
	err := p.sync()
	return reconcile.Result{RequeueAfter: p.recheck}, err
}

func (p *pass) sync() error {
	d := p.d
	if d.Spec.Selector == nil || (len(d.Spec.Selector.MatchLabels) == 0 && len(d.Spec.Selector.MatchExpressions) == 0) {
		p.events.Eventf(d, corev1.EventTypeWarning, "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
		if d.Status.ObservedGeneration < d.Generation {
			d.Status.ObservedGeneration = d.Generation
			return p.writeStatus(d.Status)
		}
		return nil
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return fmt.Errorf("deployment %s/%s has invalid label selector: %w", d.Namespace, d.Name, err)
	}
	sets, err := p.claim(sel)
	if err != nil {
		return err
	}
	if d.DeletionTimestamp != nil {
		newRS, old, err := p.newAndOld(sets, false)
		if err != nil {
			return err
		}
		return p.syncStatus(append(old, newRS), newRS)
	}
	if st, changed := PausedCondition(d, p.now); changed {
		if err := p.writeStatus(st); err != nil {
			return err
		}
	}
	_, requested := rollbackTo(d)
	switch {
	case d.Spec.Paused:
		return p.scaleOnly(sets, requested)
	case requested:
		return p.rollback(sets)
	}
	newRS, old, err := p.newAndOld(sets, false)
	if err != nil {
		return err
	}
	if ScalingEvent(d, append(old, newRS)) {
		return p.scaleOnly(sets, false)
	}
	switch d.Spec.Strategy.Type {
	case appsv1.RecreateDeploymentStrategyType:
		return p.recreate(sets, sel)
	case appsv1.RollingUpdateDeploymentStrategyType:
		return p.rollingUpdate(sets)
	}
	return fmt.Errorf("unexpected deployment strategy type: %s", d.Spec.Strategy.Type)
}

// claim lists the namespace's ReplicaSets, adopts and releases as Claim
// decides and returns those the Deployment owns.
func (p *pass) claim(sel labels.Selector) ([]*appsv1.ReplicaSet, error) {
	all, err := p.replicaSets(p.ctx, p.d.Namespace)
	if err != nil {
		return nil, err
	}
	c := ownership.Claim(p.d, sel, all)
	if len(c.Adopt) > 0 {
		// Adopt only if the Deployment, read afresh, is still the same
		// object and not being deleted.
		fresh := &appsv1.Deployment{}
		if err := p.api.Get(p.ctx, types.NamespacedName{Namespace: p.d.Namespace, Name: p.d.Name}, fresh); err != nil {
			return nil, err
		}
		if fresh.UID != p.d.UID {
			return nil, fmt.Errorf("original Deployment %s/%s is gone: got uid %s, wanted %s", p.d.Namespace, p.d.Name, fresh.UID, p.d.UID)
		}
		if fresh.DeletionTimestamp != nil {
			return nil, fmt.Errorf("%s/%s has just been deleted at %v", p.d.Namespace, p.d.Name, fresh.DeletionTimestamp)
		}
	}
	dropped := map[types.UID]bool{}
	t := true
	for _, rs := range c.Adopt {
		ref := metav1.OwnerReference{APIVersion: appsv1.SchemeGroupVersion.String(), Kind: "Deployment", Name: p.d.Name, UID: p.d.UID, Controller: &t, BlockOwnerDeletion: &t}
		if err := p.patchOwner(rs, ref); err != nil {
			if !client.IsNotFound(err) {
				return nil, err
			}
			dropped[rs.UID] = true
		}
	}
	for _, rs := range c.Release {
		if err := p.patchOwner(rs, map[string]any{"$patch": "delete", "uid": p.d.UID}); err != nil && !client.IsNotFound(err) {
			return nil, err
		}
	}
	return c.Kept(dropped, (*appsv1.ReplicaSet).DeepCopy), nil
}

// patchOwner changes one entry of rs's ownerReferences with a strategic
// merge patch naming rs's UID, so a ReplicaSet recreated under the same
// name is left alone.
func (p *pass) patchOwner(rs *appsv1.ReplicaSet, ref any) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"ownerReferences": []any{ref}, "uid": rs.UID}})
	if err != nil {
		return err
	}
	return p.api.Patch(p.ctx, rs.DeepCopy(), types.StrategicMergePatchType, patch)
}
