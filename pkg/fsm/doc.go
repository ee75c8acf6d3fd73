// Package fsm builds a reconciler from a graph of states.
//
// It is the user's end of the data path: a controller hands a Machine a
// reconcile.Request, and the Machine reads the object, walks its states
// and writes what it found to the object's status conditions.
//
// Each state is a function of the object that returns an Outcome: go on
// to a next state, stop because everything is done, stop and wait, or
// fail. Each state owns one status condition, which the Outcome sets
// (with observedGeneration), so the object's status shows how far the
// last walk got and why it stopped. The condition Ready is derived from
// them all.
//
// # Walks
//
//   - Every reconcile walks from the initial state (the first declared):
//     no position is remembered between reconciles, so a change anywhere
//     is seen by every state it affects, and a restart loses nothing.
//   - A state declares the states it may go to; going anywhere else is a
//     terminal error, and Transitions lists the declared edges, so the
//     graph can be checked in tests.
//   - A walk that runs more states than the limit (twice the number of
//     states by default) fails: the graph has a cycle that did not end.
//   - A state the walk did not reach has its condition set to Unknown
//     (reason Pending) when the walk stopped early, and removed when the
//     walk finished, since it lies on a branch the object does not take.
//   - Ready is True when every state's condition present is True;
//     otherwise it takes the status, reason and message of the first
//     state (in declaration order) whose condition is not. A walk broken
//     by the machine itself (an undeclared transition, too many steps)
//     sets Ready False with that reason.
//   - Status is written with UpdateStatus, conditional on the
//     resourceVersion read, and only when a condition changed; a
//     condition's lastTransitionTime changes only when its status does.
//
// # Deletion
//
// With deletion states, the Machine holds the object with a finalizer
// (package finalizer): it is added before the first walk, and once the
// object is being deleted only the deletion states are walked, until one
// of them finishes the walk; then the finalizer is removed and the server
// deletes the object. Ready is False with reason Deleting meanwhile. The
// deletion states run at least once and possibly more than once, so they
// must be idempotent.
package fsm
