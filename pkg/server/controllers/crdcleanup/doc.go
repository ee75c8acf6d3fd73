// Package crdcleanup finishes the deletion of CustomResourceDefinitions:
// the finalizer controller that, in Kubernetes, runs inside the
// apiextensions API server.
//
// In the data path it sits after the API server's delete: deleting a CRD
// only marks it (deletionTimestamp) while the server's
// customresourcecleanup.apiextensions.k8s.io finalizer holds it, and the
// server refuses new objects of its kind. This controller, fed by a CRD
// informer, marks the CRD Terminating, deletes its custom resources in
// every namespace through the ordinary REST API, waits for those that
// finalizers hold, and then removes the finalizer, after which the
// server deletes the CRD and stops serving its kind. So no object of a
// deleted kind outlives it, to reappear should the kind be defined again.
//
//	DELETE crd -> server: deletionTimestamp -> informer -> this controller
//	    -> condition Terminating=True -> deletecollection per namespace
//	    -> wait for finalizers -> Terminating=False, finalizer removed
//	    -> server deletes the CRD
//
// It talks HTTP only, so it works against any Kubernetes API server.
package crdcleanup
