package eventttl

import (
	"sync"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// queueClock drives the controller's queue from c, so that the look at
// an Event's expiry comes when c, which judged the expiry, says so.
// The queue asks for AfterFunc, which clock.Clock builds from a timer.
func queueClock(c clock.Clock) workqueue.Clock {
	switch c := c.(type) {
	case workqueue.Clock:
		return c
	case clock.Real:
		return workqueue.RealClock{}
	}
	return timerClock{c}
}

type timerClock struct{ clock.Clock }

func (c timerClock) AfterFunc(d time.Duration, f func()) workqueue.Timer {
	t := &funcTimer{c: c.Clock, f: f}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.arm(d)
	return t
}

// funcTimer calls f once its clock's timer fires, unless stopped or
// reset first. Each arming has its own goroutine, which ends when the
// timer fires or the arming is replaced; the queue keeps one timer.
type funcTimer struct {
	c clock.Clock
	f func()

	mu     sync.Mutex
	armed  int           // counts armings; a firing of an older one is void
	active bool          // armed and not yet fired
	cancel chan struct{} // ends the current arming's goroutine
}

// arm starts a new arming; t.mu is held.
func (t *funcTimer) arm(d time.Duration) {
	t.disarm()
	t.armed++
	n, timer, cancel := t.armed, t.c.NewTimer(d), make(chan struct{})
	t.active, t.cancel = true, cancel
	go func() {
		select {
		case <-timer.C():
			t.mu.Lock()
			fire := t.active && t.armed == n
			if fire {
				t.active = false
			}
			t.mu.Unlock()
			if fire {
				t.f()
			}
		case <-cancel:
			timer.Stop()
		}
	}()
}

// disarm ends the current arming; t.mu is held. It reports whether the
// timer was still due to fire.
func (t *funcTimer) disarm() bool {
	was := t.active
	t.active = false
	if t.cancel != nil {
		close(t.cancel)
		t.cancel = nil
	}
	return was
}

func (t *funcTimer) Stop() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.disarm()
}

func (t *funcTimer) Reset(d time.Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	was := t.active
	t.arm(d)
	return was
}
