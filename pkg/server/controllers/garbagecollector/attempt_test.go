package garbagecollector

import (
	"errors"
	"io"
	"log/slog"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// world is a collector over a fake API whose graph the test feeds.
type world struct {
	t   *testing.T
	api *fakeAPI
	g   *graph
	c   *collector
	del *recorder
	orp *recorder
}

func newWorld(t *testing.T) *world {
	api := newFakeAPI()
	absent := newAbsentOwners(10)
	del, orp := &recorder{}, &recorder{}
	g := newGraph(absent, del, orp)
	c := &collector{graph: g, api: api, scopes: api, absent: absent, toDelete: del, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	return &world{t: t, api: api, g: g, c: c, del: del, orp: orp}
}

// create adds an object to the API and shows it to the graph.
func (w *world) create(kind, ns, name string, owners ...metav1.OwnerReference) objectRef {
	id := w.api.add(kind, ns, name, owners...)
	w.observe(id, nil)
	return id
}

// observe shows the graph the API's state of id; prev is what the
// graph saw last.
func (w *world) observe(id objectRef, prev *observation) observation {
	o := w.api.get(id)
	obs := observe(schema.GroupVersionKind{Version: "v1", Kind: id.Kind}, o)
	w.g.upsert(prev, obs)
	return obs
}

func (w *world) attempt(id objectRef) error {
	w.t.Helper()
	return w.c.attemptToDelete(w.t.Context(), id.UID)
}

func (w *world) owners(id objectRef) []types.UID {
	o := w.api.get(id)
	if o == nil {
		w.t.Fatalf("%s is gone", id.Name)
	}
	return uids(o.OwnerReferences)
}

func TestAttemptKeepsDependentOfLiveOwner(t *testing.T) {
	w := newWorld(t)
	owner := w.create("ConfigMap", "ns", "owner")
	dep := w.create("ConfigMap", "ns", "dep", ownerOf(owner, false))
	if err := w.attempt(dep); err != nil {
		t.Fatal(err)
	}
	if len(w.api.deletes) != 0 || len(w.api.patches) != 0 {
		t.Errorf("deletes %v patches %v, want none", w.api.deletes, w.api.patches)
	}
}

func TestAttemptDeletesOrphanedDependentWithPreconditions(t *testing.T) {
	w := newWorld(t)
	ghost := objectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "ghost", UID: "never"}
	dep := w.create("ConfigMap", "ns", "dep", ownerOf(ghost, false))
	rv := w.api.get(dep).ResourceVersion
	if err := w.attempt(dep); err != nil {
		t.Fatal(err)
	}
	want := deleteCall{name: "dep", policy: metav1.DeletePropagationBackground, uid: dep.UID, rv: rv}
	if len(w.api.deletes) != 1 || w.api.deletes[0] != want {
		t.Errorf("deletes %v, want %v", w.api.deletes, want)
	}
	if !w.c.absent.has(ghost) {
		t.Error("the missing owner should be remembered as absent")
	}
}

func TestAttemptStripsDeadOwnerBesideLiveOne(t *testing.T) {
	w := newWorld(t)
	live := w.create("ConfigMap", "ns", "live")
	dead := objectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "dead", UID: "dead"}
	dep := w.create("ConfigMap", "ns", "dep", ownerOf(live, false), ownerOf(dead, false))
	if err := w.attempt(dep); err != nil {
		t.Fatal(err)
	}
	if len(w.api.deletes) != 0 {
		t.Errorf("deletes %v, want none", w.api.deletes)
	}
	if got := w.owners(dep); len(got) != 1 || got[0] != live.UID {
		t.Errorf("owners %v, want only the live one", got)
	}
}

func TestAttemptTreatsRecreatedOwnerAsAbsent(t *testing.T) {
	w := newWorld(t)
	old := objectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "owner", UID: "old"}
	w.create("ConfigMap", "ns", "owner") // same name, new uid
	dep := w.create("ConfigMap", "ns", "dep", ownerOf(old, false))
	if err := w.attempt(dep); err != nil {
		t.Fatal(err)
	}
	if len(w.api.deletes) != 1 || w.api.deletes[0].name != "dep" {
		t.Errorf("deletes %v, want the dependent", w.api.deletes)
	}
}

func TestAttemptOwnerInAnotherNamespaceIsAbsent(t *testing.T) {
	w := newWorld(t)
	owner := w.create("ConfigMap", "other", "owner")
	dep := w.create("ConfigMap", "ns", "dep", ownerOf(owner, false))
	if err := w.attempt(dep); err != nil {
		t.Fatal(err)
	}
	if len(w.api.deletes) != 1 || w.api.deletes[0].name != "dep" {
		t.Errorf("deletes %v, want the dependent", w.api.deletes)
	}
	if w.api.get(owner) == nil {
		t.Error("the owner in the other namespace was touched")
	}
}

func TestAttemptClusterScopedDependentOfNamespacedOwner(t *testing.T) {
	w := newWorld(t)
	ghost := objectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "ghost", UID: "never"}
	dep := w.create("Gadget", "", "dep", ownerOf(ghost, false))
	if err := w.attempt(dep); !errors.Is(err, ErrNamespacedOwnerOfClusterScoped) {
		t.Fatalf("err %v, want ErrNamespacedOwnerOfClusterScoped", err)
	}
	if len(w.api.deletes) != 0 {
		t.Errorf("deletes %v, want none", w.api.deletes)
	}
}

func TestAttemptClusterScopedOwnerOfNamespacedDependent(t *testing.T) {
	w := newWorld(t)
	owner := w.create("Gadget", "", "owner")
	dep := w.create("ConfigMap", "ns", "dep", ownerOf(owner, false))
	if err := w.attempt(dep); err != nil {
		t.Fatal(err)
	}
	if len(w.api.deletes) != 0 {
		t.Fatalf("deletes %v, want none while the owner lives", w.api.deletes)
	}
	w.api.mu.Lock()
	delete(w.api.objs, w.api.key("Gadget", "", "owner"))
	w.api.mu.Unlock()
	w.g.remove(observation{id: owner})
	if err := w.attempt(dep); err != nil {
		t.Fatal(err)
	}
	if len(w.api.deletes) != 1 || w.api.deletes[0].name != "dep" {
		t.Errorf("deletes %v, want the dependent", w.api.deletes)
	}
}

func TestAttemptUnderForegroundOwner(t *testing.T) {
	for _, tc := range []struct {
		name          string
		withDependent bool
		want          metav1.DeletionPropagation
	}{
		{"leaf is deleted in the background", false, metav1.DeletePropagationBackground},
		{"dependent with dependents is deleted in the foreground", true, metav1.DeletePropagationForeground},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			owner := w.create("ConfigMap", "ns", "owner")
			dep := w.create("ConfigMap", "ns", "dep", ownerOf(owner, true))
			if tc.withDependent {
				w.create("ConfigMap", "ns", "leaf", ownerOf(dep, true))
			}
			if err := w.api.Delete(t.Context(), metadataOf(owner), fgPolicy()); err != nil {
				t.Fatal(err)
			}
			w.api.deletes = nil
			if err := w.attempt(dep); err != nil {
				t.Fatal(err)
			}
			if len(w.api.deletes) != 1 || w.api.deletes[0].name != "dep" || w.api.deletes[0].policy != tc.want {
				t.Errorf("deletes %v, want dep with %s", w.api.deletes, tc.want)
			}
		})
	}
}

func fgPolicy() interface {
	ApplyToDelete(*metav1.DeleteOptions)
} {
	p := metav1.DeletePropagationForeground
	return propagation(p)
}

type propagation metav1.DeletionPropagation

func (p propagation) ApplyToDelete(o *metav1.DeleteOptions) {
	v := metav1.DeletionPropagation(p)
	o.PropagationPolicy = &v
}

func TestAttemptBreaksForegroundCycle(t *testing.T) {
	w := newWorld(t)
	a := w.api.add("ConfigMap", "ns", "a")
	b := w.create("ConfigMap", "ns", "b", ownerOf(a, true))
	w.api.update(a, func(o *metav1.PartialObjectMetadata) { o.OwnerReferences = []metav1.OwnerReference{ownerOf(b, true)} })
	if err := w.api.Delete(t.Context(), metadataOf(a), fgPolicy()); err != nil {
		t.Fatal(err)
	}
	w.observe(a, nil) // a is seen deleting its dependents
	w.api.deletes = nil
	if err := w.attempt(b); err != nil {
		t.Fatal(err)
	}
	refs := w.api.get(b).OwnerReferences
	if len(refs) != 1 || blocks(refs[0]) {
		t.Errorf("b's reference to a %v, want it kept, not blocking", refs)
	}
	if len(w.api.deletes) != 1 || w.api.deletes[0].name != "b" || w.api.deletes[0].policy != metav1.DeletePropagationForeground {
		t.Errorf("deletes %v, want b in the foreground", w.api.deletes)
	}
}

func TestProcessDeletingDependents(t *testing.T) {
	w := newWorld(t)
	owner := w.create("ConfigMap", "ns", "owner")
	blocking := w.create("ConfigMap", "ns", "blocking", ownerOf(owner, true))
	w.create("ConfigMap", "ns", "free", ownerOf(owner, false))
	prev := w.observe(owner, nil)
	if err := w.api.Delete(t.Context(), metadataOf(owner), fgPolicy()); err != nil {
		t.Fatal(err)
	}
	w.observe(owner, &prev)
	w.del.take()
	if err := w.attempt(owner); err != nil {
		t.Fatal(err)
	}
	sameUIDs(t, "owner waiting", w.del.take(), blocking.UID)
	if w.api.get(owner) == nil {
		t.Fatal("the owner went while a blocking dependent lives")
	}
	w.g.remove(observation{id: blocking})
	if err := w.attempt(owner); err != nil {
		t.Fatal(err)
	}
	if w.api.get(owner) != nil {
		t.Error("the owner should go once no blocking dependent is left")
	}
}

func TestAttemptOnAbsentItemTellsTheGraph(t *testing.T) {
	w := newWorld(t)
	ghost := objectRef{APIVersion: "v1", Kind: "Gadget", Namespace: "ns", Name: "ghost", UID: "never"}
	dep := w.create("ConfigMap", "ns", "dep", ownerOf(ghost, false))
	w.del.take()
	if err := w.attempt(ghost); !errors.Is(err, errAbsent) {
		t.Fatalf("err %v, want errAbsent", err)
	}
	if _, ok := w.g.item(ghost.UID); ok {
		t.Error("the absent virtual node is still in the graph")
	}
	sameUIDs(t, "after the owner was found absent", w.del.take(), dep.UID)
	// A cluster-scoped owner is absent cluster-wide, not in the
	// dependent's namespace.
	ghost.Namespace = ""
	if !w.c.absent.has(ghost) {
		t.Error("the absent cluster-scoped owner should be remembered without a namespace")
	}
}

func TestDeleteRetriesOnUnrelatedChange(t *testing.T) {
	for _, tc := range []struct {
		name        string
		edit        func(*metav1.PartialObjectMetadata)
		wantDeleted bool
	}{
		{"labels changed", func(o *metav1.PartialObjectMetadata) { o.Labels = map[string]string{"x": "y"} }, true},
		{"owners changed", func(o *metav1.PartialObjectMetadata) { o.OwnerReferences = nil }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			ghost := objectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "ghost", UID: "never"}
			dep := w.create("ConfigMap", "ns", "dep", ownerOf(ghost, false))
			w.api.beforeDelete = func() { w.api.update(dep, tc.edit) }
			err := w.attempt(dep)
			if gone := w.api.get(dep) == nil; gone != tc.wantDeleted {
				t.Errorf("deleted %v, want %v (err %v)", gone, tc.wantDeleted, err)
			}
			if !tc.wantDeleted && err == nil {
				t.Error("a conflict on changed owners should be an error, to judge again")
			}
		})
	}
}

func TestOrphanReleasesDependentsThenOwner(t *testing.T) {
	w := newWorld(t)
	owner := w.create("ConfigMap", "ns", "owner")
	other := w.create("ConfigMap", "ns", "other")
	d1 := w.create("ConfigMap", "ns", "d1", ownerOf(owner, true))
	d2 := w.create("ConfigMap", "ns", "d2", ownerOf(owner, false), ownerOf(other, false))
	prev := w.observe(owner, nil)
	orphan := propagation(metav1.DeletePropagationOrphan)
	if err := w.api.Delete(t.Context(), metadataOf(owner), orphan); err != nil {
		t.Fatal(err)
	}
	w.observe(owner, &prev)
	sameUIDs(t, "orphan queue", w.orp.take(), owner.UID)
	if err := w.c.attemptToOrphan(t.Context(), owner.UID); err != nil {
		t.Fatal(err)
	}
	if got := w.owners(d1); len(got) != 0 {
		t.Errorf("d1 owners %v, want none", got)
	}
	if got := w.owners(d2); len(got) != 1 || got[0] != other.UID {
		t.Errorf("d2 owners %v, want only the other owner", got)
	}
	if w.api.get(owner) != nil {
		t.Error("the owner should go once its orphan finalizer is removed")
	}
}
