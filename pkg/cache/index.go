package cache

import (
	"fmt"
	"slices"
)

// IndexFunc returns the values under which an index files obj; an object
// may be filed under none, one or several.
type IndexFunc[T Object] func(obj T) []string

// NamespaceIndex is the index every Store has: objects by namespace
// ("" for cluster-scoped ones).
const NamespaceIndex = "namespace"

func namespaceIndexFunc[T Object](obj T) []string { return []string{obj.GetNamespace()} }

// index maps an index value to the keys filed under it.
type index map[string]map[string]struct{}

func (ix index) add(key string, values []string) {
	for _, v := range values {
		set := ix[v]
		if set == nil {
			set = map[string]struct{}{}
			ix[v] = set
		}
		set[key] = struct{}{}
	}
}

func (ix index) remove(key string, values []string) {
	for _, v := range values {
		set := ix[v]
		delete(set, key)
		if len(set) == 0 {
			delete(ix, v)
		}
	}
}

// reindex moves key from its old values to its new ones; most updates
// change no indexed value and cost two calls of f.
func (s *Store[T]) reindex(key string, old, new *T) {
	for name, f := range s.indexers {
		var before, after []string
		if old != nil {
			before = f(*old)
		}
		if new != nil {
			after = f(*new)
		}
		if slices.Equal(before, after) {
			continue
		}
		ix := s.indices[name]
		ix.remove(key, before)
		ix.add(key, after)
	}
}

// AddIndexers adds indexes, filling them from the objects already held.
// Index names must be new.
func (s *Store[T]) AddIndexers(indexers map[string]IndexFunc[T]) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name := range indexers {
		if _, ok := s.indexers[name]; ok {
			return fmt.Errorf("cache: index %q already exists", name)
		}
	}
	for name, f := range indexers {
		s.indexers[name] = f
		ix := index{}
		for key, e := range s.items {
			ix.add(key, f(s.value(e)))
		}
		s.indices[name] = ix
	}
	return nil
}

// ByIndex returns the objects filed under value in the named index.
func (s *Store[T]) ByIndex(name, value string) ([]T, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ix, ok := s.indices[name]
	if !ok {
		return nil, fmt.Errorf("cache: no index %q", name)
	}
	set := ix[value]
	out := make([]T, 0, len(set))
	for key := range set {
		out = append(out, s.value(s.items[key]))
	}
	return out, nil
}

// IndexKeys returns the keys filed under value in the named index.
func (s *Store[T]) IndexKeys(name, value string) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ix, ok := s.indices[name]
	if !ok {
		return nil, fmt.Errorf("cache: no index %q", name)
	}
	out := make([]string, 0, len(ix[value]))
	for key := range ix[value] {
		out = append(out, key)
	}
	return out, nil
}
