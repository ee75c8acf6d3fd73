// Package clock is the one time source of the runtime's long-running
// parts (reflectors, informers, work queues, controllers, the event
// recorder, leader election), so that tests can inject time and every
// decision that depends on it is deterministic. Code under
// testing/synctest can use Real: its time is already virtual there.
// Tests that step time by hand use Fake.
package clock

import "time"

// Clock tells the time and makes timers.
type Clock interface {
	Now() time.Time
	// NewTimer returns a timer that sends the time on its C once d has
	// elapsed.
	NewTimer(d time.Duration) Timer
	// AfterFunc returns a timer that calls f in its own goroutine once d
	// has elapsed; its C is nil. A work queue wakes its delayed items
	// this way without a goroutine of its own.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the part of *time.Timer the runtime uses.
type Timer interface {
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it was
	// still due to.
	Stop() bool
	// Reset makes the timer fire d from now; it reports whether it was
	// still due to fire before.
	Reset(d time.Duration) bool
}

// Real is the machine's clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// NewTimer returns a time.Timer.
func (Real) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

// AfterFunc returns time.AfterFunc's timer.
func (Real) AfterFunc(d time.Duration, f func()) Timer { return realTimer{time.AfterFunc(d, f)} }

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time        { return t.t.C }
func (t realTimer) Stop() bool                 { return t.t.Stop() }
func (t realTimer) Reset(d time.Duration) bool { return t.t.Reset(d) }
