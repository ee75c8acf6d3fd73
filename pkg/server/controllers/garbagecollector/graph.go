package garbagecollector

import (
	"slices"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// enqueuer takes the uid of a node to look at; a workqueue is one.
type enqueuer interface{ Add(types.UID) }

// graph is who owns whom, from the informers' events. It decides what
// to look at; the workers decide, against the API, what to do.
type graph struct {
	mu     sync.Mutex
	nodes  map[types.UID]*node
	absent *absentOwners
	// toDelete gets nodes that may have to go (or whose dependents may
	// let them go); toOrphan gets owners deleted with Orphan.
	toDelete, toOrphan enqueuer
}

func newGraph(absent *absentOwners, toDelete, toOrphan enqueuer) *graph {
	return &graph{nodes: map[types.UID]*node{}, absent: absent, toDelete: toDelete, toOrphan: toOrphan}
}

// upsert applies an informer's add (old nil) or update.
func (g *graph) upsert(old *observation, cur observation) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n, found := g.nodes[cur.id.UID]
	if found && n.virtual {
		if n.id != cur.id {
			// Dependents that named the owner otherwise may mean an
			// object that does not exist: have them checked.
			for dep := range n.dependents {
				if !namesOwner(dep, cur.id) {
					g.toDelete.Add(dep.id.UID)
				}
			}
		}
		n.virtual = false
	}
	if !found {
		n = newNode(cur.id)
		n.owners = cur.owners
		n.beingDeleted = cur.deleting
		n.deletingDependents = cur.deletingDependents()
		g.nodes[cur.id.UID] = n
		g.addToOwners(n, n.owners)
	} else {
		n.id = cur.id
		added, removed, unblocked := diffOwners(n.owners, cur.owners)
		g.wakeWaitingOwners(removed)
		g.wakeWaitingOwners(unblocked)
		n.owners = cur.owners
		g.addToOwners(n, added)
		g.removeFromOwners(n, removed)
		if cur.deleting {
			n.beingDeleted = true
		}
	}
	g.transitions(old, &cur, n)
}

// namesOwner reports whether dep's reference to owner.UID names owner,
// in a namespace where owner can be.
func namesOwner(dep *node, owner objectRef) bool {
	if owner.Namespace != "" && dep.id.Namespace != owner.Namespace {
		return false
	}
	for _, ref := range dep.owners {
		if ref.UID == owner.UID && !sameCoordinates(ref, owner) {
			return false
		}
	}
	return true
}

// transitions starts the work an owner's new finalizers ask for.
func (g *graph) transitions(old, cur *observation, n *node) {
	if cur.orphaning() && !old.orphaning() {
		g.toOrphan.Add(n.id.UID)
		return
	}
	if cur.deletingDependents() && !old.deletingDependents() {
		// A node that was virtual did not know it.
		n.deletingDependents = true
		for dep := range n.dependents {
			g.toDelete.Add(dep.id.UID)
		}
		g.toDelete.Add(n.id.UID)
	}
}

// remove applies an informer's delete.
func (g *graph) remove(obs observation) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if n, ok := g.nodes[obs.id.UID]; ok {
		g.drop(n, obs.id)
	}
}

// virtualDelete applies the API's word that id does not exist (a 404,
// or another uid under its name).
func (g *graph) virtualDelete(id objectRef) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n, ok := g.nodes[id.UID]
	if !ok {
		return
	}
	if n.virtual || n.id != id {
		matching, other := n.partition(id)
		if len(matching) > 0 {
			g.absent.add(id)
			for _, dep := range matching {
				g.toDelete.Add(dep.id.UID)
			}
		}
		if !n.virtual {
			// The informer saw the object under another identity:
			// it exists; only those who misnamed it lose it.
			return
		}
		// Others may name the uid differently, and it may exist as
		// they say: keep the node under a name not yet found absent,
		// and check that one.
		if alt, ok := g.alternateIdentity(other, id); ok {
			if n.id == id {
				n.id = alt
				g.toDelete.Add(n.id.UID)
			}
			return
		}
	}
	g.drop(n, id)
}

// alternateIdentity is an identity a dependent gives owner id that is
// neither id nor known to be absent.
func (g *graph) alternateIdentity(deps []*node, id objectRef) (objectRef, bool) {
	slices.SortFunc(deps, func(a, b *node) int { return strings.Compare(string(a.id.UID), string(b.id.UID)) })
	for _, dep := range deps {
		for _, ref := range dep.owners {
			if ref.UID != id.UID {
				continue
			}
			if alt := ownerRef(ref, dep.id.Namespace); alt != id && !g.absent.has(alt) {
				return alt, true
			}
		}
	}
	return objectRef{}, false
}

// drop removes n, which is gone as id, and wakes who cares: its
// dependents (their owner is gone) and its owners waiting for their
// dependents to go.
func (g *graph) drop(n *node, id objectRef) {
	delete(g.nodes, n.id.UID)
	g.removeFromOwners(n, n.owners)
	if len(n.dependents) > 0 {
		g.absent.add(id)
	}
	for dep := range n.dependents {
		g.toDelete.Add(dep.id.UID)
	}
	for _, ref := range n.owners {
		if o, ok := g.nodes[ref.UID]; ok && o.deletingDependents {
			g.toDelete.Add(o.id.UID)
		}
	}
}

// addToOwners links n under the owners refs name, making virtual nodes
// for owners not seen yet (and having them checked).
func (g *graph) addToOwners(n *node, refs []metav1.OwnerReference) {
	suspect := false
	for _, ref := range refs {
		o, ok := g.nodes[ref.UID]
		if !ok {
			o = newNode(ownerRef(ref, n.id.Namespace))
			o.virtual = true
			g.nodes[ref.UID] = o
			o.dependents[n] = struct{}{}
			g.toDelete.Add(ref.UID)
			continue
		}
		o.dependents[n] = struct{}{}
		// A namespaced owner elsewhere, or one named with the wrong
		// coordinates, may be absent from where n's reference points.
		// A virtual owner's namespace is only a dependent's guess.
		if o.id.Namespace != n.id.Namespace && (o.virtual || o.id.Namespace != "") {
			suspect = true
		} else if !sameCoordinates(ref, o.id) {
			suspect = true
		}
	}
	if suspect {
		g.toDelete.Add(n.id.UID)
	}
}

func (g *graph) removeFromOwners(n *node, refs []metav1.OwnerReference) {
	for _, ref := range refs {
		if o, ok := g.nodes[ref.UID]; ok {
			delete(o.dependents, n)
		}
	}
}

// wakeWaitingOwners queues the foreground-deleting owners of refs: the
// refs stopped blocking them.
func (g *graph) wakeWaitingOwners(refs []metav1.OwnerReference) {
	for _, ref := range refs {
		if o, ok := g.nodes[ref.UID]; ok && o.deletingDependents {
			g.toDelete.Add(o.id.UID)
		}
	}
}

// diffOwners compares two ownerReference lists by uid: references
// added, removed, and kept but no longer blocking (they were blocking
// before).
func diffOwners(old, cur []metav1.OwnerReference) (added, removed, unblocked []metav1.OwnerReference) {
	before := make(map[types.UID]metav1.OwnerReference, len(old))
	for _, ref := range old {
		before[ref.UID] = ref
	}
	for _, ref := range cur {
		prev, ok := before[ref.UID]
		if !ok {
			added = append(added, ref)
			continue
		}
		delete(before, ref.UID)
		if blocks(prev) && !blocks(ref) {
			unblocked = append(unblocked, prev)
		}
	}
	for _, ref := range old {
		if _, ok := before[ref.UID]; ok {
			removed = append(removed, ref)
		}
	}
	return added, removed, unblocked
}
