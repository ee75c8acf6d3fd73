package compat_test

import (
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// startServer starts a test server with its built-in controllers, as
// setpoint server runs: real clients see the whole semantics (garbage
// collection, namespace deletion).
func startServer(t testing.TB) *apiservertest.Server {
	t.Helper()
	return apiservertest.StartWith(t, apiservertest.Options{BuiltinControllers: true})
}
