package clock

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

func TestRealTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c Clock = Real{}
		start := c.Now()
		tm := c.NewTimer(time.Minute)
		got := <-tm.C()
		if d := got.Sub(start); d != time.Minute {
			t.Errorf("timer fired after %v, want 1m", d)
		}
		if tm.Stop() {
			t.Error("Stop of a fired timer = true")
		}
		if !c.NewTimer(time.Hour).Stop() {
			t.Error("Stop of a pending timer = false")
		}
	})
}

func TestRealAfterFunc(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c Clock = Real{}
		start := c.Now()
		fired := make(chan time.Duration, 1)
		tm := c.AfterFunc(time.Minute, func() { fired <- time.Since(start) })
		if !tm.Reset(2 * time.Minute) {
			t.Error("Reset of a pending timer = false")
		}
		if d := <-fired; d != 2*time.Minute {
			t.Errorf("fired after %v, want 2m", d)
		}
		if tm.Stop() {
			t.Error("Stop of a fired timer = true")
		}
	})
}

func TestFakeStepFiresInDueOrder(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	c := NewFake(t0)
	var got []time.Duration
	record := func() { got = append(got, c.Now().Sub(t0)) }
	c.AfterFunc(3*time.Second, record)
	c.AfterFunc(time.Second, func() {
		record()
		c.AfterFunc(time.Second, record) // due at 2s: fires in the same Step
	})
	stopped := c.AfterFunc(2500*time.Millisecond, record)
	ch := c.NewTimer(4 * time.Second)

	if !stopped.Stop() {
		t.Error("Stop of a pending timer = false")
	}
	c.Step(3 * time.Second)
	if want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("fired at %v, want %v", got, want)
	}
	if want := []time.Time{t0.Add(4 * time.Second)}; !slices.Equal(c.Waiting(), want) {
		t.Errorf("Waiting() = %v, want %v", c.Waiting(), want)
	}
	c.Step(10 * time.Second)
	if at := <-ch.C(); !at.Equal(t0.Add(4 * time.Second)) {
		t.Errorf("C received %v, want the due time %v", at, t0.Add(4*time.Second))
	}
	if now := c.Now(); !now.Equal(t0.Add(13 * time.Second)) {
		t.Errorf("Now() = %v after the steps, want %v", now, t0.Add(13*time.Second))
	}
}

func TestFakeReset(t *testing.T) {
	c := NewFake(time.Unix(0, 0))
	n := 0
	tm := c.AfterFunc(time.Minute, func() { n++ })
	c.Step(59 * time.Second)
	if !tm.Reset(time.Minute) {
		t.Error("Reset of a pending timer = false")
	}
	c.Step(59 * time.Second)
	if n != 0 {
		t.Fatalf("fired %d times before its reset time", n)
	}
	c.Step(time.Second)
	if n != 1 {
		t.Fatalf("fired %d times at its reset time, want 1", n)
	}
	if tm.Reset(time.Second) {
		t.Error("Reset of a fired timer = true")
	}
	if !tm.Stop() {
		t.Error("Stop of a pending timer = false")
	}
	c.Step(time.Hour)
	if n != 1 {
		t.Errorf("a stopped timer fired: %d calls", n)
	}

	// A fired channel timer's unread time is dropped by Reset, so the
	// next firing is not stuck behind it.
	ch := c.NewTimer(time.Second)
	c.Step(time.Second)
	ch.Reset(time.Second)
	c.Step(time.Second)
	if at, want := <-ch.C(), c.Now(); !at.Equal(want) {
		t.Errorf("C received %v after Reset, want %v", at, want)
	}
}
