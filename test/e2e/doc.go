// Package e2e holds Setpoint's end-to-end tests. They drive the real
// `setpoint` binary, built once by TestMain with `go build`, as a child
// process on a loopback port, and talk to it the way a person would: with
// real kubectl (every versioned kubectl.1.NN found beside it, too) and a
// plain Go HTTPS client that trusts the CA from the server's kubeconfig.
//
// The tests skip when kubectl is not on PATH, and fail instead when the CI
// environment variable is set.
package e2e
