package storage

import (
	"errors"
	"fmt"
)

// Errors returned by every backend. Wrapped errors carry detail; test with
// errors.Is.
var (
	ErrNotFound        = errors.New("storage: key not found")
	ErrAlreadyExists   = errors.New("storage: key already exists")
	ErrConflict        = errors.New("storage: revision conflict")
	ErrCompacted       = errors.New("storage: revision compacted")
	ErrFutureRevision  = errors.New("storage: revision is in the future")
	ErrInvalidKey      = errors.New("storage: invalid key")
	ErrInvalidContinue = errors.New("storage: invalid continue token")
	ErrClosed          = errors.New("storage: store closed")
	// ErrUnavailable means the store could not be reached or did not
	// answer; the request may be tried again.
	ErrUnavailable = errors.New("storage: unavailable")
	// ErrTooLarge means the store refused a value over its size limit.
	ErrTooLarge = errors.New("storage: value too large")
)

// CompactedError reports a read or watch below the retained history.
type CompactedError struct {
	// Requested is the revision asked for.
	Requested int64
	// Oldest is the oldest revision still readable.
	Oldest int64
}

func (e *CompactedError) Error() string {
	return fmt.Sprintf("storage: revision %d is compacted, oldest retained revision is %d", e.Requested, e.Oldest)
}

// Is makes errors.Is(err, ErrCompacted) hold.
func (e *CompactedError) Is(target error) bool { return target == ErrCompacted }

// ConflictError reports an Update or Delete whose revision precondition
// failed.
type ConflictError struct {
	Key string
	// Expected is the revision the caller named.
	Expected int64
	// Current is the key's revision in the store.
	Current int64
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("storage: key %q is at revision %d, not %d", e.Key, e.Current, e.Expected)
}

// Is makes errors.Is(err, ErrConflict) hold.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// keyError wraps ErrInvalidKey with the reason.
func keyError(key, reason string) error {
	return fmt.Errorf("%w %q: %s", ErrInvalidKey, truncate(key, 64), reason)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
