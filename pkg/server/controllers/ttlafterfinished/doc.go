// Package ttlafterfinished deletes finished Jobs once their
// spec.ttlSecondsAfterFinished has passed, as kube-controller-manager's
// TTL-after-finished controller does.
//
//	Jobs (informer) -> Expiry -> GET job (recheck) -> DELETE job
//	                                                  (Foreground, UID precondition)
//
// A Job has finished when its Complete or Failed condition is True; it
// expires ttlSecondsAfterFinished after that condition's transition.
// Before deleting, the controller reads the Job afresh and checks again,
// since the TTL may have changed; the delete is Foreground, so the Job
// stays until its pods are gone. Expiry is a pure function of the Job
// and the time; the reconciler only reads, waits and deletes.
package ttlafterfinished
