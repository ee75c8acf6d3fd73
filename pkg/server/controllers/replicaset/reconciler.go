package replicaset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/expectations"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/ownership"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/slowstart"
)

// eventRecorder records events on a ReplicaSet.
type eventRecorder interface {
	Eventf(obj client.Object, eventtype, reason, format string, args ...any)
}

// reconciler runs one pass of a ReplicaSet: claim its pods, create or
// delete the difference when its expectations are met, write its status.
type reconciler struct {
	cache client.Reader // ReplicaSets, from informers
	// pods and sets list a namespace's Pods and ReplicaSets from the
	// informers without copying them: read only.
	pods   func(ctx context.Context, ns string) ([]*corev1.Pod, error)
	sets   func(ctx context.Context, ns string) ([]*appsv1.ReplicaSet, error)
	api    *client.Client
	events eventRecorder
	clock  clock.Clock
	exp    *expectations.Expectations
	// deletionAges is kube's replicaset_controller_sorting_deletion_age_ratio.
	deletionAges prometheus.Observer
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	rs := &appsv1.ReplicaSet{}
	if err := r.cache.Get(ctx, req.NamespacedName, rs); err != nil {
		if client.IsNotFound(err) {
			r.exp.Forget(req.NamespacedName)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	now := r.clock.Now()
	sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		// Validation refuses such a selector; nothing to do but wait
		// for a fixed one.
		reconcile.Logger(ctx).WarnContext(ctx, "replicaset selector unusable", "err", err)
		return reconcile.Result{}, nil
	}
	// Every pod of the namespace, the cache's own (read only): an owned
	// pod that stopped matching is released, so a selector cannot
	// narrow the list.
	pods, err := r.pods(ctx, rs.Namespace)
	if err != nil {
		return reconcile.Result{}, err
	}
	var active []*corev1.Pod
	for _, p := range pods {
		if Active(p) {
			active = append(active, p)
		}
	}
	satisfied := r.exp.Satisfied(req.NamespacedName, pods, now)
	claims := ownership.Claim(rs, sel, active)
	owned, err := r.settleClaims(ctx, rs, claims)
	if err != nil {
		return reconcile.Result{}, err
	}
	var manageErr error
	if satisfied {
		related, err := r.related(ctx, rs, active, owned)
		if err != nil {
			return reconcile.Result{}, err
		}
		change := Plan(rs, owned, related, now)
		for _, ratio := range DeletionAgeRatios(owned, change.Delete, now) {
			r.deletionAges.Observe(ratio)
		}
		manageErr = r.apply(ctx, rs, change, now)
	}
	st, recheck := Status(rs, owned, manageErr, now)
	if !equality.Semantic.DeepEqual(st, rs.Status) {
		next := rs.DeepCopy()
		next.Status = st
		if err := r.api.UpdateStatus(ctx, next); err != nil && !client.IsNotFound(err) {
			return reconcile.Result{}, errors.Join(manageErr, fmt.Errorf("writing the replicaset's status: %w", err))
		}
	}
	if manageErr != nil {
		return reconcile.Result{}, manageErr
	}
	return reconcile.Result{RequeueAfter: recheck}, nil
}

// settleClaims adopts and releases what Claim decided and returns the
// pods rs owns once that is done. It adopts only if the ReplicaSet, read
// afresh, is still the same object and not being deleted.
func (r *reconciler) settleClaims(ctx context.Context, rs *appsv1.ReplicaSet, c ownership.Claims[*corev1.Pod]) ([]*corev1.Pod, error) {
	if len(c.Adopt) > 0 {
		fresh := &appsv1.ReplicaSet{}
		if err := r.api.Get(ctx, types.NamespacedName{Namespace: rs.Namespace, Name: rs.Name}, fresh); err != nil {
			return nil, err
		}
		if fresh.UID != rs.UID {
			return nil, fmt.Errorf("original %s/%s is gone: got uid %s, wanted %s", rs.Namespace, rs.Name, fresh.UID, rs.UID)
		}
		if fresh.DeletionTimestamp != nil {
			return nil, fmt.Errorf("%s/%s has just been deleted at %v", rs.Namespace, rs.Name, fresh.DeletionTimestamp)
		}
	}
	dropped := map[types.UID]bool{}
	for _, p := range c.Adopt {
		ref := controllerRef(rs)
		if err := r.patchOwner(ctx, p, ref); err != nil {
			if !client.IsNotFound(err) {
				return nil, err
			}
			dropped[p.UID] = true
		}
	}
	for _, p := range c.Release {
		if err := r.patchOwner(ctx, p, map[string]any{"$patch": "delete", "uid": rs.UID}); err != nil && !client.IsNotFound(err) {
			return nil, err
		}
	}
	owned := make([]*corev1.Pod, 0, len(c.Owned))
	for _, p := range c.Owned {
		if !dropped[p.UID] {
			owned = append(owned, p)
		}
	}
	return owned, nil
}

// patchOwner changes one entry of pod's ownerReferences with a strategic
// merge patch that also names the pod's UID, so a pod recreated under the
// same name is left alone.
func (r *reconciler) patchOwner(ctx context.Context, pod *corev1.Pod, ref any) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"ownerReferences": []any{ref}, "uid": pod.UID}})
	if err != nil {
		return err
	}
	return r.api.Patch(ctx, pod.DeepCopy(), types.StrategicMergePatchType, patch)
}

// related are the active pods that count toward the spread of rs's pods
// over nodes: those of every ReplicaSet sharing rs's controller (its
// Deployment), or rs's own.
func (r *reconciler) related(ctx context.Context, rs *appsv1.ReplicaSet, active, owned []*corev1.Pod) ([]*corev1.Pod, error) {
	owner := metav1.GetControllerOfNoCopy(rs)
	if owner == nil {
		return owned, nil
	}
	sets, err := r.sets(ctx, rs.Namespace)
	if err != nil {
		return nil, err
	}
	siblings := map[types.UID]bool{}
	for _, s := range sets {
		if ref := metav1.GetControllerOfNoCopy(s); ref != nil && ref.UID == owner.UID {
			siblings[s.UID] = true
		}
	}
	var out []*corev1.Pod
	for _, p := range active {
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil && siblings[ref.UID] {
			out = append(out, p)
		}
	}
	return out, nil
}

// apply carries out a change: creates in slow-start batches, deletes all
// at once. It returns the first error.
func (r *reconciler) apply(ctx context.Context, rs *appsv1.ReplicaSet, c Change, now time.Time) error {
	key := types.NamespacedName{Namespace: rs.Namespace, Name: rs.Name}
	if c.Create > 0 {
		_, err := slowstart.Run(make([]struct{}, c.Create), func(struct{}) error { return r.create(ctx, rs, key, now) })
		return err
	}
	var wg sync.WaitGroup
	errs := make([]error, len(c.Delete))
	for i, p := range c.Delete {
		r.exp.Deleting(key, p, now)
		wg.Go(func() { errs[i] = r.delete(ctx, rs, key, p) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *reconciler) create(ctx context.Context, rs *appsv1.ReplicaSet, key types.NamespacedName, now time.Time) error {
	pod, err := podFromTemplate(rs)
	if err == nil {
		err = r.api.Create(ctx, pod)
	}
	if err != nil {
		if client.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			// Every create fails until the namespace is gone.
			return nil
		}
		r.events.Eventf(rs, corev1.EventTypeWarning, "FailedCreate", "Error creating: %v", err)
		return err
	}
	r.exp.Created(key, pod.Name, now)
	r.events.Eventf(rs, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: %v", pod.Name)
	return nil
}

func (r *reconciler) delete(ctx context.Context, rs *appsv1.ReplicaSet, key types.NamespacedName, pod *corev1.Pod) error {
	err := r.api.Delete(ctx, pod.DeepCopy())
	switch {
	case err == nil:
		r.events.Eventf(rs, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted pod: %v", pod.Name)
		return nil
	case client.IsNotFound(err):
		return nil
	}
	r.exp.Undo(key, pod.UID)
	r.events.Eventf(rs, corev1.EventTypeWarning, "FailedDelete", "Error deleting: %v", err)
	return err
}
