// Package storage is the bottom of Setpoint's data path: a revisioned
// key/value store whose global revision becomes every object's
// resourceVersion.
//
// The API server keeps each object as JSON bytes under a key such as
// "/registry/configmaps/default/cm1". Every successful write advances one
// global revision by exactly one; reads can be served at the current
// revision or at any revision still retained, and watches replay every
// change after a retained revision, in order, then follow live changes.
//
// Backends (bolt, etcd, memory) implement [Interface] and prove
// it with the shared conformance suite in package storagetest. The
// contract is written on each method of [Interface]; errors are the
// sentinel values in errors.go, tested with errors.Is.
package storage
