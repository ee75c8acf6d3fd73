package daemonset

import (
	"context"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/ownership"
)

// history claims ds's ControllerRevisions and makes sure exactly one
// records its current template, numbered past the old ones: it creates
// it, or keeps the newest of duplicates (relabelling pods of the others
// to its hash), or renumbers it. It returns it and the old revisions.
func (r *reconciler) history(ctx context.Context, ds *appsv1.DaemonSet, sel labels.Selector) (*appsv1.ControllerRevision, []*appsv1.ControllerRevision, error) {
	list := &appsv1.ControllerRevisionList{}
	if err := r.cache.List(ctx, list, client.InNamespace(ds.Namespace)); err != nil {
		return nil, nil, err
	}
	revs := make([]*appsv1.ControllerRevision, len(list.Items))
	for i := range list.Items {
		revs[i] = &list.Items[i]
	}
	c := ownership.Claim(ds, sel, revs)
	if len(c.Adopt) > 0 {
		if err := r.canAdopt(ctx, ds); err != nil {
			return nil, nil, err
		}
	}
	for _, rev := range c.Adopt {
		if err := r.patchOwner(ctx, rev.DeepCopy(), rev.UID, controllerRef(ds)); err != nil {
			return nil, nil, err
		}
	}
	for _, rev := range c.Release {
		if err := r.patchOwner(ctx, rev.DeepCopy(), rev.UID, release(ds)); err != nil && !client.IsNotFound(err) {
			return nil, nil, err
		}
	}
	owned := make([]*appsv1.ControllerRevision, 0, len(c.Owned))
	for _, rev := range c.Owned {
		// Revisions of old controllers lack the hash label: their name
		// serves, so no hash need be computed for them.
		if _, ok := rev.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; !ok {
			next := rev.DeepCopy()
			if next.Labels == nil {
				next.Labels = map[string]string{}
			}
			next.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = next.Name
			if err := r.api.Update(ctx, next); err != nil {
				return nil, nil, err
			}
			rev = next
		}
		owned = append(owned, rev)
	}
	h, err := SplitHistory(ds, owned)
	if err != nil {
		return nil, nil, err
	}
	if len(h.Current) == 0 {
		cur, err := r.snapshot(ctx, ds, h.Next)
		return cur, h.Old, err
	}
	cur := h.Keep()
	if len(h.Current) > 1 {
		if err := r.dedup(ctx, ds, cur, h.Current); err != nil {
			return nil, nil, err
		}
	}
	if cur.Revision < h.Next {
		next := cur.DeepCopy()
		next.Revision = h.Next
		if err := r.api.Update(ctx, next); err != nil {
			return nil, nil, err
		}
		cur = next
	}
	return cur, h.Old, nil
}

// snapshot creates the revision of ds's current template. A revision
// of that name recording another template is a hash collision: the
// DaemonSet's collisionCount goes up, so the next pass hashes anew.
func (r *reconciler) snapshot(ctx context.Context, ds *appsv1.DaemonSet, revision int64) (*appsv1.ControllerRevision, error) {
	hash := TemplateHash(&ds.Spec.Template, ds.Status.CollisionCount)
	rev, err := Snapshot(ds, hash, revision)
	if err != nil {
		return nil, err
	}
	createErr := r.api.Create(ctx, rev)
	if createErr == nil || !client.IsAlreadyExists(createErr) {
		return rev, createErr
	}
	existing := &appsv1.ControllerRevision{}
	if err := r.api.Get(ctx, types.NamespacedName{Namespace: ds.Namespace, Name: rev.Name}, existing); err != nil {
		return nil, err
	}
	if same, err := Matches(ds, existing); err != nil || same {
		return existing, err
	}
	fresh := &appsv1.DaemonSet{}
	if err := r.api.Get(ctx, types.NamespacedName{Namespace: ds.Namespace, Name: ds.Name}, fresh); err != nil {
		return nil, err
	}
	if !equalCounts(fresh.Status.CollisionCount, ds.Status.CollisionCount) {
		return nil, fmt.Errorf("found a stale collision count (%v, expected %v) of DaemonSet %q while processing; will retry until it is updated",
			countOf(ds.Status.CollisionCount), countOf(fresh.Status.CollisionCount), ds.Name)
	}
	n := countOf(fresh.Status.CollisionCount) + 1
	fresh.Status.CollisionCount = &n
	if err := r.api.UpdateStatus(ctx, fresh); err != nil {
		return nil, err
	}
	return nil, createErr
}

func countOf(c *int32) int32 {
	if c == nil {
		return 0
	}
	return *c
}

func equalCounts(a, b *int32) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// dedup keeps keep among revisions recording the same template: ds's
// pods of the others are relabelled with keep's hash, then the others
// are deleted.
func (r *reconciler) dedup(ctx context.Context, ds *appsv1.DaemonSet, keep *appsv1.ControllerRevision, current []*appsv1.ControllerRevision) error {
	hash := keep.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
	pods := &corev1.PodList{}
	if err := r.cache.List(ctx, pods, client.InNamespace(ds.Namespace)); err != nil {
		return err
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{appsv1.DefaultDaemonSetUniqueLabelKey: hash}}})
	if err != nil {
		return err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		ref := metav1.GetControllerOfNoCopy(p)
		if ref == nil || ref.UID != ds.UID || p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash {
			continue
		}
		if err := r.api.Patch(ctx, p.DeepCopy(), types.MergePatchType, patch); err != nil && !client.IsNotFound(err) {
			return err
		}
	}
	for _, rev := range current {
		if rev.Name == keep.Name {
			continue
		}
		if err := r.api.Delete(ctx, rev.DeepCopy()); err != nil && !client.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// pruneHistory deletes the old revisions beyond the history limit that
// no pod of ds still carries.
func (r *reconciler) pruneHistory(ctx context.Context, ds *appsv1.DaemonSet, old []*appsv1.ControllerRevision, owned []*corev1.Pod) error {
	for _, rev := range Prune(ds, old, liveHashes(owned)) {
		if err := r.api.Delete(ctx, rev.DeepCopy()); err != nil && !client.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// patchOwner changes one entry of obj's ownerReferences with a strategic
// merge patch that also names obj's UID, so an object recreated under
// the same name is left alone.
func (r *reconciler) patchOwner(ctx context.Context, obj client.Object, uid types.UID, ref any) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"ownerReferences": []any{ref}, "uid": uid}})
	if err != nil {
		return err
	}
	return r.api.Patch(ctx, obj, types.StrategicMergePatchType, patch)
}
