// Package finalizer lets a reconciler clean up after an object before the
// API server lets it go.
//
// It sits inside a reconciler, between the object the reconciler read and
// the user's own code. Reconcile routes the object to one of two paths:
// Apply while the object lives, Cleanup once the server has set its
// deletionTimestamp. A finalizer (a name in metadata.finalizers) is what
// makes the server wait: Reconcile adds it before Apply first runs and
// removes it once Cleanup has finished, and the server deletes the object
// when its last finalizer is gone.
//
// # Guarantees
//
//   - The finalizer is on the server before Apply runs. An object Apply
//     ever acted on therefore always has Cleanup run for it before it is
//     deleted, even if the controller crashes or restarts in between.
//   - The object is not deleted until Cleanup has returned a nil error and
//     a zero Result. A positive RequeueAfter means cleanup is still under
//     way (waiting on something outside the object): the finalizer stays
//     and the reconciler asks to be called again.
//   - Cleanup runs at least once, and possibly more than once: a crash, or
//     a lost race when removing the finalizer, runs it again. It must be
//     idempotent, and treat "already gone" as success.
//   - A finalizer is never added to an object already being deleted: the
//     server refuses new finalizers then, and such an object was never
//     acted on, so there is nothing to clean up. Reconcile does nothing
//     for it.
//   - Adding or removing the finalizer is a patch conditional on the
//     object's resourceVersion and touches nothing but
//     metadata.finalizers, so it never overwrites a concurrent change
//     (another controller's finalizer, a spec edit). If the object
//     changed since it was read, the write fails with a Conflict error;
//     the controller retries with a fresh read.
//
// Finalizer names must be domain-qualified ("widgets.example.com/cleanup"):
// the prefix keeps two controllers from releasing each other's finalizer.
package finalizer
