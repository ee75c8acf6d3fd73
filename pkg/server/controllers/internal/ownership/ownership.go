// Package ownership decides which pods a workload controller (a
// ReplicaSet, a Job, ...) owns, as kube-controller-manager's controller
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
// the pods of its namespace.
type Claims struct {
	// Owned are the pods the controller controls and still selects, and
	// the orphans it adopts (also in Adopt).
	Owned []*corev1.Pod
	// Adopt are orphans it selects: they get its controller reference.
	Adopt []*corev1.Pod
	// Release are pods it controls but no longer selects: they lose it.
	Release []*corev1.Pod
}

// Claim divides pods: a pod controlled by another object is left alone;
// one controlled by owner is kept while sel matches it and released
// when it stops matching; an orphan sel matches is adopted. An owner
// being deleted adopts and releases nothing, and a pod being deleted is
// never adopted.
func Claim(owner metav1.Object, sel labels.Selector, pods []*corev1.Pod) Claims {
	var c Claims
	deleting := owner.GetDeletionTimestamp() != nil
	for _, p := range pods {
		matches := sel.Matches(labels.Set(p.Labels))
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil {
			switch {
			case ref.UID != owner.GetUID():
			case matches:
				c.Owned = append(c.Owned, p)
			case !deleting:
				c.Release = append(c.Release, p)
			}
			continue
		}
		if deleting || !matches || p.DeletionTimestamp != nil || p.Namespace != owner.GetNamespace() {
			continue
		}
		c.Adopt = append(c.Adopt, p)
		c.Owned = append(c.Owned, p)
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
