// Package generic is the server half's object store: every rule an
// object obeys between an API request and storage, for every resource of
// a registry, built-in or custom, and no HTTP.
//
// The endpoints (package apiserver) decode a request, call one of Store's
// verbs (Create, Get, List, Watch, Update, Apply, Delete,
// DeleteCollection) and encode what it returns. The store holds the
// object rules: server-set metadata and generateName, generation and the
// status split, preconditions and optimistic concurrency with the retry
// loop, dry run, finalizers and deletion propagation, no-op detection,
// managed fields and the stored size bound. What differs per kind comes
// from the resource's strategy (registry.Strategy and the optional hooks
// beside it), never from a test of the resource's name here.
//
// Writes go to storage.Interface; reads come from the watch cache
// (watchcache.Store), which one storage watch keeps current, except
// reads of an exact revision or a continued page, which storage serves.
// Errors are *apierror.StatusError.
package generic
