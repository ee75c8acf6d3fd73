package watchcache

import "sync"

// A writer in this process already holds the served form of what it just
// stored: it may Offer it, and the cache takes that object for the
// write's event instead of decoding the stored bytes again. Decoding is
// most of what applying an event costs, and a write is otherwise decoded
// twice (once to answer it, once here).

// maxOffers bounds the offers waiting. An offer whose event the cache
// applied before the offer arrived waits until the key is written again;
// past this many, such offers are dropped.
const maxOffers = 1024

// offers holds offered objects by key until their event is applied.
type offers struct {
	mu sync.Mutex
	m  map[string]*Object
}

// Offer gives the cache o, the served form (as the cache's decoder would
// build it) of the value stored under o.Key at o.Revision. An offer for
// a revision already applied, or that the cache cannot hold now, is
// dropped: the event is then decoded as usual.
func (s *Store) Offer(o *Object) {
	applied := s.rev.Load()
	if o.Revision <= applied {
		return
	}
	s.offered.mu.Lock()
	defer s.offered.mu.Unlock()
	if s.offered.m == nil {
		s.offered.m = map[string]*Object{}
	}
	if len(s.offered.m) >= maxOffers {
		for k, v := range s.offered.m {
			if v.Revision <= applied {
				delete(s.offered.m, k)
			}
		}
		if len(s.offered.m) >= maxOffers {
			return
		}
	}
	if prev := s.offered.m[o.Key]; prev == nil || prev.Revision < o.Revision {
		s.offered.m[o.Key] = o
	}
}

// take returns the object offered for key at rev, if any, and forgets
// offers for key at or before rev.
func (s *Store) take(key string, rev int64) *Object {
	s.offered.mu.Lock()
	defer s.offered.mu.Unlock()
	o := s.offered.m[key]
	if o == nil || o.Revision > rev {
		return nil
	}
	delete(s.offered.m, key)
	if o.Revision != rev {
		return nil
	}
	return o
}
