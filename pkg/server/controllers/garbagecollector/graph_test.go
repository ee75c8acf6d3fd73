package garbagecollector

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// observed is an observed ConfigMap.
func observed(ns, name string, uid types.UID, owners ...metav1.OwnerReference) observation {
	return observation{id: objectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: name, UID: uid}, owners: owners}
}

func deleting(o observation, finalizers ...string) observation {
	o.deleting = true
	o.finalizers = finalizers
	return o
}

func newTestGraph() (*graph, *recorder, *recorder) {
	del, orph := &recorder{}, &recorder{}
	return newGraph(newAbsentOwners(10), del, orph), del, orph
}

func sameUIDs(t *testing.T, what string, got []types.UID, want ...types.UID) {
	t.Helper()
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	g, w = slices.Compact(g), slices.Compact(w)
	if !slices.Equal(g, w) {
		t.Errorf("%s: queued %v, want %v", what, got, want)
	}
}

func TestGraphUnseenOwnerIsVirtualAndChecked(t *testing.T) {
	g, del, _ := newTestGraph()
	owner := observed("ns", "owner", "o")
	g.upsert(nil, observed("ns", "dep", "d", ownerOf(owner.id, false)))
	sameUIDs(t, "dependent added", del.take(), "o")
	if !g.isVirtual("o") {
		t.Fatal("an owner no informer reported should be virtual")
	}
	g.upsert(nil, owner)
	if g.isVirtual("o") {
		t.Fatal("an observed owner should not be virtual")
	}
	sameUIDs(t, "owner observed", del.take())
	if _, deps, _ := g.dependentsOf("o"); len(deps) != 1 || deps[0].UID != "d" {
		t.Fatalf("dependents of the owner: %v", deps)
	}
}

func TestGraphOwnerGoneQueuesDependents(t *testing.T) {
	g, del, _ := newTestGraph()
	owner := observed("ns", "owner", "o")
	g.upsert(nil, owner)
	g.upsert(nil, observed("ns", "dep", "d", ownerOf(owner.id, false)))
	del.take()
	g.remove(owner)
	sameUIDs(t, "owner deleted", del.take(), "d")
	if !g.absent.has(owner.id) {
		t.Error("a deleted owner with dependents should be remembered as absent")
	}
	if _, ok := g.item("o"); ok {
		t.Error("the deleted owner is still in the graph")
	}
}

func TestGraphForegroundStartQueuesOwnerAndDependents(t *testing.T) {
	g, del, orph := newTestGraph()
	owner := observed("ns", "owner", "o")
	g.upsert(nil, owner)
	g.upsert(nil, observed("ns", "dep", "d", ownerOf(owner.id, true)))
	del.take()
	fg := deleting(owner, metav1.FinalizerDeleteDependents)
	g.upsert(&owner, fg)
	sameUIDs(t, "foreground deletion started", del.take(), "o", "d")
	if it, _ := g.item("o"); !it.deletingDependents || !it.beingDeleted {
		t.Errorf("owner state %+v, want deleting its dependents", it)
	}
	g.upsert(&fg, fg) // a resync
	sameUIDs(t, "resync", del.take())
	sameUIDs(t, "orphan queue", orph.take())
}

func TestGraphOrphanStartQueuesOwner(t *testing.T) {
	g, del, orph := newTestGraph()
	owner := observed("", "owner", "o")
	g.upsert(nil, owner)
	del.take()
	g.upsert(&owner, deleting(owner, metav1.FinalizerOrphanDependents))
	sameUIDs(t, "orphan started", orph.take(), "o")
	sameUIDs(t, "delete queue", del.take())
}

func TestGraphUnblockingWakesWaitingOwner(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after func(owner objectRef) []metav1.OwnerReference
	}{
		{"reference no longer blocks", func(o objectRef) []metav1.OwnerReference { return []metav1.OwnerReference{ownerOf(o, false)} }},
		{"reference removed", func(objectRef) []metav1.OwnerReference { return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, del, _ := newTestGraph()
			owner := deleting(observed("ns", "owner", "o"), metav1.FinalizerDeleteDependents)
			g.upsert(nil, owner)
			dep := observed("ns", "dep", "d", ownerOf(owner.id, true))
			g.upsert(nil, dep)
			if got := g.blockingDependents("o"); len(got) != 1 {
				t.Fatalf("blocking dependents %v, want the dependent", got)
			}
			del.take()
			g.upsert(&dep, observed("ns", "dep", "d", tc.after(owner.id)...))
			sameUIDs(t, "after the change", del.take(), "o")
			if got := g.blockingDependents("o"); len(got) != 0 {
				t.Errorf("blocking dependents %v, want none", got)
			}
		})
	}
}

func TestGraphDependentGoneWakesWaitingOwner(t *testing.T) {
	g, del, _ := newTestGraph()
	owner := deleting(observed("ns", "owner", "o"), metav1.FinalizerDeleteDependents)
	g.upsert(nil, owner)
	dep := observed("ns", "dep", "d", ownerOf(owner.id, true))
	g.upsert(nil, dep)
	del.take()
	g.remove(dep)
	sameUIDs(t, "dependent deleted", del.take(), "o")
}

func TestGraphOwnerInAnotherNamespaceIsChecked(t *testing.T) {
	g, del, _ := newTestGraph()
	owner := observed("ns1", "owner", "o")
	g.upsert(nil, owner)
	del.take()
	g.upsert(nil, observed("ns2", "dep", "d", ownerOf(owner.id, false)))
	sameUIDs(t, "dependent elsewhere", del.take(), "d")
	g.upsert(nil, observed("ns1", "dep2", "d2", ownerOf(owner.id, false)))
	sameUIDs(t, "dependent beside its owner", del.take())
}

func TestGraphVirtualDeleteKeepsOtherNames(t *testing.T) {
	g, del, _ := newTestGraph()
	a := objectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "a", UID: "o"}
	b := a
	b.Name = "b"
	g.upsert(nil, observed("ns", "d1", "d1", ownerOf(a, false)))
	g.upsert(nil, observed("ns", "d2", "d2", ownerOf(b, false)))
	del.take()
	g.virtualDelete(a)
	sameUIDs(t, "absent as a", del.take(), "d1", "o")
	it, ok := g.item("o")
	if !ok || !it.virtual || it.id != b {
		t.Fatalf("node after the virtual delete: %+v %v, want virtual as %v", it, ok, b)
	}
	if !g.absent.has(a) || g.absent.has(b) {
		t.Error("only the identity the API answered for is absent")
	}
	g.virtualDelete(b)
	sameUIDs(t, "absent as b", del.take(), "d1", "d2")
	if _, ok := g.item("o"); ok {
		t.Error("a virtual node absent under every name should go")
	}
}

func TestGraphVirtualDeleteOfAnotherIdentityKeepsObservedNode(t *testing.T) {
	g, del, _ := newTestGraph()
	owner := observed("ns", "owner", "o")
	g.upsert(nil, owner)
	wrong := owner.id
	wrong.Name = "other"
	g.upsert(nil, observed("ns", "dep", "d", ownerOf(wrong, false)))
	sameUIDs(t, "misnamed owner", del.take(), "d")
	g.virtualDelete(wrong)
	sameUIDs(t, "misnamed owner absent", del.take(), "d")
	if _, ok := g.item("o"); !ok {
		t.Error("an observed node must survive a virtual delete under another name")
	}
}

func TestDiffOwners(t *testing.T) {
	a := ownerOf(objectRef{Name: "a", UID: "a"}, true)
	b := ownerOf(objectRef{Name: "b", UID: "b"}, false)
	c := ownerOf(objectRef{Name: "c", UID: "c"}, false)
	aFree := ownerOf(objectRef{Name: "a", UID: "a"}, false)
	added, removed, unblocked := diffOwners([]metav1.OwnerReference{a, b}, []metav1.OwnerReference{aFree, c})
	if len(added) != 1 || added[0].UID != "c" || len(removed) != 1 || removed[0].UID != "b" || len(unblocked) != 1 || unblocked[0].UID != "a" {
		t.Errorf("added %v removed %v unblocked %v", added, removed, unblocked)
	}
}

func TestAbsentOwnersForgetsOldest(t *testing.T) {
	a := newAbsentOwners(2)
	ids := []objectRef{{UID: "1"}, {UID: "2"}, {UID: "3"}}
	for _, id := range ids {
		a.add(id)
	}
	if a.has(ids[0]) || !a.has(ids[1]) || !a.has(ids[2]) {
		t.Errorf("want the oldest forgotten, the rest kept")
	}
}
