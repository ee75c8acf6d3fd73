package fsm

import (
	"errors"
	"fmt"
)

var (
	// ErrInvalidMachine is wrapped by New's errors about a Config.
	ErrInvalidMachine = errors.New("invalid state machine")
	// ErrUndeclaredTransition: a state went to a state it did not
	// declare in Next.
	ErrUndeclaredTransition = errors.New("undeclared transition")
	// ErrTooManySteps: a walk ran more states than the limit.
	ErrTooManySteps = errors.New("too many steps in one walk")
	// ErrNoOutcome: a state returned the zero Outcome, or Fail(nil).
	ErrNoOutcome = errors.New("state returned no outcome")
)

// StateError is a walk's failure at one state: the state's own error
// (from Fail) or the machine's (the sentinel errors above).
type StateError struct {
	State string
	Err   error
}

func (e *StateError) Error() string { return fmt.Sprintf("fsm: state %s: %v", e.State, e.Err) }
func (e *StateError) Unwrap() error { return e.Err }
