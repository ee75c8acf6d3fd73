package statefulset

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// maxCollisions bounds the names a pass tries for a new revision; kube
// tries for ever, but a name taken this often means something else
// writes revisions under the set's name.
const maxCollisions = 100

// revisions are the ControllerRevisions set's selector matches that it
// controls or that nobody controls; it adopts the orphans first.
func (r *reconciler) revisions(ctx context.Context, set *appsv1.StatefulSet, sel labels.Selector) ([]*appsv1.ControllerRevision, error) {
	list := &appsv1.ControllerRevisionList{}
	if err := r.cache.List(ctx, list, client.InNamespace(set.Namespace)); err != nil {
		return nil, err
	}
	var out, orphans []*appsv1.ControllerRevision
	for i := range list.Items {
		rev := &list.Items[i]
		if !sel.Matches(labels.Set(rev.Labels)) {
			continue
		}
		ref := metav1.GetControllerOfNoCopy(rev)
		switch {
		case ref == nil:
			orphans = append(orphans, rev)
		case ref.UID == set.UID:
			out = append(out, rev)
		}
	}
	if len(orphans) > 0 {
		if err := r.canAdopt(ctx, set); err != nil {
			return nil, fmt.Errorf("can't adopt ControllerRevisions: %w", err)
		}
		for _, rev := range orphans {
			adopted := rev.DeepCopy()
			if err := r.patchOwner(ctx, adopted, rev.UID, controllerRef(set)); err != nil {
				return nil, err
			}
			out = append(out, adopted)
		}
	}
	return out, nil
}

// settleRevisions makes sure set's template is recorded as its newest
// revision, as ChooseRevision decides, and returns the current and
// update revisions with the set as each records it.
func (r *reconciler) settleRevisions(ctx context.Context, set *appsv1.StatefulSet, revs []*appsv1.ControllerRevision) (*Revisions, error) {
	var collisions int32
	if set.Status.CollisionCount != nil {
		collisions = *set.Status.CollisionCount
	}
	choice, err := ChooseRevision(set, revs, collisions)
	if err != nil {
		return nil, err
	}
	var update *appsv1.ControllerRevision
	switch {
	case choice.Use != nil:
		update = choice.Use
	case choice.Renumber != nil:
		update, err = r.renumber(ctx, choice.Renumber, choice.Number)
	default:
		update, err = r.createRevision(ctx, set, choice.Create, &collisions)
	}
	if err != nil {
		return nil, err
	}
	out := &Revisions{Update: update, Current: currentRevision(set, revs, update), CollisionCount: collisions}
	if out.CurrentSet, err = ApplyRevision(set, out.Current); err != nil {
		return nil, err
	}
	if out.UpdateSet, err = ApplyRevision(set, out.Update); err != nil {
		return nil, err
	}
	return out, nil
}

// renumber makes an older revision the newest (a rollback to it).
func (r *reconciler) renumber(ctx context.Context, rev *appsv1.ControllerRevision, n int64) (*appsv1.ControllerRevision, error) {
	next := rev.DeepCopy()
	for range 5 {
		if next.Revision == n {
			return next, nil
		}
		next.Revision = n
		err := r.api.Update(ctx, next)
		if err == nil {
			return next, nil
		}
		if !client.IsConflict(err) {
			return nil, err
		}
		if err := r.api.Get(ctx, types.NamespacedName{Namespace: rev.Namespace, Name: rev.Name}, next); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("renumbering controller revision %s: conflicts persist", rev.Name)
}

// errCollisions: every name tried for a new revision was taken by
// other data.
var errCollisions = errors.New("controller revision names keep colliding")

// createRevision creates rev, and when its name is taken by a revision
// with other data counts a collision and tries the next name; one with
// the same data is used as it is.
func (r *reconciler) createRevision(ctx context.Context, set *appsv1.StatefulSet, rev *appsv1.ControllerRevision, collisions *int32) (*appsv1.ControllerRevision, error) {
	for range maxCollisions {
		next := rev.DeepCopy()
		rename(set, next, *collisions)
		err := r.api.Create(ctx, next)
		if err == nil {
			return next, nil
		}
		if !client.IsAlreadyExists(err) {
			return nil, err
		}
		exists := &appsv1.ControllerRevision{}
		if err := r.api.Get(ctx, types.NamespacedName{Namespace: next.Namespace, Name: next.Name}, exists); err != nil {
			return nil, err
		}
		if bytes.Equal(exists.Data.Raw, next.Data.Raw) {
			return exists, nil
		}
		*collisions++
	}
	return nil, errCollisions
}

// pruneHistory deletes the revisions HistoryToDelete names.
func (r *reconciler) pruneHistory(ctx context.Context, set *appsv1.StatefulSet, pods []*corev1.Pod, revs []*appsv1.ControllerRevision, current, update *appsv1.ControllerRevision) error {
	for _, rev := range HistoryToDelete(set, pods, revs, current, update) {
		if err := r.api.Delete(ctx, rev.DeepCopy()); err != nil && !client.IsNotFound(err) {
			return err
		}
	}
	return nil
}
