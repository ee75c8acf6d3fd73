package cache

import (
	"sync"
)

// Store is a thread-safe map of objects by Key, with indexes. It holds
// the objects it is given, not copies, and hands the same pointers to
// every reader: nobody may modify an object once it is in a Store. Equal
// metadata of different objects (labels, annotations, owner references,
// finalizers, namespace) is one value in memory (see sharer), so a
// modification could even show in other objects.
//
// An Informer owns its Store and is its only writer; Upsert and Delete
// are for stores used on their own (in tests, say).
type Store[T Object] struct {
	mu       sync.RWMutex
	items    map[string]entry[T]
	indexers map[string]IndexFunc[T]
	indices  map[string]index
	// gen numbers listings: an entry carries the generation that last
	// reported it, and the end of a listing drops the older ones.
	gen     uint64
	checker *mutationChecker
	share   *sharer
}

type entry[T Object] struct {
	obj T
	gen uint64
	sum uint64 // checked mode: the object's hash when it was stored
}

// stored is an object with its checked-mode hash (0 when not checking).
type stored[T Object] struct {
	obj T
	sum uint64
}

// StoreOptions configure a Store.
type StoreOptions[T Object] struct {
	// Indexers are indexes besides NamespaceIndex.
	Indexers map[string]IndexFunc[T]
	// CheckMutations hashes each object when it is stored and reports to
	// OnMutation any object found changed when it is replaced, deleted or
	// Verified. It costs a JSON encoding per write; use it in tests.
	CheckMutations bool
	// OnMutation receives mutations found in checked mode; nil panics.
	OnMutation func(error)
}

// NewStore returns an empty store.
func NewStore[T Object](opts StoreOptions[T]) *Store[T] {
	s := &Store[T]{
		items:    map[string]entry[T]{},
		indexers: map[string]IndexFunc[T]{NamespaceIndex: namespaceIndexFunc[T]},
		indices:  map[string]index{NamespaceIndex: {}},
		share:    newSharer(),
	}
	if opts.CheckMutations {
		s.checker = newMutationChecker(opts.OnMutation)
	}
	for name, f := range opts.Indexers {
		s.indexers[name] = f
		s.indices[name] = index{}
	}
	return s
}

// Get returns the object stored under key.
func (s *Store[T]) Get(key string) (T, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.items[key]
	return e.obj, ok
}

// List returns every object, in no particular order.
func (s *Store[T]) List() []T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]T, 0, len(s.items))
	for _, e := range s.items {
		out = append(out, e.obj)
	}
	return out
}

// Keys returns every key, in no particular order.
func (s *Store[T]) Keys() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.items))
	for k := range s.items {
		out = append(out, k)
	}
	return out
}

// Len returns the number of objects.
func (s *Store[T]) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.items)
}

// Upsert stores obj, replacing and returning any object under its key.
func (s *Store[T]) Upsert(obj T) (old T, existed bool) {
	o, _, existed, _ := s.upsert(Key(obj), obj)
	return o.obj, existed
}

// Delete removes and returns the object under key.
func (s *Store[T]) Delete(key string) (old T, existed bool) {
	o, existed := s.delete(key)
	return o.obj, existed
}

// Verify checks, in checked mode, that no stored object was modified.
func (s *Store[T]) Verify() {
	if s.checker == nil {
		return
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for key, e := range s.items {
		s.checker.check(key, e.obj, e.sum, "in the store")
	}
}

// upsert stores obj and stamps it with the current listing. An object
// with the same non-empty resourceVersion as the one held is the same
// object: the held one stays, so a relist of unchanged objects allocates
// nothing that lives on and changes nothing a reader holds; same is true
// then.
func (s *Store[T]) upsert(key string, obj T) (old, cur stored[T], existed, same bool) {
	var sum uint64
	if s.checker != nil {
		sum = s.checker.sum(obj)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, existed := s.items[key]
	if existed {
		old = stored[T]{e.obj, e.sum}
		if s.checker != nil {
			s.checker.check(key, e.obj, e.sum, "in the store")
		}
		if rv := obj.GetResourceVersion(); rv != "" && rv == e.obj.GetResourceVersion() {
			e.gen = s.gen
			s.items[key] = e
			return old, old, true, true
		}
	}
	s.share.take(obj)
	s.items[key] = entry[T]{obj: obj, gen: s.gen, sum: sum}
	if existed {
		s.share.release(e.obj)
		s.reindex(key, &e.obj, &obj)
	} else {
		s.reindex(key, nil, &obj)
	}
	return old, stored[T]{obj, sum}, existed, false
}

func (s *Store[T]) delete(key string) (old stored[T], existed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, existed := s.items[key]
	if !existed {
		return old, false
	}
	if s.checker != nil {
		s.checker.check(key, e.obj, e.sum, "in the store")
	}
	delete(s.items, key)
	s.reindex(key, &e.obj, nil)
	s.share.release(e.obj)
	return stored[T]{e.obj, e.sum}, true
}

// beginListing starts a listing; upserts from now on belong to it.
func (s *Store[T]) beginListing() {
	s.mu.Lock()
	s.gen++
	s.mu.Unlock()
}

// endListing drops every object the current listing did not report and
// passes each to gone, in no particular order. It walks the store once
// and needs no set of the listed keys.
func (s *Store[T]) endListing(gone func(key string, last stored[T])) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, e := range s.items {
		if e.gen == s.gen {
			continue
		}
		if s.checker != nil {
			s.checker.check(key, e.obj, e.sum, "in the store")
		}
		delete(s.items, key)
		s.reindex(key, &e.obj, nil)
		s.share.release(e.obj)
		gone(key, stored[T]{e.obj, e.sum})
	}
}

type keyed[T Object] struct {
	key string
	stored[T]
}

// snapshot returns every object with its key and hash, for a handler that
// joins late and for resyncs.
func (s *Store[T]) snapshot() []keyed[T] {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]keyed[T], 0, len(s.items))
	for key, e := range s.items {
		out = append(out, keyed[T]{key, stored[T]{e.obj, e.sum}})
	}
	return out
}
