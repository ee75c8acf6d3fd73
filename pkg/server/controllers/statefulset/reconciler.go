package statefulset

import (
	"context"
	"encoding/json"
	"errors"
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

// eventRecorder records events on a StatefulSet.
type eventRecorder interface {
	Event(obj client.Object, eventtype, reason, message string)
}

// reconciler runs one pass of a StatefulSet: adopt its orphaned
// revisions, claim its pods, settle its revisions, carry out what
// Decide plans, write its status and prune its history.
type reconciler struct {
	cache client.Reader // StatefulSets, ControllerRevisions, claims, from informers
	// podsIn lists the pods of a namespace, the informers' own (read
	// only): a pass copies those it claims.
	podsIn func(ctx context.Context, ns string) ([]*corev1.Pod, error)
	api    *client.Client
	events eventRecorder
	clock  clock.Clock
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	set := &appsv1.StatefulSet{}
	if err := r.cache.Get(ctx, req.NamespacedName, set); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	sel, err := metav1.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil {
		// Validation refuses such a selector; retrying cannot help.
		reconcile.Logger(ctx).WarnContext(ctx, "statefulset selector unusable", "err", err)
		return reconcile.Result{}, nil
	}
	revs, err := r.revisions(ctx, set, sel)
	if err != nil {
		return reconcile.Result{}, err
	}
	pods, err := r.pods(ctx, set, sel)
	if err != nil {
		return reconcile.Result{}, err
	}
	SortRevisions(revs)
	chosen, passErr := r.settleRevisions(ctx, set, revs)
	var st *appsv1.StatefulSetStatus
	if passErr == nil {
		st, passErr = r.pass(ctx, set, chosen, pods)
	}
	var current, update *appsv1.ControllerRevision
	if chosen != nil {
		current, update = chosen.Current, chosen.Update
	}
	if err := r.pruneHistory(ctx, set, pods, revs, current, update); err != nil {
		passErr = errors.Join(passErr, err)
	}
	if passErr != nil {
		return reconcile.Result{}, passErr
	}
	// kube looks again after minReadySeconds while pods may still
	// become available.
	if set.Spec.MinReadySeconds > 0 && st != nil && st.AvailableReplicas != replicas(set) {
		return reconcile.Result{RequeueAfter: time.Duration(set.Spec.MinReadySeconds) * time.Second}, nil
	}
	return reconcile.Result{}, nil
}

// pass plans against the two revisions, carries the plan out and
// writes the status it leaves, even when a step failed.
func (r *reconciler) pass(ctx context.Context, set *appsv1.StatefulSet, revs *Revisions, pods []*corev1.Pod) (*appsv1.StatefulSetStatus, error) {
	plan := Decide(set, *revs, pods, r.clock.Now())
	if plan.Waiting != "" {
		reconcile.Logger(ctx).DebugContext(ctx, "statefulset waiting for pod", "pod", plan.Waiting)
	}
	st := plan.Status
	ordered := set.Spec.PodManagementPolicy != appsv1.ParallelPodManagement
	stepErr := r.run(ctx, set, revs.UpdateSet, plan.Groups, ordered, &st)
	Complete(set, &st)
	if !StatusChanged(set, &st) {
		return &st, stepErr
	}
	if err := r.writeStatus(ctx, set, st); err != nil {
		return &st, errors.Join(stepErr, fmt.Errorf("writing the statefulset's status: %w", err))
	}
	return &st, stepErr
}

// writeStatus replaces set's status, retrying on conflicts with a fresh
// read as kube's status updater does.
func (r *reconciler) writeStatus(ctx context.Context, set *appsv1.StatefulSet, st appsv1.StatefulSetStatus) error {
	next := set.DeepCopy()
	var err error
	for range 5 {
		next.Status = st
		if err = r.api.UpdateStatus(ctx, next); err == nil || client.IsNotFound(err) {
			return nil
		}
		if !client.IsConflict(err) {
			return err
		}
		fresh := &appsv1.StatefulSet{}
		if gerr := r.api.Get(ctx, types.NamespacedName{Namespace: set.Namespace, Name: set.Name}, fresh); gerr != nil {
			return gerr
		}
		next = fresh
	}
	return err
}

// pods lists every pod of set's namespace and claims set's: it keeps
// the members it controls that its selector still matches, releases
// the others it controls, and adopts matching orphan members.
func (r *reconciler) pods(ctx context.Context, set *appsv1.StatefulSet, sel labels.Selector) ([]*corev1.Pod, error) {
	all, err := r.podsIn(ctx, set.Namespace)
	if err != nil {
		return nil, err
	}
	c := ownership.ClaimMatching(set, selects(set, sel), all)
	if len(c.Adopt) > 0 {
		if err := r.canAdopt(ctx, set); err != nil {
			return nil, err
		}
	}
	gone := map[types.UID]bool{}
	for _, p := range c.Adopt {
		err := r.patchOwner(ctx, p.DeepCopy(), p.UID, controllerRef(set))
		switch {
		case client.IsNotFound(err):
			gone[p.UID] = true
		case err != nil:
			return nil, err
		}
	}
	owned := c.Kept(gone, (*corev1.Pod).DeepCopy)
	for _, p := range c.Release {
		if err := r.patchOwner(ctx, p.DeepCopy(), p.UID, map[string]any{"$patch": "delete", "uid": set.UID}); err != nil && !client.IsNotFound(err) {
			return nil, err
		}
	}
	return owned, nil
}

// canAdopt re-reads set from the server: only the same set, not being
// deleted, may adopt.
func (r *reconciler) canAdopt(ctx context.Context, set *appsv1.StatefulSet) error {
	fresh := &appsv1.StatefulSet{}
	if err := r.api.Get(ctx, types.NamespacedName{Namespace: set.Namespace, Name: set.Name}, fresh); err != nil {
		return err
	}
	if fresh.UID != set.UID {
		return fmt.Errorf("original StatefulSet %s/%s is gone: got uid %s, wanted %s", set.Namespace, set.Name, fresh.UID, set.UID)
	}
	if fresh.DeletionTimestamp != nil {
		return fmt.Errorf("%s/%s has just been deleted at %v", set.Namespace, set.Name, fresh.DeletionTimestamp)
	}
	return nil
}

// patchOwner changes one entry of obj's ownerReferences with a strategic
// merge patch that also names its UID, so an object recreated under the
// same name is left alone.
func (r *reconciler) patchOwner(ctx context.Context, obj client.Object, uid types.UID, ref any) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"ownerReferences": []any{ref}, "uid": uid}})
	if err != nil {
		return err
	}
	return r.api.Patch(ctx, obj, types.StrategicMergePatchType, patch)
}
