// Package soak runs `setpoint server` as a process and attacks it the
// ways a careless or hostile client would: patches that multiply an
// object, connections left idle or trickling a body, hundreds of watches
// on large objects that are never read, and near-limit writes in a loop.
// It asserts that the server's memory, file descriptors and goroutines
// stay bounded, that the built-in controllers keep their lease and keep
// working throughout, and that every refusal is a Kubernetes Status.
// `go test ./test/soak/` runs it (about a minute); it has no place in a
// benchmark: its bounds are limits, not figures.
package soak
