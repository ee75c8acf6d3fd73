// Package garbagecollector deletes objects whose owners are gone, as
// kube-controller-manager's garbage collector does, on Setpoint's public
// runtime.
//
// In the data path it is a controller over every kind at once:
//
//	discovery -> one metadata-only informer per deletable kind (shared, the manager's)
//	          -> graph of owners and dependents (uid -> node)
//	          -> attemptToDelete and attemptToOrphan queues -> workers
//	          -> DELETE / PATCH through the client, back to the API server
//
// The graph is built from ownerReferences alone. An owner named by a
// reference but not (yet) seen by an informer is a virtual node, checked
// against the API server: a 404, or an object of that name with another
// uid, means the owner is absent.
//
// Propagation policies, as the API server records them on the owner:
//
//   - Background (no finalizer): once the owner is gone, each dependent
//     with no live owner left is deleted; one that still has a live
//     owner only loses its dangling references.
//   - Foreground (the foregroundDeletion finalizer): the owner's
//     dependents are deleted; the finalizer is removed once no dependent
//     whose reference blocks owner deletion remains, and the server then
//     deletes the owner.
//   - Orphan (the orphan finalizer): the references to the owner are
//     removed from its dependents, then the finalizer.
//
// Every delete carries a uid precondition, and every patch of an
// object's ownerReferences or finalizers names the resourceVersion it
// was computed from, so a re-created object or a concurrent write is
// never clobbered.
package garbagecollector
