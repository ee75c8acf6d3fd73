package watchcache

import (
	"bytes"
	"slices"
	"sync"
)

// A writer in this process already holds the served form of what it is
// about to store: it may Offer it, and the cache takes that object for
// the write's event instead of decoding the stored bytes again. Decoding
// is most of what applying an event costs, and a write is otherwise
// decoded twice (once to answer it, once here).
//
// The offer is made before the write, because the event may be applied
// before the writer hears back from storage (it nearly always is under
// load). Its revision is not known yet: the event that carries exactly
// the offered bytes under the offered key sets it.

// maxOffers bounds the offers waiting. They are about as many as the
// writes in flight; more means offers whose events never came (a write
// whose outcome its writer never learnt, events skipped by a relist), and
// all are dropped: their events, if any, are decoded as usual.
const maxOffers = 1024

// offers holds offered objects by key until their event is applied or
// their write fails.
type offers struct {
	mu sync.Mutex
	m  map[string][]*Object
	n  int
}

// Offer gives the cache o, the served form (as the cache's decoder would
// build it, but for its Revision) of o.Stored, which its caller is about
// to write under o.Key. The event that stores those bytes there takes o
// and sets its Revision. A caller whose write fails calls the returned
// withdraw; o must not be changed after the call.
func (s *Store) Offer(o *Object) (withdraw func()) {
	s.offered.mu.Lock()
	defer s.offered.mu.Unlock()
	if s.offered.m == nil || s.offered.n >= maxOffers {
		s.offered.m, s.offered.n = map[string][]*Object{}, 0
	}
	s.offered.m[o.Key] = append(s.offered.m[o.Key], o)
	s.offered.n++
	return func() { s.offered.remove(o) }
}

// remove forgets o, if it is still offered.
func (f *offers) remove(o *Object) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.removeLocked(o)
}

func (f *offers) removeLocked(o *Object) {
	list := f.m[o.Key]
	i := slices.Index(list, o)
	if i < 0 {
		return
	}
	f.n--
	if len(list) == 1 {
		delete(f.m, o.Key)
		return
	}
	f.m[o.Key] = slices.Delete(list, i, i+1)
}

// take returns the object offered for value stored under key, with its
// Revision set to rev, or nil.
func (s *Store) take(key string, value []byte, rev int64) *Object {
	s.offered.mu.Lock()
	defer s.offered.mu.Unlock()
	for _, o := range s.offered.m[key] {
		if bytes.Equal(o.Stored, value) {
			s.offered.removeLocked(o)
			o.Revision = rev
			return o
		}
	}
	return nil
}
