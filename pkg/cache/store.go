package cache

import (
	"bytes"
	"sync"
)

// Store is a thread-safe map of objects by Key, with indexes. It holds
// the objects it is given, not copies, and hands the same pointers to
// every reader: nobody may modify an object once it is in a Store. Equal
// metadata of different objects (labels, annotations, owner references,
// finalizers, namespace) is one value in memory (see sharer), so a
// modification could even show in other objects.
//
// A compact Store (StoreOptions.Compact) keeps encodings instead and
// decodes on every read: readers get objects of their own.
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
	codec   *codec[T] // compact stores only
}

type entry[T Object] struct {
	obj T
	raw []byte // a compact store's encoding of the object, which obj then is not
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
	// Compact keeps each object encoded (protobuf for the kinds that
	// have it, JSON for others), at about half the memory of the decoded
	// object, and decodes it on every read, so each read returns an
	// object of the caller's own: it costs a decode per object read
	// (and per update, for the handlers' old state) instead of a shared
	// pointer. For caches that hold many objects and are read little,
	// or read by a client that copies anyway. CheckMutations has nothing
	// to check then and is ignored.
	Compact bool
}

// NewStore returns an empty store.
func NewStore[T Object](opts StoreOptions[T]) *Store[T] {
	s := &Store[T]{
		items:    map[string]entry[T]{},
		indexers: map[string]IndexFunc[T]{NamespaceIndex: namespaceIndexFunc[T]},
		indices:  map[string]index{NamespaceIndex: {}},
		share:    newSharer(),
	}
	switch {
	case opts.Compact:
		s.codec = &codec[T]{}
	case opts.CheckMutations:
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
	return s.value(e), ok
}

// value is e's object, decoded if the store keeps it encoded.
func (s *Store[T]) value(e entry[T]) T {
	if e.raw != nil {
		return s.codec.decode(e.raw)
	}
	return e.obj
}

// List returns every object, in no particular order.
func (s *Store[T]) List() []T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]T, 0, len(s.items))
	for _, e := range s.items {
		out = append(out, s.value(e))
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
		if e.raw == nil {
			s.checker.check(key, e.obj, e.sum, "in the store")
		}
	}
}

// upsert stores obj and stamps it with the current listing. An object
// with the same non-empty resourceVersion as the one held (in a compact
// store: the same encoding) is the same object: the held one stays, so a
// relist of unchanged objects allocates nothing that lives on and changes
// nothing a reader holds; same is true then, and old and cur are obj in
// a compact store, which does not decode what it will not report.
func (s *Store[T]) upsert(key string, obj T) (old, cur stored[T], existed, same bool) {
	var sum uint64
	var raw []byte
	switch {
	case s.codec != nil:
		raw, _ = s.codec.encode(obj)
	case s.checker != nil:
		sum = s.checker.sum(obj)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, existed := s.items[key]
	if existed {
		if s.checker != nil {
			s.checker.check(key, e.obj, e.sum, "in the store")
		}
		switch {
		case e.raw != nil && bytes.Equal(raw, e.raw):
			e.gen = s.gen
			s.items[key] = e
			cur = stored[T]{obj: obj}
			return cur, cur, true, true
		case e.raw == nil && raw == nil && sameVersion(obj, e.obj):
			e.gen = s.gen
			s.items[key] = e
			old = stored[T]{e.obj, e.sum}
			return old, old, true, true
		}
		old = stored[T]{s.value(e), e.sum}
	}
	ne := entry[T]{raw: raw, gen: s.gen, sum: sum}
	if raw == nil {
		ne.obj = obj
		s.share.take(obj)
	}
	s.items[key] = ne
	if existed {
		if e.raw == nil {
			s.share.release(e.obj)
		}
		s.reindex(key, &old.obj, &obj)
	} else {
		s.reindex(key, nil, &obj)
	}
	return old, stored[T]{obj, sum}, existed, false
}

func sameVersion[T Object](a, b T) bool {
	rv := a.GetResourceVersion()
	return rv != "" && rv == b.GetResourceVersion()
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
	last := s.drop(key, e)
	return stored[T]{last, e.sum}, true
}

// drop unindexes e, which has left the store under key, and returns its
// object.
func (s *Store[T]) drop(key string, e entry[T]) T {
	obj := s.value(e)
	s.reindex(key, &obj, nil)
	if e.raw == nil {
		s.share.release(obj)
	}
	return obj
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
		gone(key, stored[T]{s.drop(key, e), e.sum})
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
		out = append(out, keyed[T]{key, stored[T]{s.value(e), e.sum}})
	}
	return out
}
