// Package v1 is the fsm.example.com/v1 API of the state-machine example
// operator: the Pipeline kind's Go types, written by hand (no code
// generator), and their scheme registration.
package v1
