// Package v1 is the foo.example.com/v1 API of the Foo example operator:
// the Go types a Foo decodes into, written by hand (no code generator),
// and the scheme registration that tells a client which kind they are.
package v1
