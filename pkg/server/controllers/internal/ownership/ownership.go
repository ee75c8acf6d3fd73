// Package ownership decides which pods (or revisions, or ReplicaSets) a
// workload controller (a ReplicaSet, a Job, a DaemonSet, ...) owns, as kube-controller-manager's controller
// reference manager does, and which controllers a pod's change concerns.
// The controllers' reconcilers adopt and release what Claim decides.
package ownership

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// Claims is how a controller's selector and controller references divide
// the objects (pods, ControllerRevisions, ReplicaSets) of its namespace.
type Claims[T metav1.Object] struct {
	// Owned are the objects the controller controls and still selects,
	// and the orphans it adopts (also in Adopt).
	Owned []T
	// Adopt are orphans it selects: they get its controller reference.
	Adopt []T
	// Release are objects it controls but no longer selects: they lose
	// it.
	Release []T
}

// Kept returns the objects c leaves owned once its adoptions are done:
// Owned less those that went before they could be adopted (gone, by
// UID), each copied by copy, since Owned may hold the informers' own
// objects and a pass changes what it keeps.
func (c Claims[T]) Kept(gone map[types.UID]bool, copy func(T) T) []T {
	out := make([]T, 0, len(c.Owned))
	for _, o := range c.Owned {
		if !gone[o.GetUID()] {
			out = append(out, copy(o))
		}
	}
	return out
}

// Claim divides objs: one controlled by another object is left alone;
// one controlled by owner is kept while sel matches it and released when
// it stops matching; an orphan sel matches is adopted. An owner being
// deleted adopts and releases nothing, and an object being deleted is
// never adopted.
func Claim[T metav1.Object](owner metav1.Object, sel labels.Selector, objs []T) Claims[T] {
	return ClaimMatching(owner, func(o T) bool { return sel.Matches(labels.Set(o.GetLabels())) }, objs)
}

// ClaimMatching is Claim with what the owner selects given as match: a
// StatefulSet selects the pods its selector matches that are named as
// its members.
func ClaimMatching[T metav1.Object](owner metav1.Object, match func(T) bool, objs []T) Claims[T] {
	var c Claims[T]
	deleting := owner.GetDeletionTimestamp() != nil
	for _, o := range objs {
		matches := match(o)
		if ref := metav1.GetControllerOfNoCopy(o); ref != nil {
			switch {
			case ref.UID != owner.GetUID():
			case matches:
				c.Owned = append(c.Owned, o)
			case !deleting:
				c.Release = append(c.Release, o)
			}
			continue
		}
		if deleting || !matches || o.GetDeletionTimestamp() != nil || o.GetNamespace() != owner.GetNamespace() {
			continue
		}
		c.Adopt = append(c.Adopt, o)
		c.Owned = append(c.Owned, o)
	}
	return c
}

// Candidate is a controller of some kind that may select a pod.
type Candidate struct {
	Name     string
	Selector *metav1.LabelSelector
}

// CandidatesOf are items as candidates, each with its selector.
func CandidatesOf[T metav1.Object](items []T, selector func(T) *metav1.LabelSelector) []Candidate {
	out := make([]Candidate, len(items))
	for i, it := range items {
		out[i] = Candidate{Name: it.GetName(), Selector: selector(it)}
	}
	return out
}

// OwnersOf are the controllers of kind (apiVersion, kind) a change to
// child (a pod, a ReplicaSet) concerns: its controller if it is one of
// them, or, for an orphan, each candidate (the kind's objects in the
// child's namespace, which list returns) whose non-empty selector
// matches it.
func OwnersOf(ctx context.Context, child metav1.Object, apiVersion, kind string, list func(ctx context.Context, namespace string) ([]Candidate, error)) []reconcile.Request {
	ns := child.GetNamespace()
	if ref := metav1.GetControllerOfNoCopy(child); ref != nil {
		if ref.Kind != kind || ref.APIVersion != apiVersion {
			return nil
		}
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: ns, Name: ref.Name}}}
	}
	cands, err := list(ctx, ns)
	if err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, c := range cands {
		sel, err := metav1.LabelSelectorAsSelector(c.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(child.GetLabels())) {
			continue
		}
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: c.Name}})
	}
	return out
}
