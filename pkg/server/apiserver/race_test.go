//go:build race

package apiserver_test

// raceEnabled: the race detector drops a share of sync.Pool puts, so
// pooled buffers (TLS, HTTP) are allocated again and allocation figures grow.
const raceEnabled = true
