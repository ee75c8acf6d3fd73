package garbagecollector

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// twoCycle makes a owns b and b owns a, both references blocking, in
// the API and the graph.
func twoCycle(w *world) (a, b objectRef) {
	a = w.api.add("ConfigMap", "ns", "a")
	b = w.create("ConfigMap", "ns", "b", ownerOf(a, true))
	w.api.update(a, func(o *metav1.PartialObjectMetadata) { o.OwnerReferences = []metav1.OwnerReference{ownerOf(b, true)} })
	return a, b
}

func TestCycleFoundThroughTheAPIWhenTheGraphLags(t *testing.T) {
	w := newWorld(t)
	a, b := twoCycle(w)
	w.observe(a, nil) // a as owned by b, not yet seen deleting
	if err := w.api.Delete(t.Context(), metadataOf(a), fgPolicy()); err != nil {
		t.Fatal(err)
	}
	w.api.deletes = nil
	if err := w.attempt(b); err != nil {
		t.Fatal(err)
	}
	if refs := w.api.get(b).OwnerReferences; len(refs) != 1 || blocks(refs[0]) {
		t.Errorf("b's owners %v, want a, not blocking", refs)
	}
	if len(w.api.deletes) != 1 || w.api.deletes[0].policy != metav1.DeletePropagationForeground {
		t.Errorf("deletes %v, want b in the foreground", w.api.deletes)
	}
}

func TestWaitingOwnersInACycleAreUnblocked(t *testing.T) {
	w := newWorld(t)
	a, b := twoCycle(w)
	// Both were deleted in the foreground before either could be
	// unblocked: each waits for the other.
	for _, id := range []objectRef{a, b} {
		if err := w.api.Delete(t.Context(), metadataOf(id), fgPolicy()); err != nil {
			t.Fatal(err)
		}
		w.observe(id, nil)
	}
	if err := w.attempt(a); err != nil {
		t.Fatal(err)
	}
	if refs := w.api.get(b).OwnerReferences; len(refs) != 1 || blocks(refs[0]) {
		t.Errorf("b's owners %v, want a, not blocking", refs)
	}
	w.observe(b, nil)
	if err := w.attempt(a); err != nil {
		t.Fatal(err)
	}
	if w.api.get(a) != nil {
		t.Error("a should be released once b stopped blocking it")
	}
}
