// Package ownership decides which pods (or revisions, or ReplicaSets) a
// workload controller (a ReplicaSet, a Job, a DaemonSet, ...) owns, as kube-controller-manager's controller
// reference manager does, and which controllers a pod's change concerns.
// The controllers' reconcilers adopt and release what Claim decides.
package ownership

import (
	"context"

	corev1 "k8s.io/api/core/v1"
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

// Claim divides objs: one controlled by another object is left alone;
// one controlled by owner is kept while sel matches it and released when
// it stops matching; an orphan sel matches is adopted. An owner being
// deleted adopts and releases nothing, and an object being deleted is
// never adopted.
func Claim[T metav1.Object](owner metav1.Object, sel labels.Selector, objs []T) Claims[T] {
	var c Claims[T]
	deleting := owner.GetDeletionTimestamp() != nil
	for _, o := range objs {
		matches := sel.Matches(labels.Set(o.GetLabels()))
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

// OwnersOf are the controllers of kind (apiVersion, kind) a change to pod
// concerns: its controller if it is one of them, or, for an orphan, each
// candidate (the kind's objects in the pod's namespace, which list
// returns) whose non-empty selector matches it.
func OwnersOf(ctx context.Context, pod *corev1.Pod, apiVersion, kind string, list func(ctx context.Context, namespace string) ([]Candidate, error)) []reconcile.Request {
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil {
		if ref.Kind != kind || ref.APIVersion != apiVersion {
			return nil
		}
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: pod.Namespace, Name: ref.Name}}}
	}
	cands, err := list(ctx, pod.Namespace)
	if err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, c := range cands {
		sel, err := metav1.LabelSelectorAsSelector(c.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: pod.Namespace, Name: c.Name}})
	}
	return out
}
