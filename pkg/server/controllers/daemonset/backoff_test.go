package daemonset

import (
	"testing"
	"time"
)

func TestFailedBackoff(t *testing.T) {
	steps := []struct {
		name     string
		at       time.Duration // after t0
		deleted  bool          // the pod is deleted (next) after the check
		wantWait time.Duration
	}{
		{"first failure goes at once", 0, true, 0},
		{"within a second: wait", 500 * time.Millisecond, false, time.Second},
		{"after a second: goes", time.Second, true, 0},
		{"doubled", 2 * time.Second, false, 2 * time.Second},
		{"after two seconds: goes", 3 * time.Second, true, 0},
		{"doubled again", 6 * time.Second, false, 4 * time.Second},
		{"long quiet: starts over", 3*time.Second + 31*time.Minute, true, 0},
		{"back to a second", 3*time.Second + 31*time.Minute + 100*time.Millisecond, false, time.Second},
	}
	var b failedBackoff
	for _, s := range steps {
		now := t0.Add(s.at)
		if got := b.wait("k", now); got != s.wantWait {
			t.Errorf("%s: wait %v, want %v", s.name, got, s.wantWait)
		}
		if s.deleted {
			b.next("k", now)
		}
		if got := b.wait("other", now); got != 0 {
			t.Errorf("%s: another node waits %v", s.name, got)
		}
	}
}
