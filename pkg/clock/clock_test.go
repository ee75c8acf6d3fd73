package clock

import (
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
