package daemonset

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/expectations"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/ownership"
)

// eventRecorder records events on a DaemonSet.
type eventRecorder interface {
	Eventf(obj client.Object, eventtype, reason, format string, args ...any)
}

// reconciler runs one pass of a DaemonSet: record its template as a
// revision, claim its pods, create and delete per node and for the
// rolling update when its expectations are met, prune its history,
// write its status.
type reconciler struct {
	cache client.Reader // DaemonSets, Nodes, ControllerRevisions, from informers
	// pods lists the pods of a namespace, the informers' own (read
	// only): a pass copies those it claims.
	pods    func(ctx context.Context, ns string) ([]*corev1.Pod, error)
	api     *client.Client
	events  eventRecorder
	clock   clock.Clock
	exp     *expectations.Expectations
	backoff *failedBackoff
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	ds := &appsv1.DaemonSet{}
	if err := r.cache.Get(ctx, req.NamespacedName, ds); err != nil {
		if client.IsNotFound(err) {
			r.exp.Forget(req.NamespacedName)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if reflect.DeepEqual(ds.Spec.Selector, &metav1.LabelSelector{}) {
		r.events.Eventf(ds, corev1.EventTypeWarning, "SelectingAll", "This daemon set is selecting all pods. A non-empty selector is required.")
		return reconcile.Result{}, nil
	}
	// The revisions of a DaemonSet being deleted may be gone already, so
	// its status cannot be told; kube leaves it as it is.
	if ds.DeletionTimestamp != nil {
		return reconcile.Result{}, nil
	}
	sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil {
		reconcile.Logger(ctx).WarnContext(ctx, "daemonset selector unusable", "err", err)
		return reconcile.Result{}, nil
	}
	nodeList := &corev1.NodeList{}
	if err := r.cache.List(ctx, nodeList); err != nil {
		return reconcile.Result{}, err
	}
	nodes := make([]*corev1.Node, len(nodeList.Items))
	for i := range nodeList.Items {
		nodes[i] = &nodeList.Items[i]
	}
	cur, old, err := r.history(ctx, ds, sel)
	if err != nil {
		return reconcile.Result{}, fmt.Errorf("failed to construct revisions of DaemonSet: %w", err)
	}
	hash := cur.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]

	all, err := r.pods(ctx, ds.Namespace)
	if err != nil {
		return reconcile.Result{}, err
	}
	now := r.clock.Now()
	satisfied := r.exp.Satisfied(req.NamespacedName, all, now)
	owned, err := r.claimPods(ctx, ds, ownership.Claim(ds, sel, all))
	if err != nil {
		return reconcile.Result{}, err
	}
	pods := GroupByNode(owned)
	if !satisfied {
		// Only the counts: this pass did not act on this generation.
		st, recheck := Status(ds, nodes, pods, hash, false, now)
		return reconcile.Result{RequeueAfter: recheck}, r.writeStatus(ctx, ds, st)
	}

	retry, syncErr := r.sync(ctx, ds, nodes, pods, owned, old, hash, now)
	st, recheck := Status(ds, nodes, pods, hash, true, now)
	if err := r.writeStatus(ctx, ds, st); err != nil {
		return reconcile.Result{}, errors.Join(syncErr, err)
	}
	if syncErr != nil {
		return reconcile.Result{}, syncErr
	}
	if retry == 0 || recheck > 0 && recheck < retry {
		retry = recheck
	}
	return reconcile.Result{RequeueAfter: retry}, nil
}

// sync makes the pass's changes: the manage loop's, then, when that had
// nothing to do, the rolling update's; then it prunes old revisions.
// retry is when a failed pod held back by its back-off may go.
func (r *reconciler) sync(ctx context.Context, ds *appsv1.DaemonSet, nodes []*corev1.Node, pods PodsByNode, owned []*corev1.Pod,
	old []*appsv1.ControllerRevision, hash string, now time.Time) (retry time.Duration, err error) {
	c, failed, succeeded := Plan(ds, nodes, pods, hash, now)
	for _, p := range succeeded {
		r.events.Eventf(ds, corev1.EventTypeNormal, "SucceededDaemonPod", "Found succeeded daemon pod %s/%s on node %s, will try to delete it", p.Namespace, p.Name, p.Spec.NodeName)
	}
	for _, p := range failed {
		node, _ := TargetNode(p)
		key := failedBackoffKey(ds, node)
		if wait := r.backoff.wait(key, now); wait > 0 {
			if retry == 0 || wait < retry {
				retry = wait
			}
			continue
		}
		r.backoff.next(key, now)
		r.events.Eventf(ds, corev1.EventTypeWarning, "FailedDaemonPod", "Found failed daemon pod %s/%s on node %s, will try to kill it", p.Namespace, p.Name, node)
		c.Delete = append(c.Delete, p)
	}
	if len(c.Create) > 0 || len(c.Delete) > 0 {
		return retry, r.apply(ctx, ds, c, hash, now)
	}
	if ds.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		b, err := RollBudget(ds, nodes)
		if err != nil {
			return retry, fmt.Errorf("couldn't get unavailable numbers: %w", err)
		}
		c, err := Roll(ds, nodes, pods, hash, b, now)
		if err != nil {
			return retry, err
		}
		if err := r.apply(ctx, ds, c, hash, now); err != nil {
			return retry, err
		}
	}
	if err := r.pruneHistory(ctx, ds, old, owned); err != nil {
		return retry, fmt.Errorf("failed to clean up revisions of DaemonSet: %w", err)
	}
	return retry, nil
}

func (r *reconciler) writeStatus(ctx context.Context, ds *appsv1.DaemonSet, st appsv1.DaemonSetStatus) error {
	if equality.Semantic.DeepEqual(st, ds.Status) {
		return nil
	}
	next := ds.DeepCopy()
	next.Status = st
	if err := r.api.UpdateStatus(ctx, next); err != nil && !client.IsNotFound(err) {
		return fmt.Errorf("error storing status for daemon set %s/%s: %w", ds.Namespace, ds.Name, err)
	}
	return nil
}

// claimPods adopts and releases what Claim decided and returns the pods
// ds owns once that is done. It adopts only if the DaemonSet, read
// afresh, is still the same object and not being deleted.
func (r *reconciler) claimPods(ctx context.Context, ds *appsv1.DaemonSet, c ownership.Claims[*corev1.Pod]) ([]*corev1.Pod, error) {
	if len(c.Adopt) > 0 {
		if err := r.canAdopt(ctx, ds); err != nil {
			return nil, err
		}
	}
	dropped := map[types.UID]bool{}
	for _, p := range c.Adopt {
		if err := r.patchOwner(ctx, p.DeepCopy(), p.UID, controllerRef(ds)); err != nil {
			if !client.IsNotFound(err) {
				return nil, err
			}
			dropped[p.UID] = true
		}
	}
	for _, p := range c.Release {
		if err := r.patchOwner(ctx, p.DeepCopy(), p.UID, release(ds)); err != nil && !client.IsNotFound(err) {
			return nil, err
		}
	}
	return c.Kept(dropped, (*corev1.Pod).DeepCopy), nil
}

// canAdopt reads ds afresh: an orphan may be adopted only by the same
// object, not being deleted.
func (r *reconciler) canAdopt(ctx context.Context, ds *appsv1.DaemonSet) error {
	fresh := &appsv1.DaemonSet{}
	if err := r.api.Get(ctx, types.NamespacedName{Namespace: ds.Namespace, Name: ds.Name}, fresh); err != nil {
		return err
	}
	if fresh.UID != ds.UID {
		return fmt.Errorf("original DaemonSet %s/%s is gone: got uid %s, wanted %s", ds.Namespace, ds.Name, fresh.UID, ds.UID)
	}
	if fresh.DeletionTimestamp != nil {
		return fmt.Errorf("%s/%s has just been deleted at %v", ds.Namespace, ds.Name, fresh.DeletionTimestamp)
	}
	return nil
}

// release is the patch entry that drops ds's reference.
func release(ds *appsv1.DaemonSet) map[string]any {
	return map[string]any{"$patch": "delete", "uid": ds.UID}
}

// liveHashes are the revision hashes ds's pods carry, finished ones
// included: their revisions are kept.
func liveHashes(owned []*corev1.Pod) map[string]bool {
	out := map[string]bool{}
	for _, p := range owned {
		if h := p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; h != "" {
			out[h] = true
		}
	}
	return out
}
