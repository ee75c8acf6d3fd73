package reconcile

import "errors"

// TerminalError marks err as one that retrying cannot fix (an invalid
// spec, say): the controller records and logs it and does not requeue
// the request; the next change to the object reconciles it again. A nil
// err stays nil.
func TerminalError(err error) error {
	if err == nil {
		return nil
	}
	return &terminalError{err: err}
}

type terminalError struct{ err error }

func (e *terminalError) Error() string { return "terminal error: " + e.err.Error() }
func (e *terminalError) Unwrap() error { return e.err }

// IsTerminal reports whether err, or any error it wraps, was marked by
// TerminalError.
func IsTerminal(err error) bool {
	var t *terminalError
	return errors.As(err, &t)
}
