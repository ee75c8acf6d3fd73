package clock

import (
	"slices"
	"sync"
	"time"
)

// Fake is a Clock that moves only when Step moves it, for tests that
// assert exact delays. Its zero value is not usable: use NewFake.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer // pending, in no order
}

// NewFake returns a Fake that reads now until stepped.
func NewFake(now time.Time) *Fake { return &Fake{now: now} }

// Now returns the fake time.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimer returns a timer whose C receives its due time when Step
// reaches it.
func (c *Fake) NewTimer(d time.Duration) Timer {
	return c.add(&fakeTimer{c: c, ch: make(chan time.Time, 1)}, d)
}

// AfterFunc returns a timer whose f Step calls when it reaches it.
func (c *Fake) AfterFunc(d time.Duration, f func()) Timer {
	return c.add(&fakeTimer{c: c, f: f}, d)
}

func (c *Fake) add(t *fakeTimer, d time.Duration) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t.at = c.now.Add(d)
	c.timers = append(c.timers, t)
	return t
}

// Step moves the clock d forward. The timers due by then fire one by
// one in due order, the clock reading each one's due time as it fires:
// an AfterFunc's f runs synchronously, before Step returns, so a test
// sees its effects at once; it may set new timers, which fire too if
// due.
func (c *Fake) Step(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	for {
		i := -1
		for j, t := range c.timers {
			if !t.at.After(end) && (i < 0 || t.at.Before(c.timers[i].at)) {
				i = j
			}
		}
		if i < 0 {
			break
		}
		t := c.timers[i]
		c.timers = slices.Delete(c.timers, i, i+1)
		if t.at.After(c.now) {
			c.now = t.at
		}
		if t.f == nil {
			t.ch <- c.now // free: Stop and Reset drain it, as time.Timer's do
			continue
		}
		c.mu.Unlock()
		t.f()
		c.mu.Lock()
	}
	c.now = end
	c.mu.Unlock()
}

// Waiting returns the due times of the pending timers, earliest first.
func (c *Fake) Waiting() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	var at []time.Time
	for _, t := range c.timers {
		at = append(at, t.at)
	}
	slices.SortFunc(at, time.Time.Compare)
	return at
}

type fakeTimer struct {
	c  *Fake
	at time.Time
	ch chan time.Time // nil for an AfterFunc
	f  func()
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	return t.remove()
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.remove()
	t.at = t.c.now.Add(d)
	t.c.timers = append(t.c.timers, t)
	return was
}

// remove takes t off the pending list and drops a time sent but not
// received; c.mu is held.
func (t *fakeTimer) remove() bool {
	if t.ch != nil {
		select {
		case <-t.ch:
		default:
		}
	}
	n := len(t.c.timers)
	t.c.timers = slices.DeleteFunc(t.c.timers, func(p *fakeTimer) bool { return p == t })
	return len(t.c.timers) < n
}
