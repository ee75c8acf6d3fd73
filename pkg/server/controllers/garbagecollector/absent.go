package garbagecollector

import "sync"

// absentOwners remembers owners the API said do not exist, so that the
// many dependents of one deleted owner cost one GET, not one each. It
// is bounded: the oldest entry goes first. An entry is never wrong (a
// uid is never reused), only possibly forgotten.
type absentOwners struct {
	mu    sync.Mutex
	set   map[objectRef]struct{}
	order []objectRef // ring of set's keys, oldest at next
	next  int
}

func newAbsentOwners(size int) *absentOwners {
	return &absentOwners{set: make(map[objectRef]struct{}, size), order: make([]objectRef, 0, size)}
}

func (a *absentOwners) add(id objectRef) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.set[id]; ok || cap(a.order) == 0 {
		return
	}
	if len(a.order) < cap(a.order) {
		a.order = append(a.order, id)
	} else {
		delete(a.set, a.order[a.next])
		a.order[a.next] = id
		a.next = (a.next + 1) % len(a.order)
	}
	a.set[id] = struct{}{}
}

func (a *absentOwners) has(id objectRef) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.set[id]
	return ok
}
