package garbagecollector

import "errors"

var (
	// ErrNamespacedOwnerOfClusterScoped: a cluster-scoped object names
	// a namespaced kind as its owner. Such a reference cannot be
	// resolved, so the object is never collected (as in Kubernetes);
	// retrying cannot help.
	ErrNamespacedOwnerOfClusterScoped = errors.New("garbagecollector: cluster-scoped object refers to a namespaced owner")
	// errAbsent: the item itself does not exist; the graph was told.
	errAbsent = errors.New("garbagecollector: object is absent")
)
