package cache

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
)

// MutationError reports a cached object that was modified in place.
// Cached objects are shared by the store, the listers and every handler;
// modifying one corrupts what all of them see.
type MutationError struct {
	// Key is the object's key.
	Key string
	// Where says how it was found: in the store, or after a handler
	// returned (then naming the handler).
	Where string
}

func (e *MutationError) Error() string {
	return fmt.Sprintf("cache: object %s was modified %s; cached objects are shared, DeepCopy before changing them", e.Key, e.Where)
}

// mutationChecker hashes objects' JSON and compares later. A hash rather
// than a deep copy keeps checked mode's memory near the unchecked one.
type mutationChecker struct {
	seed   maphash.Seed
	report func(error)
}

func newMutationChecker(report func(error)) *mutationChecker {
	if report == nil {
		report = func(err error) { panic(err) }
	}
	return &mutationChecker{seed: maphash.MakeSeed(), report: report}
}

func (c *mutationChecker) sum(obj any) uint64 {
	b, err := json.Marshal(obj)
	if err != nil {
		return 0 // cannot encode it, cannot check it
	}
	return maphash.Bytes(c.seed, b) | 1 // never 0, which means unchecked
}

func (c *mutationChecker) check(key string, obj any, want uint64, where string) {
	if want == 0 {
		return
	}
	if c.sum(obj) != want {
		c.report(&MutationError{Key: key, Where: where})
	}
}
