package client

import "testing"

// SetServiceAccountDir makes dir the service account InClusterConfig and
// Config read, for the rest of the test.
func SetServiceAccountDir(t testing.TB, dir string) {
	old := serviceAccountDir
	serviceAccountDir = dir
	t.Cleanup(func() { serviceAccountDir = old })
}
