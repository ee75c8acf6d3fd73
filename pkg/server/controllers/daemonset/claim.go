package daemonset

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Claims is how a DaemonSet's selector and controller references divide
// the objects (pods or revisions) of its namespace.
type Claims[T metav1.Object] struct {
	// Owned are the objects the DaemonSet controls and still selects,
	// and the orphans it adopts (also in Adopt).
	Owned []T
	// Adopt are orphans it selects: they get its controller reference.
	Adopt []T
	// Release are objects it controls but no longer selects.
	Release []T
}

// Claim divides objs as kube's ControllerRefManager does: one controlled
// by another object is left alone; one controlled by ds is kept while sel
// matches it and released when it stops matching; an orphan sel matches
// is adopted unless it is being deleted. A DaemonSet being deleted adopts
// and releases nothing.
func Claim[T metav1.Object](ds *appsv1.DaemonSet, sel labels.Selector, objs []T) Claims[T] {
	var c Claims[T]
	deleting := ds.DeletionTimestamp != nil
	for _, o := range objs {
		matches := sel.Matches(labels.Set(o.GetLabels()))
		if ref := metav1.GetControllerOfNoCopy(o); ref != nil {
			switch {
			case ref.UID != ds.UID:
			case matches:
				c.Owned = append(c.Owned, o)
			case !deleting:
				c.Release = append(c.Release, o)
			}
			continue
		}
		if deleting || !matches || o.GetDeletionTimestamp() != nil || o.GetNamespace() != ds.Namespace {
			continue
		}
		c.Adopt = append(c.Adopt, o)
		c.Owned = append(c.Owned, o)
	}
	return c
}
