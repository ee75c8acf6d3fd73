// Package cache is the runtime's read path: it keeps a local, indexed copy
// of one kind of object and tells handlers what changed.
//
//	client (ListerWatcher) -> Reflector -> Store/indexes -> Lister
//	                                    \-> handlers (one coalescing buffer each) -> workqueue
//
// A Reflector lists and watches through a ListerWatcher (Setpoint's
// client, or anything with the same two methods) and reports Deltas. An
// Informer applies them to a Store, which indexes the objects by
// namespace and by user index functions, and fans each change out to its
// handlers. Listers read the Store. Factory shares one Informer, and so
// one watch, among every consumer of the same kind and scope.
//
// Objects in the cache are shared: a Get, a List and a handler all see the
// same pointer, never a copy, so callers must not modify them (DeepCopy
// first). InformerOptions.CheckMutations turns on a checked mode for
// tests that catches offenders.
//
// A compact informer (InformerOptions.Compact) keeps objects encoded
// instead, at about half the memory, and decodes one on every read: each
// reader gets a copy of its own, and each read costs a decode.
//
// Memory: managedFields are dropped before caching unless asked for, and
// a relist is applied into the Store as it arrives (each object replaces
// its predecessor, and the end of the listing drops what it did not
// mention), so a relist never holds a second copy of the cache.
//
// Slow handlers: each handler has its own buffer, which merges what is
// pending per key (many updates become one, from the state the handler
// last saw to the latest; an add and a delete it never saw cancel out), so
// it grows with the number of keys, not of events. Its depth is
// Registration.Pending and the informer_handler_pending gauge.
//
// The package talks to the server only through ListerWatcher; it never
// imports the server, and it does not use client-go's tools/cache.
package cache
