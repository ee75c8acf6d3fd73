package cache

import (
	"k8s.io/apimachinery/pkg/labels"
)

// Indexer is the read side of a Store that listers need.
type Indexer[T Object] interface {
	Get(key string) (T, bool)
	List() []T
	ByIndex(index, value string) ([]T, error)
}

// Lister reads objects from an Indexer by name, namespace and label
// selector. The objects are the cache's own: do not modify them.
type Lister[T Object] struct {
	idx Indexer[T]
}

// NewLister returns a lister over idx.
func NewLister[T Object](idx Indexer[T]) Lister[T] { return Lister[T]{idx: idx} }

// List returns the objects, in every namespace, whose labels match sel;
// a nil selector matches everything.
func (l Lister[T]) List(sel labels.Selector) []T {
	return filter(l.idx.List(), sel)
}

// Get returns a cluster-scoped object by name.
func (l Lister[T]) Get(name string) (T, bool) { return l.idx.Get(name) }

// Namespace narrows the lister to one namespace.
func (l Lister[T]) Namespace(ns string) NamespaceLister[T] {
	return NamespaceLister[T]{idx: l.idx, ns: ns}
}

// NamespaceLister reads the objects of one namespace.
type NamespaceLister[T Object] struct {
	idx Indexer[T]
	ns  string
}

// List returns the namespace's objects whose labels match sel; a nil
// selector matches everything.
func (l NamespaceLister[T]) List(sel labels.Selector) []T {
	objs, err := l.idx.ByIndex(NamespaceIndex, l.ns)
	if err != nil {
		// Not a Store: fall back to filtering everything.
		var all []T
		for _, o := range l.idx.List() {
			if o.GetNamespace() == l.ns {
				all = append(all, o)
			}
		}
		objs = all
	}
	return filter(objs, sel)
}

// Get returns the namespace's object called name.
func (l NamespaceLister[T]) Get(name string) (T, bool) {
	if l.ns == "" {
		return l.idx.Get(name)
	}
	return l.idx.Get(l.ns + "/" + name)
}

func filter[T Object](objs []T, sel labels.Selector) []T {
	if sel == nil || sel.Empty() {
		return objs
	}
	out := make([]T, 0, len(objs))
	for _, o := range objs {
		if sel.Matches(labels.Set(o.GetLabels())) {
			out = append(out, o)
		}
	}
	return out
}
