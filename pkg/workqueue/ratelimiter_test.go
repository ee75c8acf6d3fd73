package workqueue

import (
	"math"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

func whens[T comparable](r RateLimiter[T], item T, n int) []time.Duration {
	got := make([]time.Duration, n)
	for i := range got {
		got[i] = r.When(item)
	}
	return got
}

func TestItemExponential(t *testing.T) {
	ms := time.Millisecond
	r := NewItemExponential[string](5*ms, 100*ms)
	if got, want := whens(r, "a", 7), []time.Duration{5 * ms, 10 * ms, 20 * ms, 40 * ms, 80 * ms, 100 * ms, 100 * ms}; !slices.Equal(got, want) {
		t.Errorf("a: %v, want %v", got, want)
	}
	if got := r.NumRequeues("a"); got != 7 {
		t.Errorf("NumRequeues(a) = %d, want 7", got)
	}
	// Items back off independently.
	if got := r.When("b"); got != 5*ms {
		t.Errorf("first When(b) = %v, want 5ms", got)
	}
	r.Forget("a")
	if got := r.NumRequeues("a"); got != 0 {
		t.Errorf("NumRequeues(a) after Forget = %d, want 0", got)
	}
	if got := r.When("a"); got != 5*ms {
		t.Errorf("When(a) after Forget = %v, want 5ms", got)
	}
}

func TestBackoffCapsWithoutOverflow(t *testing.T) {
	tests := []struct {
		base, limit time.Duration
		n           int
		want        time.Duration
	}{
		{5 * time.Millisecond, 1000 * time.Second, 0, 5 * time.Millisecond},
		{5 * time.Millisecond, 1000 * time.Second, 17, 655360 * time.Millisecond},
		{5 * time.Millisecond, 1000 * time.Second, 18, 1000 * time.Second},
		{5 * time.Millisecond, 1000 * time.Second, 40, 1000 * time.Second},
		{5 * time.Millisecond, 1000 * time.Second, 1000, 1000 * time.Second},
		{time.Nanosecond, math.MaxInt64, 62, 1 << 62},
		{time.Nanosecond, math.MaxInt64, 63, math.MaxInt64},
		{0, time.Second, 3, 0},
	}
	for _, tt := range tests {
		if got := backoff(tt.base, tt.limit, tt.n); got != tt.want {
			t.Errorf("backoff(%v, %v, %d) = %v, want %v", tt.base, tt.limit, tt.n, got, tt.want)
		}
	}
}

func TestTokenBucket(t *testing.T) {
	c := newFakeClock()
	ms := time.Millisecond
	b := NewTokenBucket[string](10, 3, c)
	// Burst of 3, then one token per 100ms on credit.
	if got, want := whens[string](b, "x", 5), []time.Duration{0, 0, 0, 100 * ms, 200 * ms}; !slices.Equal(got, want) {
		t.Fatalf("burst: %v, want %v", got, want)
	}
	// 250ms later the debt of 2 tokens is paid and half a token refilled.
	c.Step(250 * ms)
	if got, want := whens[string](b, "x", 2), []time.Duration{50 * ms, 150 * ms}; !slices.Equal(got, want) {
		t.Errorf("after 250ms: %v, want %v", got, want)
	}
	// A long idle period refills only up to the burst.
	c.Step(time.Hour)
	if got, want := whens[string](b, "x", 4), []time.Duration{0, 0, 0, 100 * ms}; !slices.Equal(got, want) {
		t.Errorf("after an hour: %v, want %v", got, want)
	}
	b.Forget("x")
	if got := b.NumRequeues("x"); got != 0 {
		t.Errorf("NumRequeues = %d, want 0", got)
	}
}

func TestTokenBucketRejectsImpossibleConfig(t *testing.T) {
	for _, tt := range []struct {
		qps   float64
		burst int
	}{{0, 1}, {-1, 1}, {math.NaN(), 1}, {1, 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewTokenBucket(%v, %d) did not panic", tt.qps, tt.burst)
				}
			}()
			NewTokenBucket[int](tt.qps, tt.burst, nil)
		}()
	}
}

// fixed is a test limiter returning a set delay and count.
type fixed struct {
	d       time.Duration
	n       int
	forgets int
}

func (f *fixed) When(string) time.Duration { f.n++; return f.d }
func (f *fixed) Forget(string)             { f.forgets++ }
func (f *fixed) NumRequeues(string) int    { return f.n }

func TestMaxOf(t *testing.T) {
	a, b := &fixed{d: time.Second}, &fixed{d: 2 * time.Second, n: 5}
	m := MaxOf[string](a, b)
	if got := m.When("x"); got != 2*time.Second {
		t.Errorf("When = %v, want 2s", got)
	}
	if a.n != 1 || b.n != 6 {
		t.Errorf("When reached limiters %d and %d times, want every limiter once", a.n, b.n-5)
	}
	if got := m.NumRequeues("x"); got != 6 {
		t.Errorf("NumRequeues = %d, want the largest, 6", got)
	}
	m.Forget("x")
	if a.forgets != 1 || b.forgets != 1 {
		t.Errorf("Forget reached limiters %d and %d times, want 1 and 1", a.forgets, b.forgets)
	}
	if got := MaxOf[string]().When("x"); got != 0 {
		t.Errorf("empty MaxOf When = %v, want 0", got)
	}
}

func TestDefaultRateLimiter(t *testing.T) {
	c := newFakeClock()
	r := DefaultRateLimiter[int](c)
	// 100 distinct items: the bucket's burst covers them, each item's
	// own backoff starts at 5ms.
	for i := range 100 {
		if got := r.When(i); got != 5*time.Millisecond {
			t.Fatalf("When(%d) = %v, want 5ms", i, got)
		}
	}
	// The 101st retry overall waits for the bucket: 1/10 s.
	if got := r.When(100); got != 100*time.Millisecond {
		t.Errorf("101st When = %v, want 100ms", got)
	}
	if got := r.NumRequeues(7); got != 1 {
		t.Errorf("NumRequeues(7) = %d, want 1", got)
	}
}

func TestAddRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		q := New(Options[string]{RateLimiter: NewItemExponential[string](time.Second, time.Minute)})
		got := collect(q, start)
		// synctest.Wait after each sleep: the delayed add due at the
		// same instant must happen before the next AddRateLimited, which
		// would otherwise merge into it (the earlier due time wins).
		q.AddRateLimited("a") // due at 1s
		time.Sleep(time.Second)
		synctest.Wait()
		q.AddRateLimited("a") // due at 1s + 2s
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if n := q.NumRequeues("a"); n != 2 {
			t.Errorf("NumRequeues = %d, want 2", n)
		}
		q.Forget("a")
		q.AddRateLimited("a") // back to 1s: due at 4s
		time.Sleep(time.Minute)
		q.ShutDown()
		want := []arrival{{"a", time.Second}, {"a", 3 * time.Second}, {"a", 4 * time.Second}}
		if g := <-got; !slices.Equal(g, want) {
			t.Errorf("arrivals = %v, want %v", g, want)
		}
	})
}
