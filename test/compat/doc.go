// Package compat holds compatibility tests: they drive a real in-process
// Setpoint API server with the unmodified upstream client libraries
// (client-go's typed, dynamic and discovery clients, informers, leader
// election, and controller-runtime) and prove that those libraries work
// against the server unchanged, over JSON and protobuf alike.
//
// The package has no code of its own besides this comment; everything is
// in its _test.go files.
package compat
