package eventttl

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

func TestQueueClock(t *testing.T) {
	if _, ok := queueClock(clock.Real{}).(workqueue.RealClock); !ok {
		t.Error("the real clock is not the queue's real clock")
	}
	fake := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	qc := queueClock(fake)
	if !qc.Now().Equal(fake.Now()) {
		t.Errorf("Now %v, want %v", qc.Now(), fake.Now())
	}
	fired := make(chan int, 10)
	var calls atomic.Int32
	tm := qc.AfterFunc(time.Minute, func() { fired <- int(calls.Add(1)) })

	fake.Step(59 * time.Second)
	if !tm.Reset(2 * time.Minute) {
		t.Error("Reset of a pending timer = false")
	}
	fake.Step(time.Second) // the first arming's time: void
	fake.Step(2*time.Minute - time.Second - time.Nanosecond)
	select {
	case n := <-fired:
		t.Fatalf("fired (%d) before its reset time", n)
	case <-time.After(20 * time.Millisecond):
	}
	fake.Step(time.Nanosecond)
	if n := <-fired; n != 1 {
		t.Errorf("call %d, want 1", n)
	}
	if tm.Stop() {
		t.Error("Stop of a fired timer = true")
	}

	if tm.Reset(time.Second) {
		t.Error("Reset of a fired timer = true")
	}
	if !tm.Stop() {
		t.Error("Stop of a pending timer = false")
	}
	fake.Step(time.Hour)
	select {
	case n := <-fired:
		t.Errorf("a stopped timer fired (%d)", n)
	case <-time.After(20 * time.Millisecond):
	}
}
