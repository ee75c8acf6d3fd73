package leaderelection

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// These tests run under testing/synctest against an in-memory Lease:
// time is virtual, so the durations are the real defaults (15 s, 10 s,
// 2 s) and every "when" below is exact.

func simConfig(f *fakeLeases, id string, p *probe, l *logs) Config {
	return Config{
		Client: f, Namespace: "ns", Name: "lock", Identity: id,
		Callbacks: p.callbacks(id, nil),
		Logger:    l.logger(),
	}
}

func mustNew(t *testing.T, cfg Config) *Elector {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestElectorAcquiresAndRenews(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, p, l := &fakeLeases{}, newProbe(t), &logs{}
		checkNoErrors(t, l)
		reg := prometheus.NewRegistry()
		cfg := simConfig(f, "a", p, l)
		cfg.Registerer = reg
		e := mustNew(t, cfg)
		if got := gaugeValue(t, reg, "lock"); got != 0 {
			t.Errorf("gauge before Run: got %v, want 0", got)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := runElector(ctx, e)
		synctest.Wait()

		first := f.current()
		if first.holder != "a" || first.durationSeconds != 15 || first.transitions != 0 || !first.acquire.Equal(first.renew) {
			t.Fatalf("created lease: got %+v, want holder a, 15 s, transitions 0, acquireTime = renewTime", first)
		}
		if tok, ok := e.Token(); !ok || tok != 0 || !e.IsLeader() || e.Leader() != "a" {
			t.Errorf("Token, IsLeader, Leader: got %d %v %v %q, want 0 true true a", tok, ok, e.IsLeader(), e.Leader())
		}
		if got := gaugeValue(t, reg, "lock"); got != 1 {
			t.Errorf("gauge while leading: got %v, want 1", got)
		}
		if terms := p.allTerms(); len(terms) != 1 || !terms[0].hasToken || terms[0].token != 0 {
			t.Errorf("terms: got %+v, want one with token 0 in its context", terms)
		}

		time.Sleep(10*time.Second + time.Millisecond)
		synctest.Wait()
		got := f.current()
		if n := len(f.writes); n != 6 {
			t.Errorf("writes after 10 s: got %d, want 6 (a create and a renewal every 2 s)", n)
		}
		if got.holder != "a" || got.transitions != 0 || !got.acquire.Equal(first.acquire) || got.renew.Sub(first.renew) != 10*time.Second {
			t.Errorf("renewed lease: got %+v, want holder, transitions and acquireTime kept, renewTime 10 s later", got)
		}
		if got := p.lastNewLeader("a"); got != "a" {
			t.Errorf("OnNewLeader: got %q, want a (itself)", got)
		}

		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: got %v, want nil", err)
		}
		if e.IsLeader() || p.stoppedCount("a") != 1 || gaugeValue(t, reg, "lock") != 0 {
			t.Errorf("after cancel: IsLeader %v, OnStoppedLeading %d times, gauge %v; want false, 1, 0", e.IsLeader(), p.stoppedCount("a"), gaugeValue(t, reg, "lock"))
		}
		if err := e.Run(t.Context()); !errors.Is(err, ErrRunning) {
			t.Errorf("second Run: got %v, want ErrRunning", err)
		}
	})
}

// A candidate judges expiry by its own clock from when it saw the record
// change, whatever times the holder wrote into it.
func TestElectorWaitsOutTheHoldersLease(t *testing.T) {
	for _, tc := range []struct {
		name        string
		renewOffset time.Duration // holder's renewTime relative to the candidate's now
		holderSecs  int32
		want        time.Duration // how long the candidate must wait
	}{
		{"renewed long ago", -time.Hour, 15, 15 * time.Second},
		{"renewed in the future", time.Hour, 15, 15 * time.Second},
		{"renewed now", 0, 15, 15 * time.Second},
		{"holder has a longer lease", 0, 40, 40 * time.Second},
		{"holder has a shorter lease", 0, 5, 15 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f, p, l := &fakeLeases{}, newProbe(t), &logs{}
				checkNoErrors(t, l)
				when := time.Now().Add(tc.renewOffset)
				f.set(record{holder: "b", durationSeconds: tc.holderSecs, acquire: when, renew: when, transitions: 7})
				e := mustNew(t, simConfig(f, "a", p, l))
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				start := time.Now()
				runElector(ctx, e)

				time.Sleep(tc.want - time.Millisecond)
				synctest.Wait()
				if e.IsLeader() || f.current().holder != "b" || e.Leader() != "b" {
					t.Fatalf("%v after start: IsLeader %v, lease holder %q, Leader %q; want false, b, b", time.Since(start), e.IsLeader(), f.current().holder, e.Leader())
				}
				if got := p.lastNewLeader("a"); got != "b" {
					t.Errorf("OnNewLeader: got %q, want b", got)
				}
				// The next attempt comes within RetryPeriod x (1 + JitterFactor).
				time.Sleep(time.Duration((1 + JitterFactor) * float64(DefaultRetryPeriod)))
				synctest.Wait()
				got := f.current()
				if !e.IsLeader() || got.holder != "a" || got.transitions != 8 {
					t.Fatalf("after expiry: IsLeader %v, lease %+v; want leader, holder a, transitions 8", e.IsLeader(), got)
				}
				if tok, _ := e.Token(); tok != 8 {
					t.Errorf("token: got %d, want 8 (leaseTransitions)", tok)
				}
			})
		})
	}
}

// A holder that keeps renewing is never taken over, however long.
func TestElectorFollowsARenewingHolder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, p, l := &fakeLeases{}, newProbe(t), &logs{}
		now := time.Now()
		f.set(record{holder: "b", durationSeconds: 15, acquire: now, renew: now})
		e := mustNew(t, simConfig(f, "a", p, l))
		ctx, cancel := context.WithCancel(t.Context())
		done := runElector(ctx, e)
		for range 30 {
			time.Sleep(2 * time.Second)
			f.set(record{holder: "b", durationSeconds: 15, acquire: now, renew: time.Now()})
		}
		synctest.Wait()
		if len(p.allTerms()) != 0 || f.current().holder != "b" {
			t.Errorf("after 60 s of renewals by b: terms %+v, holder %q; want none, b", p.allTerms(), f.current().holder)
		}
		cancel()
		<-done
		if p.stoppedCount("a") != 0 {
			t.Errorf("OnStoppedLeading without a term: %d calls, want 0", p.stoppedCount("a"))
		}
	})
}

var errUnavailable = statusErr(metav1.StatusReasonServiceUnavailable, http.StatusServiceUnavailable)

// When renewals fail, the work stops exactly RenewDeadline after the
// start of the last renewal that succeeded, and the elector competes
// again instead of giving up.
func TestElectorStepsDownAtTheRenewDeadlineAndRejoins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, p, l := &fakeLeases{}, newProbe(t), &logs{}
		checkNoErrors(t, l)
		e := mustNew(t, simConfig(f, "a", p, l))
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		done := runElector(ctx, e)
		synctest.Wait()
		time.Sleep(4*time.Second + time.Millisecond) // renewals at 2 s and 4 s succeed
		synctest.Wait()
		lastRenew := f.current().renew
		f.setFail(func(op string) error { return errUnavailable })

		time.Sleep(30 * time.Second)
		synctest.Wait()
		terms := p.allTerms()
		if len(terms) != 1 || terms[0].ended.IsZero() {
			t.Fatalf("terms: got %+v, want one that ended", terms)
		}
		if got := terms[0].ended.Sub(lastRenew); got != DefaultRenewDeadline {
			t.Errorf("work ended %v after the last successful renewal started, want %v", got, DefaultRenewDeadline)
		}
		if e.IsLeader() || p.stoppedCount("a") != 1 {
			t.Errorf("IsLeader %v, OnStoppedLeading %d; want false, 1", e.IsLeader(), p.stoppedCount("a"))
		}
		select {
		case err := <-done:
			t.Fatalf("Run returned (%v) after losing the lease; want it to compete again", err)
		default:
		}

		f.setFail(nil)
		time.Sleep(time.Duration((1 + JitterFactor) * float64(DefaultRetryPeriod)))
		synctest.Wait()
		terms = p.allTerms()
		if len(terms) != 2 || terms[1].token != 1 || !e.IsLeader() {
			t.Errorf("after the server is back: terms %+v, IsLeader %v; want a second term with token 1", terms, e.IsLeader())
		}
	})
}

// A renewal stuck in the network (a request that never answers, even
// after its context ends) does not extend leadership: the deadline is a
// timer, not the request's outcome. When the stuck write finally lands,
// a rival has taken the lease, the compare-and-swap fails, and the old
// leader follows.
func TestElectorStuckRenewalCannotExtendLeadership(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, p, l := &fakeLeases{}, newProbe(t), &logs{}
		checkNoErrors(t, l)
		e := mustNew(t, simConfig(f, "a", p, l))
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		runElector(ctx, e)
		synctest.Wait()
		acquired := f.current().acquire

		unblock := make(chan struct{})
		f.setFail(func(op string) error {
			if op == "update" {
				<-unblock // ignores the request's context, as a paused machine would
			}
			return nil
		})
		time.Sleep(DefaultRenewDeadline + time.Millisecond)
		synctest.Wait()
		terms := p.allTerms()
		if len(terms) != 1 || terms[0].ended.IsZero() || e.IsLeader() {
			t.Fatalf("at the deadline with a stuck renewal: terms %+v, IsLeader %v; want the term ended", terms, e.IsLeader())
		}
		if got := terms[0].ended.Sub(acquired); got != DefaultRenewDeadline {
			t.Errorf("work ended %v after acquisition, want %v", got, DefaultRenewDeadline)
		}

		// A rival waits out the lease and takes it; then the stuck write
		// reaches the "server".
		time.Sleep(DefaultLeaseDuration)
		now := time.Now()
		f.set(record{holder: "b", durationSeconds: 15, acquire: now, renew: now, transitions: 1})
		close(unblock)
		synctest.Wait()
		if got := f.current(); got.holder != "b" {
			t.Fatalf("the stuck renewal overwrote the rival's lease: %+v", got)
		}
		if e.IsLeader() || e.Leader() != "b" || p.lastNewLeader("a") != "b" || len(p.allTerms()) != 1 {
			t.Errorf("after the stale write: IsLeader %v, Leader %q, OnNewLeader %q, terms %d; want false, b, b, 1", e.IsLeader(), e.Leader(), p.lastNewLeader("a"), len(p.allTerms()))
		}
	})
}

// A rival that takes the lease (a 409 on renewal, then a record naming
// the rival) ends the term at the next renewal, well before any deadline.
func TestElectorStepsDownWhenAnotherHolderAppears(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, p, l := &fakeLeases{}, newProbe(t), &logs{}
		checkNoErrors(t, l)
		e := mustNew(t, simConfig(f, "a", p, l))
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		runElector(ctx, e)
		synctest.Wait()
		time.Sleep(3 * time.Second)
		taken := time.Now()
		f.set(record{holder: "b", durationSeconds: 15, acquire: taken, renew: taken, transitions: 1})
		synctest.Wait()
		time.Sleep(DefaultRetryPeriod)
		synctest.Wait()
		terms := p.allTerms()
		if len(terms) != 1 || terms[0].ended.IsZero() {
			t.Fatalf("terms: got %+v, want one that ended", terms)
		}
		if got := terms[0].ended.Sub(taken); got > DefaultRetryPeriod {
			t.Errorf("work ended %v after the rival took the lease, want at most one RetryPeriod (%v)", got, DefaultRetryPeriod)
		}
		if f.current().holder != "b" || e.Leader() != "b" || p.lastNewLeader("a") != "b" {
			t.Errorf("holder %q, Leader %q, OnNewLeader %q; want b, b, b", f.current().holder, e.Leader(), p.lastNewLeader("a"))
		}
	})
}

// A write that changes the Lease without taking it (a label, say) costs
// the renewal a 409 and a re-read, not the term.
func TestElectorSurvivesAnUnrelatedEdit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, p, l := &fakeLeases{}, newProbe(t), &logs{}
		e := mustNew(t, simConfig(f, "a", p, l))
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		runElector(ctx, e)
		synctest.Wait()
		time.Sleep(time.Second)
		f.edit()
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if terms := p.allTerms(); len(terms) != 1 || !terms[0].ended.IsZero() || !e.IsLeader() {
			t.Errorf("after an unrelated edit: terms %+v, IsLeader %v; want the first term still running", terms, e.IsLeader())
		}
		if got := f.current(); got.holder != "a" || got.transitions != 0 {
			t.Errorf("lease: got %+v, want holder a, transitions 0", got)
		}
	})
}

func TestElectorReleaseOnCancel(t *testing.T) {
	for _, tc := range []struct {
		release bool
		want    func(before record, at time.Time) record
	}{
		{true, func(before record, at time.Time) record { return releasedRecord(before.transitions, at) }},
		{false, func(before record, _ time.Time) record { return before }},
	} {
		t.Run(map[bool]string{true: "release", false: "keep"}[tc.release], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f, p, l := &fakeLeases{}, newProbe(t), &logs{}
				checkNoErrors(t, l)
				cfg := simConfig(f, "a", p, l)
				cfg.ReleaseOnCancel = tc.release
				// The work takes longer to stop than RenewDeadline: the
				// lease must stay renewed meanwhile and be released only
				// after it returned.
				var heldWhenWorkReturned record
				cfg.Callbacks.OnStartedLeading = p.callbacks("a", func(ctx context.Context) {
					<-ctx.Done()
					time.Sleep(12 * time.Second)
					heldWhenWorkReturned = f.current()
				}).OnStartedLeading
				e := mustNew(t, cfg)
				ctx, cancel := context.WithCancel(t.Context())
				done := runElector(ctx, e)
				synctest.Wait()
				time.Sleep(3 * time.Second)
				cancelled := time.Now()
				cancel()
				if err := <-done; err != nil {
					t.Errorf("Run: got %v, want nil", err)
				}
				if heldWhenWorkReturned.holder != "a" || !heldWhenWorkReturned.renew.After(cancelled) {
					t.Errorf("lease when the work returned: %+v; want still held by a and renewed after the cancel at %v", heldWhenWorkReturned, cancelled)
				}
				got, want := f.current(), tc.want(heldWhenWorkReturned, time.Now())
				if !got.same(want) {
					t.Errorf("lease after Run: got %+v, want %+v", got, want)
				}
			})
		})
	}
}

func TestConfigDefaultsAndValidation(t *testing.T) {
	base := func() Config {
		return Config{
			Client: &fakeLeases{}, Namespace: "ns", Name: "lock", Identity: "a",
			Callbacks: Callbacks{OnStartedLeading: func(context.Context) {}},
		}
	}
	e, err := New(base())
	if err != nil {
		t.Fatal(err)
	}
	if got := [3]time.Duration{e.cfg.LeaseDuration, e.cfg.RenewDeadline, e.cfg.RetryPeriod}; got != [3]time.Duration{15 * time.Second, 10 * time.Second, 2 * time.Second} {
		t.Errorf("defaults: got %v, want [15s 10s 2s]", got)
	}

	for _, tc := range []struct {
		name   string
		change func(*Config)
		field  string // "" for valid
	}{
		{"lease not longer than deadline", func(c *Config) { c.LeaseDuration, c.RenewDeadline = 10*time.Second, 10*time.Second }, "LeaseDuration"},
		{"deadline not longer than jittered retry", func(c *Config) { c.RenewDeadline, c.RetryPeriod = 12*time.Second, 10*time.Second }, "RenewDeadline"},
		{"deadline just longer than jittered retry", func(c *Config) { c.RenewDeadline, c.RetryPeriod = 1201*time.Millisecond, time.Second }, ""},
		{"negative retry", func(c *Config) { c.RetryPeriod = -time.Second }, "RetryPeriod"},
		{"negative deadline", func(c *Config) { c.RenewDeadline = -time.Second }, "RenewDeadline"},
		{"short test durations", func(c *Config) {
			c.LeaseDuration, c.RenewDeadline, c.RetryPeriod = time.Second, 800*time.Millisecond, 100*time.Millisecond
		}, ""},
		{"no identity", func(c *Config) { c.Identity = "" }, "Identity"},
		{"no work", func(c *Config) { c.Callbacks.OnStartedLeading = nil }, "Callbacks.OnStartedLeading"},
		{"no client", func(c *Config) { c.Client = nil }, "Client"},
		{"no lease name", func(c *Config) { c.Name = "" }, "Namespace and Name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base()
			tc.change(&cfg)
			_, err := New(cfg)
			var ce *ConfigError
			switch {
			case tc.field == "" && err != nil:
				t.Errorf("New: got %v, want success", err)
			case tc.field != "" && !errors.As(err, &ce):
				t.Errorf("New: got %v, want a *ConfigError for %s", err, tc.field)
			case tc.field != "" && ce.Field != tc.field:
				t.Errorf("New: got a ConfigError for %s (%v), want one for %s", ce.Field, err, tc.field)
			}
		})
	}
}

// An acquisition that takes longer than the renew deadline (a store slow
// to come back) would start a term already over: the elector renews at
// once instead, and leads.
func TestElectorSlowAcquisitionRenewsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, p, l := &fakeLeases{}, newProbe(t), &logs{}
		checkNoErrors(t, l)
		slow := true
		f.setFail(func(op string) error {
			if op == "get" && slow {
				slow = false
				time.Sleep(DefaultRenewDeadline + time.Second)
			}
			return nil
		})
		e := mustNew(t, simConfig(f, "a", p, l))
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		runElector(ctx, e)
		time.Sleep(DefaultRenewDeadline + 3*time.Second)
		synctest.Wait()
		terms := p.allTerms()
		if len(terms) != 1 || !terms[0].ended.IsZero() || !e.IsLeader() {
			t.Fatalf("terms %+v, IsLeader %v; want one running term", terms, e.IsLeader())
		}
	})
}
