package garbagecollector

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// node is one object in the graph. Its fields are guarded by the
// graph's lock.
type node struct {
	id objectRef
	// owners are the object's ownerReferences as last observed.
	owners []metav1.OwnerReference
	// dependents are the nodes whose owners name this one.
	dependents map[*node]struct{}
	// virtual: named by a dependent, not seen by an informer yet. Its
	// id is what the first dependent called it, until observed.
	virtual bool
	// beingDeleted: deletionTimestamp was seen; a one-way trip.
	beingDeleted bool
	// deletingDependents: deleting in the foreground, waiting for its
	// blocking dependents.
	deletingDependents bool
}

func newNode(id objectRef) *node {
	return &node{id: id, dependents: map[*node]struct{}{}}
}

// blockingDependents are the dependents whose reference to n has
// blockOwnerDeletion: n's foreground deletion waits for them.
func (n *node) blockingDependents() []*node {
	var out []*node
	for dep := range n.dependents {
		for _, ref := range dep.owners {
			if ref.UID == n.id.UID && blocks(ref) {
				out = append(out, dep)
				break
			}
		}
	}
	return out
}

// partition splits n's dependents by whether their reference to n
// names id: a uid names one object, but a dependent may give it the
// wrong kind, name or namespace, and only the dependents that named
// id are answered by what the API said about id.
func (n *node) partition(id objectRef) (matching, other []*node) {
	for dep := range n.dependents {
		if id.Namespace != "" && dep.id.Namespace != id.Namespace {
			other = append(other, dep)
			continue
		}
		match, mismatch := false, false
		for _, ref := range dep.owners {
			if ref.UID != id.UID {
				continue
			}
			if sameCoordinates(ref, id) {
				match = true
			} else {
				mismatch = true
			}
		}
		if match {
			matching = append(matching, dep)
		}
		if mismatch {
			other = append(other, dep)
		}
	}
	return matching, other
}
