package garbagecollector

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// item is a worker's copy of a node: workers never hold the graph's
// lock across an API call.
type item struct {
	id                 objectRef
	virtual            bool
	beingDeleted       bool
	deletingDependents bool
	dependents         int
}

func (g *graph) item(uid types.UID) (item, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n, ok := g.nodes[uid]
	if !ok {
		return item{}, false
	}
	it := item{
		id: n.id, virtual: n.virtual, beingDeleted: n.beingDeleted,
		deletingDependents: n.deletingDependents, dependents: len(n.dependents),
	}
	return it, true
}

// dependent is a worker's copy of a dependent node.
type dependent struct {
	id                 objectRef
	deletingDependents bool
}

// blockingDependents lists the dependents the foreground deletion of
// uid waits for.
func (g *graph) blockingDependents(uid types.UID) []dependent {
	g.mu.Lock()
	defer g.mu.Unlock()
	n, ok := g.nodes[uid]
	if !ok {
		return nil
	}
	var out []dependent
	for _, dep := range n.blockingDependents() {
		out = append(out, dependent{id: dep.id, deletingDependents: dep.deletingDependents})
	}
	return out
}

// dependentsOf lists the dependents of uid.
func (g *graph) dependentsOf(uid types.UID) (objectRef, []objectRef, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n, ok := g.nodes[uid]
	if !ok {
		return objectRef{}, nil, false
	}
	out := make([]objectRef, 0, len(n.dependents))
	for dep := range n.dependents {
		out = append(out, dep.id)
	}
	return n.id, out, true
}

// isVirtual reports whether uid is a node not yet seen by an informer.
func (g *graph) isVirtual(uid types.UID) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	n, ok := g.nodes[uid]
	return ok && n.virtual
}

// recheckKind queues every observed node of kind gk: its informer is
// gone, so their deletions would go unseen.
func (g *graph) recheckKind(gk schema.GroupKind) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for uid, n := range g.nodes {
		if !n.virtual && n.id.groupKind() == gk {
			g.toDelete.Add(uid)
		}
	}
}
