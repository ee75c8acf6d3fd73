// Package statefulset gives each StatefulSet its pods, one per ordinal,
// with stable names, hostnames and claims, as kube-controller-manager's
// StatefulSet controller does.
//
//	StatefulSets, Pods, ControllerRevisions (informers)
//	      -> this controller -> ControllerRevisions (create, renumber, prune)
//	                         -> PersistentVolumeClaims (create, owners)
//	                         -> Pods (create, delete, fix identity,
//	                                  adopt, release)
//	                         -> StatefulSet status
//
// A pass claims the set's pods (its selector, its name as their
// parent), records its template as a ControllerRevision named
// <set>-<hash> (reusing or renumbering an equal one, as kube does),
// then decides, from the set, the current and update revisions, its
// pods and the time, what to do next (Decide): replace failed pods,
// create missing ordinals, delete ordinals beyond the replica count and
// delete pods of an old revision from the highest ordinal down to the
// partition. Under OrderedReady each step waits for every lower ordinal
// to be Running and Ready (and available, with minReadySeconds) and
// stops at the first thing it did; under Parallel each group of steps
// runs at once. Status is computed by the same pure functions; the
// reconciler only reads and writes.
package statefulset
