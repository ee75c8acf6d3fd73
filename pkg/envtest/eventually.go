package envtest

import (
	"testing"
	"time"
)

// DefaultTimeout is how long Eventually waits, and Consistently checks,
// unless told otherwise. It is a safety net for a stuck test on a loaded
// machine (CI, -race), not a speed requirement: a passing wait returns
// as soon as its condition holds.
const DefaultTimeout = 30 * time.Second

// DefaultConsistently is how long Consistently checks unless told.
const DefaultConsistently = time.Second

// DefaultInterval is how often a condition is checked.
const DefaultInterval = 10 * time.Millisecond

// WaitOption adjusts Eventually and Consistently.
type WaitOption func(*wait)

type wait struct {
	timeout, interval time.Duration
}

// Within sets how long Eventually waits, or Consistently checks.
func Within(d time.Duration) WaitOption { return func(w *wait) { w.timeout = d } }

// Every sets how often the condition is checked.
func Every(d time.Duration) WaitOption { return func(w *wait) { w.interval = d } }

func waitSettings(opts []WaitOption) wait {
	w := wait{timeout: DefaultTimeout, interval: DefaultInterval}
	for _, o := range opts {
		o(&w)
	}
	return w
}

// Eventually checks cond until it returns nil, and fails t if it still
// returns an error after the timeout; the failure names what was awaited
// and the last error, which should say what is still wrong ("ConfigMap
// has value a, want b").
func Eventually(t testing.TB, what string, cond func() error, opts ...WaitOption) {
	t.Helper()
	w := waitSettings(opts)
	start := time.Now()
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Since(start) >= w.timeout {
			t.Fatalf("envtest: timed out after %v waiting for %s: %v", w.timeout, what, err)
			return
		}
		time.Sleep(w.interval)
	}
}

// EventuallyTrue is Eventually for a condition without an error to
// report.
func EventuallyTrue(t testing.TB, what string, cond func() bool, opts ...WaitOption) {
	t.Helper()
	w := waitSettings(opts)
	start := time.Now()
	for !cond() {
		if time.Since(start) >= w.timeout {
			t.Fatalf("envtest: timed out after %v waiting for %s", w.timeout, what)
			return
		}
		time.Sleep(w.interval)
	}
}

// Consistently checks cond for DefaultConsistently (or Within's
// duration), and fails t as soon as cond returns
// an error: what must keep holding, and that error.
func Consistently(t testing.TB, what string, cond func() error, opts ...WaitOption) {
	t.Helper()
	w := waitSettings(append([]WaitOption{Within(DefaultConsistently)}, opts...))
	start := time.Now()
	for {
		if err := cond(); err != nil {
			t.Fatalf("envtest: %s stopped holding after %v: %v", what, time.Since(start).Round(time.Millisecond), err)
			return
		}
		if time.Since(start) >= w.timeout {
			return
		}
		time.Sleep(w.interval)
	}
}
