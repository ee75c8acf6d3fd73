package deployment

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Claims is how a Deployment's selector and controller references divide
// the ReplicaSets of its namespace.
type Claims struct {
	// Owned are the ReplicaSets d controls and still selects, and the
	// orphans it adopts (also in Adopt).
	Owned []*appsv1.ReplicaSet
	// Adopt are orphans d selects: they get its controller reference.
	Adopt []*appsv1.ReplicaSet
	// Release are ReplicaSets d controls but no longer selects.
	Release []*appsv1.ReplicaSet
}

// Claim divides sets as kube's ControllerRefManager does: one controlled
// by another object is left alone; one controlled by d is kept while sel
// matches its labels and released when it stops matching; a matching
// orphan is adopted. A Deployment being deleted adopts and releases
// nothing, and a ReplicaSet being deleted is never adopted.
func Claim(d *appsv1.Deployment, sel labels.Selector, sets []*appsv1.ReplicaSet) Claims {
	var c Claims
	deleting := d.DeletionTimestamp != nil
	for _, rs := range sets {
		matches := sel.Matches(labels.Set(rs.Labels))
		if ref := metav1.GetControllerOfNoCopy(rs); ref != nil {
			switch {
			case ref.UID != d.UID:
			case matches:
				c.Owned = append(c.Owned, rs)
			case !deleting:
				c.Release = append(c.Release, rs)
			}
			continue
		}
		if deleting || !matches || rs.DeletionTimestamp != nil || rs.Namespace != d.Namespace {
			continue
		}
		c.Adopt = append(c.Adopt, rs)
		c.Owned = append(c.Owned, rs)
	}
	return c
}
