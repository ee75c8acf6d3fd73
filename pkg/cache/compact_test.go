package cache

import (
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// richConfigMap has a field of every shape the metadata has.
func richConfigMap() *corev1.ConfigMap {
	c := cm("a", "x", "7", "k", "v", "empty", "")
	c.UID = types.UID("6a3c1a4e-0000-4000-8000-000000000001")
	c.Labels = map[string]string{"app": "web"}
	c.Annotations = map[string]string{"note": "kept"}
	c.Finalizers = []string{"example.com/cleanup"}
	c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "u1"}}
	c.CreationTimestamp = metav1.NewTime(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC))
	c.BinaryData = map[string][]byte{"bin": {0, 1, 2}}
	return c
}

// TestCompactRoundTrip checks that what a compact store returns is what
// it was given, for each encoding, and that every read is a copy of the
// reader's own.
func TestCompactRoundTrip(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "foo.example.com/v1", "kind": "Foo",
		"metadata": map[string]any{"namespace": "a", "name": "x", "resourceVersion": "3", "labels": map[string]any{"app": "web"}},
		"spec":     map[string]any{"replicas": int64(3), "ratio": 0.5, "tags": []any{"a", "b"}, "on": true},
	}}
	meta := &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "x", ResourceVersion: "4", Labels: map[string]string{"app": "web"}},
	}
	t.Run("protobuf", func(t *testing.T) { roundTrip(t, richConfigMap()) })
	t.Run("json", func(t *testing.T) { roundTrip(t, u) })
	t.Run("metadata", func(t *testing.T) { roundTrip(t, meta) })
}

// roundTrip compares semantically: protobuf reads times back in the local
// zone, as it does for every protobuf client.
func roundTrip[T Object](t *testing.T, in T) {
	t.Helper()
	s := NewStore(StoreOptions[T]{Compact: true})
	want := in.DeepCopyObject().(T)
	s.Upsert(in)
	if e := s.items[Key(in)]; e.raw == nil {
		t.Fatal("the object is not kept encoded")
	}
	got, ok := s.Get(Key(in))
	if !ok {
		t.Fatal("not found")
	}
	if !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("read back\n got %#v\nwant %#v", got, want)
	}
	if any(got) == any(in) {
		t.Error("Get returned the object stored, not a copy")
	}
	// A reader may change its copy: the store does not see it.
	got.SetLabels(map[string]string{"changed": "yes"})
	again, _ := s.Get(Key(in))
	if !equality.Semantic.DeepEqual(again, want) {
		t.Errorf("a reader's change reached the store: %v", again.GetLabels())
	}
	if l := s.List(); len(l) != 1 || !equality.Semantic.DeepEqual(l[0], want) {
		t.Errorf("List = %v", l)
	}
}

func TestCompactSameEncodingIsSameObject(t *testing.T) {
	s := NewStore(StoreOptions[CM]{Compact: true})
	s.Upsert(cm("a", "x", "5", "k", "v"))
	held := s.items["a/x"].raw
	_, _, existed, same := s.upsert("a/x", cm("a", "x", "5", "k", "v"))
	if !existed || !same {
		t.Errorf("equal object: existed %v same %v", existed, same)
	}
	if &s.items["a/x"].raw[0] != &held[0] {
		t.Error("the held encoding was replaced by an equal one")
	}
	old, cur, _, same := s.upsert("a/x", cm("a", "x", "6", "k", "w"))
	if same {
		t.Fatal("a new version counted as the same")
	}
	if got, want := old.obj.Data["k"]+"@"+old.obj.ResourceVersion, "v@5"; got != want {
		t.Errorf("old = %s, want %s", got, want)
	}
	if got, want := cur.obj.Data["k"]+"@"+cur.obj.ResourceVersion, "w@6"; got != want {
		t.Errorf("cur = %s, want %s", got, want)
	}
}

// TestCompactKeepsOddObjectsAsTheyAre: the codec learns the kind from the
// first object; one of another kind (possible only through a store used
// on its own) is held decoded rather than misread later.
func TestCompactKeepsOddObjectsAsTheyAre(t *testing.T) {
	s := NewStore(StoreOptions[CM]{Compact: true})
	s.Upsert(cm("a", "x", "1"))
	odd := cm("a", "y", "1")
	odd.SetGroupVersionKind(schema.GroupVersionKind{Group: "other", Version: "v1", Kind: "ConfigMap"})
	s.Upsert(odd)
	if got, _ := s.Get("a/y"); got != odd {
		t.Error("an object of another kind was not held as it is")
	}
	if got, _ := s.Get("a/x"); got.GroupVersionKind() != (schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}) {
		t.Errorf("decoded kind = %v", got.GroupVersionKind())
	}
	if _, existed := s.Delete("a/y"); !existed || s.Len() != 1 {
		t.Error("delete of the odd object")
	}
}

// TestCompactInformer: handlers and listers of a compact informer see what
// those of a plain one see.
func TestCompactInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{}
		opts := quietOpts()
		opts.Compact = true
		opts.Indexers = map[string]IndexFunc[CM]{"k": func(c CM) []string { return []string{c.Data["k"]} }}
		inf := NewInformer[CM](lw, opts)
		h := &calls[CM]{}
		if _, err := inf.AddHandler(h, HandlerOptions{}); err != nil {
			t.Fatal(err)
		}
		runInformer(t, inf)
		synctest.Wait()
		streamState(lw.lastWatch(), "3", cm("a", "x", "1", "k", "1"), cm("a", "y", "2", "k", "1"), cm("a", "z", "3", "k", "2"))
		synctest.Wait()
		eq(t, "initial", h.take(), []string{"add a/x@1 initial", "add a/y@2 initial", "add a/z@3 initial"})

		lw.lastWatch().Error(expiredStatus())
		synctest.Wait()
		streamState(lw.lastWatch(), "9", cm("a", "x", "1", "k", "1"), cm("a", "y", "5", "k", "2"), cm("a", "w", "6", "k", "2"))
		synctest.Wait()
		eq(t, "after relist", h.take(), []string{"update a/y@2->5", "add a/w@6", "delete a/z@3"})
		got, err := inf.Indexer().ByIndex("k", "2")
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "k=2", names(got), []string{"a/w", "a/y"})
		if old := h.pairs[0][0]; old.Data["k"] != "1" {
			t.Errorf("update's old state = %v", old.Data)
		}
	})
}
