// Package namespace finishes the deletion of namespaces: the controller
// that, in Kubernetes, runs in kube-controller-manager.
//
// In the data path it sits after the API server's delete: deleting a
// namespace only marks it (deletionTimestamp, phase Terminating) and the
// server refuses new objects in it, but its contents stay, and the
// namespace is held by the "kubernetes" entry of spec.finalizers. This
// controller, fed by a namespace informer, deletes every namespaced
// object in it through the ordinary REST API (every kind discovery
// lists, custom resources included), waits for objects that finalizers
// hold, reporting the wait in the namespace's status conditions as
// kube-controller-manager does, and then releases the namespace through
// its finalize subresource, after which the server deletes it.
//
//	DELETE namespace -> server: Terminating -> informer -> this controller
//	    -> deletecollection / delete per kind -> wait for finalizers
//	    -> PUT .../finalize -> server deletes the namespace
//
// It talks HTTP only, so it works against any Kubernetes API server.
package namespace
