package leaderelection

import (
	"time"

	"github.com/setpoint-dev/setpoint/pkg/clock"
)

// Clock is the elector's time source. Every duration the elector judges
// (lease expiry, renew deadline, retry waits) is measured on it, never on
// the timestamps written in the lease, which come from other machines'
// clocks. Tests inject one, or run under testing/synctest, where the real
// clock is already virtual.
type Clock = clock.Clock

// Timer is the part of *time.Timer the elector uses.
type Timer = clock.Timer

// RealClock is the machine's clock. time.Now carries a monotonic reading,
// so a wall-clock jump (NTP, a VM resume) does not change the durations
// measured with it.
type RealClock = clock.Real

// sleep waits d on c, or until done is closed; it reports whether the
// whole wait happened.
func sleep(c Clock, d time.Duration, done <-chan struct{}) bool {
	t := c.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return true
	case <-done:
		return false
	}
}
