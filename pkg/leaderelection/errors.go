package leaderelection

import (
	"errors"
	"fmt"
)

// ErrRunning is returned by a second call of Run or Become.
var ErrRunning = errors.New("leaderelection: already running")

// errNoLease: an update before any read, so there is no resourceVersion
// to make it conditional on.
var errNoLease = errors.New("leaderelection: no copy of the lease to update")

// errRenewDeadline ends a term whose renewals all failed for
// RenewDeadline.
var errRenewDeadline = errors.New("no renewal succeeded before the renew deadline")

// lostError ends a term because the lease names another holder or a
// later term, or is gone.
type lostError struct{ holder string }

func (e *lostError) Error() string {
	if e.holder == "" {
		return "the lease was released or deleted by someone else"
	}
	return fmt.Sprintf("the lease is held by %q", e.holder)
}
