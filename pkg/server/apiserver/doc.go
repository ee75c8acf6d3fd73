// Package apiserver is the HTTP front of the server half: it speaks the
// Kubernetes REST API (discovery, get, list, watch, create, update,
// patch, delete, deletecollection, the status subresource) over HTTPS for
// every resource in a registry.Registry, through one generic path.
//
// Writes go straight to storage.Interface with compare-and-swap on the
// revision; reads are served from the watch cache (package watchcache),
// which one storage watch keeps current. CRDs are served as soon as they
// are written: the cache's event hook turns each one into registry
// resources before the write is answered.
package apiserver
