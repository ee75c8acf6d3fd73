package garbagecollector

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"
)

// Foreground deletion waits along blocking references, so a cycle of
// them (A owns B, B owns A, both blocking) would wait forever. Two
// checks break it, both by making a reference stop blocking:
//
//   - before deleting an object in the foreground for a waiting owner
//     (attemptToDelete), if a dependent of it is itself waiting, or is
//     one of those owners, as Kubernetes does;
//   - when a waiting owner finds it waits only on waiting dependents
//     (processDeletingDependents), if they lead back to it: the graph
//     may have lagged the API at the first check, and nothing else
//     would wake such a cycle.

// waitsInCycle reports whether deleting uid in the foreground for the
// owners waiting (found waiting through the API) may close a cycle:
// one of its dependents is itself waiting for its dependents, or is one
// of those owners.
func (g *graph) waitsInCycle(uid types.UID, waiting []types.UID) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	n, ok := g.nodes[uid]
	if !ok {
		return false
	}
	for dep := range n.dependents {
		if dep.deletingDependents || slices.Contains(waiting, dep.id.UID) {
			return true
		}
	}
	return false
}

// blockingCycle finds a blocking dependent of uid that is waiting for
// its own dependents and, through blocking dependents that wait in turn,
// is waiting for uid: a cycle no deletion can end.
func (g *graph) blockingCycle(uid types.UID) (objectRef, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n, ok := g.nodes[uid]
	if !ok {
		return objectRef{}, false
	}
	for _, dep := range n.blockingDependents() {
		if dep.deletingDependents && waitsFor(dep, n, map[*node]bool{}) {
			return dep.id, true
		}
	}
	return objectRef{}, false
}

// waitsFor reports whether from waits, along blocking references of
// waiting nodes, for target.
func waitsFor(from, target *node, seen map[*node]bool) bool {
	if seen[from] {
		return false
	}
	seen[from] = true
	for _, dep := range from.blockingDependents() {
		if dep == target {
			return true
		}
		if dep.deletingDependents && waitsFor(dep, target, seen) {
			return true
		}
	}
	return false
}
