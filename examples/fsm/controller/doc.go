// Package controller is the Pipeline operator's reconciler: a state
// machine (package fsm) rather than hand-written reconcile code.
//
// A live Pipeline walks three states, each owning the status condition
// of its name:
//
//	Validated -> Provisioned -> Published
//
// Validated checks the stages; Provisioned writes them to a ConfigMap
// the Pipeline owns; Published labels that ConfigMap so the runners
// (imaginary here) pick it up, or takes the label off while
// spec.suspend is set. A Pipeline being deleted walks
//
//	Unpublished -> Deprovisioned
//
// which withdraws and then deletes the ConfigMap, under a finalizer
// that holds the Pipeline until the walk is done. Ready sums it all up.
package controller
