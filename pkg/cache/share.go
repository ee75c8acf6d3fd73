package cache

import (
	"hash/maphash"
	"maps"
	"reflect"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Cached objects are never modified, so equal parts of different objects
// can be one value in memory. Objects of one kind repeat a lot: every
// object of a namespace names it, the pods of a ReplicaSet carry the same
// labels and owner references, objects written by one tool carry the same
// annotations. A Store therefore swaps the labels, annotations, owner
// references, finalizers, namespace and type strings of each object it
// takes for an equal value it already holds, and counts references so a
// value leaves the table with the last object using it. Unstructured
// objects are left alone: their metadata lives in nested maps the
// accessors copy.

// sharer holds the shared values of one Store; the Store's lock guards it.
type sharer struct {
	strings     table[string]
	labels      table[map[string]string]
	annotations table[map[string]string]
	owners      table[[]metav1.OwnerReference]
	finalizers  table[[]string]
}

func newSharer() *sharer {
	seed := maphash.MakeSeed()
	sameMap := func(a, b map[string]string) bool {
		return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
	}
	stringMap := func() table[map[string]string] {
		return table[map[string]string]{
			hash:  func(m map[string]string) uint64 { return hashStringMap(seed, m) },
			equal: maps.Equal[map[string]string, map[string]string],
			same:  sameMap,
		}
	}
	return &sharer{
		strings: table[string]{
			hash:  func(s string) uint64 { return maphash.String(seed, s) },
			equal: func(a, b string) bool { return a == b },
			same:  func(a, b string) bool { return a == b },
		},
		labels:      stringMap(),
		annotations: stringMap(),
		owners: table[[]metav1.OwnerReference]{
			hash:  func(refs []metav1.OwnerReference) uint64 { return hashOwners(seed, refs) },
			equal: func(a, b []metav1.OwnerReference) bool { return slices.EqualFunc(a, b, sameOwner) },
			same:  func(a, b []metav1.OwnerReference) bool { return &a[0] == &b[0] },
		},
		finalizers: table[[]string]{
			hash: func(f []string) uint64 {
				var h uint64
				for _, s := range f {
					h = h*31 + maphash.String(seed, s)
				}
				return h
			},
			equal: slices.Equal[[]string],
			same:  func(a, b []string) bool { return &a[0] == &b[0] },
		},
	}
}

// take makes obj use shared values; obj must not be visible to anyone
// else yet.
func (s *sharer) take(obj Object) {
	if _, ok := obj.(runtime.Unstructured); ok {
		return
	}
	if tm, ok := obj.GetObjectKind().(*metav1.TypeMeta); ok {
		tm.APIVersion = s.takeString(tm.APIVersion)
		tm.Kind = s.takeString(tm.Kind)
	}
	obj.SetNamespace(s.takeString(obj.GetNamespace()))
	if l := obj.GetLabels(); len(l) > 0 {
		obj.SetLabels(s.labels.take(l))
	}
	if a := obj.GetAnnotations(); len(a) > 0 {
		obj.SetAnnotations(s.annotations.take(a))
	}
	if o := obj.GetOwnerReferences(); len(o) > 0 {
		obj.SetOwnerReferences(s.owners.take(o))
	}
	if f := obj.GetFinalizers(); len(f) > 0 {
		obj.SetFinalizers(s.finalizers.take(f))
	}
}

// release drops obj's references; obj leaves the Store.
func (s *sharer) release(obj Object) {
	if _, ok := obj.(runtime.Unstructured); ok {
		return
	}
	if tm, ok := obj.GetObjectKind().(*metav1.TypeMeta); ok {
		s.releaseString(tm.APIVersion)
		s.releaseString(tm.Kind)
	}
	s.releaseString(obj.GetNamespace())
	if l := obj.GetLabels(); len(l) > 0 {
		s.labels.release(l)
	}
	if a := obj.GetAnnotations(); len(a) > 0 {
		s.annotations.release(a)
	}
	if o := obj.GetOwnerReferences(); len(o) > 0 {
		s.owners.release(o)
	}
	if f := obj.GetFinalizers(); len(f) > 0 {
		s.finalizers.release(f)
	}
}

func (s *sharer) takeString(v string) string {
	if v == "" {
		return v
	}
	return s.strings.take(v)
}

func (s *sharer) releaseString(v string) {
	if v != "" {
		s.strings.release(v)
	}
}

// table is a reference-counted set of values, by content.
type table[V any] struct {
	m     map[uint64]*shared[V]
	hash  func(V) uint64
	equal func(a, b V) bool
	// same tells the very value the table holds from an equal copy, so
	// a release of a value the table never handed out changes nothing.
	same func(a, b V) bool
}

type shared[V any] struct {
	v    V
	refs int
	next *shared[V] // same hash, different content
}

func (t *table[V]) take(v V) V {
	h := t.hash(v)
	for e := t.m[h]; e != nil; e = e.next {
		if t.equal(e.v, v) {
			e.refs++
			return e.v
		}
	}
	if t.m == nil {
		t.m = map[uint64]*shared[V]{}
	}
	t.m[h] = &shared[V]{v: v, refs: 1, next: t.m[h]}
	return v
}

func (t *table[V]) release(v V) {
	h := t.hash(v)
	var prev *shared[V]
	for e := t.m[h]; e != nil; prev, e = e, e.next {
		if !t.same(e.v, v) {
			continue
		}
		if e.refs--; e.refs > 0 {
			return
		}
		switch {
		case prev != nil:
			prev.next = e.next
		case e.next != nil:
			t.m[h] = e.next
		default:
			delete(t.m, h)
		}
		return
	}
}

// len is the number of distinct values held.
func (t *table[V]) len() int {
	n := 0
	for _, e := range t.m {
		for ; e != nil; e = e.next {
			n++
		}
	}
	return n
}

// hashStringMap does not depend on iteration order.
func hashStringMap(seed maphash.Seed, m map[string]string) uint64 {
	h := uint64(len(m))
	for k, v := range m {
		h += maphash.String(seed, k)*0x9e3779b97f4a7c15 ^ maphash.String(seed, v)
	}
	return h
}

func hashOwners(seed maphash.Seed, refs []metav1.OwnerReference) uint64 {
	var h uint64
	for _, r := range refs {
		h = h*31 + maphash.String(seed, string(r.UID)) ^ maphash.String(seed, r.Name)
	}
	return h
}

func sameOwner(a, b metav1.OwnerReference) bool {
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		equalBoolPtr(a.Controller, b.Controller) && equalBoolPtr(a.BlockOwnerDeletion, b.BlockOwnerDeletion)
}

func equalBoolPtr(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
