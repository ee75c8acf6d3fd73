// Package apiserver is the HTTP front of the server half: it speaks the
// Kubernetes REST API (discovery, get, list, watch, create, update,
// patch, delete, deletecollection, the status, scale and finalize
// subresources) over HTTPS for every resource in a registry.Registry.
//
// It routes a request to a resource and verb, reads its parameters and
// body (package params), calls the object store (package
// registry/generic), which holds every object rule and is the only way
// to storage, and encodes the answer (package response). Filters in front
// (package filters) bound time and concurrency and authenticate. CRDs are
// served as soon as they are written: the watch cache's event hook turns
// each one into registry resources before the write is answered.
package apiserver
