package eventttl

import (
	"sync"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/clock"
)

// fakeClock is a clock.Clock that moves only when a test steps it;
// stepping fires the timers that come due.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTimer(d time.Duration) clock.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), ch: make(chan time.Time, 1), active: true}
	c.timers = append(c.timers, t)
	return t
}

// Step moves the clock d forward and fires the timers due by then.
func (c *fakeClock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	keep := c.timers[:0]
	for _, t := range c.timers {
		switch {
		case !t.active:
		case !t.at.After(c.now):
			t.active = false
			t.ch <- c.now
		default:
			keep = append(keep, t)
		}
	}
	c.timers = keep
}

// due reports whether a timer is set for exactly at.
func (c *fakeClock) due(at time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.timers {
		if t.active && t.at.Equal(at) {
			return true
		}
	}
	return false
}

type fakeTimer struct {
	c      *fakeClock
	at     time.Time
	ch     chan time.Time
	active bool
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.active = false
	return was
}
