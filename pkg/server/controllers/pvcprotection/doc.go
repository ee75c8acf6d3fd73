// Package pvcprotection keeps a PersistentVolumeClaim that a pod still
// uses from being deleted under it, as kube-controller-manager's
// pvc-protection controller does.
//
//	PersistentVolumeClaims, Pods (informers) -> this controller
//	      -> claims' kubernetes.io/pvc-protection finalizer (add, remove)
//	Pods (live list, before a removal)       ->
//
// The API server gives every new claim the finalizer (kube's
// StorageObjectInUseProtection admission). A claim being deleted keeps it
// while a scheduled pod mounts the claim, or while a pod not yet shut
// down has it as its ephemeral volume; once none does, the finalizer goes
// and the deletion completes. Before removing it, the controller checks a
// live list of the namespace's pods too, since its cache may not yet show
// a pod just created. A claim written before the admission existed gets
// the finalizer added. The decision is a pure function (Decide, InUse).
package pvcprotection
