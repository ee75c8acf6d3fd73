package leaderelection

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// Elector competes for one Lease and runs the leader's work while it
// holds it. Its states:
//
//	           created the Lease, or won the compare-and-swap on one that
//	           is free, expired (unchanged for LeaseDuration), or ours
//	following -----------------------------------------------------> leading
//	    ^                                                               |
//	    |  lost: a renewal met a 409 and the Lease names another        |
//	    |  holder or term; or no renewal succeeded by the deadline      |
//	    +------------------- stepping down <-----------------------------+
//	                              |   Run's context ended
//	                              v
//	                  release (ReleaseOnCancel), return
//
// Stepping down always cancels the leader's context and waits for
// OnStartedLeading to return before anything else happens: before the
// lease is released, and before the elector competes again. Losing the
// lease is not fatal; the elector follows again and may lead again later.
//
// The deadline is counted on the local clock from the start of the last
// renewal that succeeded. Every other candidate counts LeaseDuration from
// the moment it saw that renewal, which is later, and LeaseDuration is
// longer than RenewDeadline, so the leader stops first even when the
// machines' clocks disagree about the time of day. It is enforced by a
// timer, not by the renewal request, so a renewal stuck in the network
// cannot keep a leader leading.
type Elector struct {
	cfg     Config
	lock    leaseLock
	clock   Clock
	log     *slog.Logger
	gauge   prometheus.Gauge
	running atomic.Bool
	notify  *notifier

	mu         sync.Mutex // guards the fields below; held briefly
	observed   record     // last record read or written
	observedAt time.Time  // when observed last changed, on clock
	seen       bool       // observed holds a record
	reported   string     // last identity given to OnNewLeader
	leading    bool
	token      Token
	acquired   time.Time // acquireTime of this term, as stored
	deadline   time.Time // the term ends here unless a renewal succeeds
}

// New checks cfg and returns an elector; it does not talk to the server
// until Run. The error is a *ConfigError for a bad cfg.
func New(cfg Config) (*Elector, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	gauge, err := statusGauge(cfg.Registerer, cfg.MetricName)
	if err != nil {
		return nil, err
	}
	key := types.NamespacedName{Namespace: cfg.Namespace, Name: cfg.Name}
	return &Elector{
		cfg:   cfg,
		lock:  leaseLock{c: cfg.Client, key: key},
		clock: cfg.Clock,
		log:   cfg.Logger.With("lease", key.String(), "identity", cfg.Identity),
		gauge: gauge,
	}, nil
}

// Run competes for the lease until ctx ends, leading whenever it holds
// it, and returns nil once it has stepped down (and released the lease,
// if configured). It runs once; a second call returns ErrRunning.
func (e *Elector) Run(ctx context.Context) error {
	if !e.running.CompareAndSwap(false, true) {
		return ErrRunning
	}
	e.notify = startNotifier(e.cfg.Callbacks.OnNewLeader)
	defer e.notify.close()
	e.gauge.Set(0)
	for {
		start, tok, ok := e.acquire(ctx)
		if !ok {
			return nil
		}
		e.lead(ctx, start, tok)
		if ctx.Err() != nil {
			return nil
		}
	}
}

// IsLeader reports whether this elector leads now: it holds the lease and
// its deadline has not passed. Work can ask before a write that matters,
// but only a fenced write (see Token) is safe against a pause between the
// question and the write.
func (e *Elector) IsLeader() bool {
	_, ok := e.Token()
	return ok
}

// Token returns the fencing token of the current term, and false when
// this elector does not lead.
func (e *Elector) Token() (Token, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.leading || !e.clock.Now().Before(e.deadline) {
		return 0, false
	}
	return e.token, true
}

// Leader returns the holder the lease named when last read or written,
// "" when it was free or not yet read.
func (e *Elector) Leader() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.observed.holder
}

// acquire tries until it holds the lease or ctx ends. It returns when the
// winning attempt started, which is when the first term's deadline is
// counted from.
func (e *Elector) acquire(ctx context.Context) (time.Time, Token, bool) {
	e.log.Info("waiting to acquire the lease")
	for {
		start := e.clock.Now()
		tok, ok, err := e.tryAcquire(ctx, start)
		switch {
		case ok:
			return start, tok, true
		case ctx.Err() != nil:
			return time.Time{}, 0, false
		case err != nil:
			e.log.Info("cannot reach the lease; retrying", "err", err)
		}
		wait := e.cfg.RetryPeriod + time.Duration(rand.Float64()*JitterFactor*float64(e.cfg.RetryPeriod))
		if !sleep(e.clock, wait, ctx.Done()) {
			return time.Time{}, 0, false
		}
	}
}

// tryAcquire makes one attempt. Losing a race (409, 409 on create) is not
// an error: someone else won.
func (e *Elector) tryAcquire(ctx context.Context, start time.Time) (Token, bool, error) {
	cur, err := e.lock.get(ctx)
	if client.IsNotFound(err) {
		stored, err := e.lock.create(ctx, e.newRecord(start, e.nextTransitions()))
		if client.IsAlreadyExists(err) {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, err
		}
		e.observe(stored)
		return e.startTerm(stored), true, nil
	}
	if err != nil {
		return 0, false, err
	}
	now := e.observe(cur)
	if cur.holder != "" && cur.holder != e.cfg.Identity && !e.expired(now) {
		return 0, false, nil
	}
	// A new term even when the lease still names this identity (a
	// restart, or a term that ended on its deadline): the count goes up so
	// tokens differ between terms.
	stored, err := e.lock.update(ctx, e.newRecord(start, cur.transitions+1))
	if client.IsConflict(err) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	e.observe(stored)
	return e.startTerm(stored), true, nil
}

// nextTransitions is the count for a Lease created anew. Continuing from
// a deleted Lease's count keeps tokens growing for the candidates that
// saw it.
func (e *Elector) nextTransitions() int32 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.seen {
		return 0
	}
	return e.observed.transitions + 1
}

func (e *Elector) newRecord(now time.Time, transitions int32) record {
	return record{
		holder:          e.cfg.Identity,
		durationSeconds: durationSeconds(e.cfg.LeaseDuration),
		acquire:         now,
		renew:           now,
		transitions:     transitions,
	}
}

// expired reports whether the observed record has gone unchanged long
// enough to take it. The wait is the longer of ours and the holder's, so
// a holder configured with a longer lease is not cut short.
func (e *Elector) expired(now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	d := e.cfg.LeaseDuration
	if hd := time.Duration(e.observed.durationSeconds) * time.Second; hd > d {
		d = hd
	}
	return !now.Before(e.observedAt.Add(d))
}

// observe records r as the lease's current state and returns the local
// time of the observation. Only a change restarts the expiry count: a
// holder that renews changes renewTime, a silent one changes nothing.
func (e *Elector) observe(r record) time.Time {
	now := e.clock.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.seen || !r.same(e.observed) {
		e.observed, e.observedAt, e.seen = r, now, true
	}
	if r.holder != "" && r.holder != e.reported {
		e.reported = r.holder
		e.log.Info("new leader observed", "leader", r.holder)
		e.notify.send(r.holder)
	}
	return now
}

func (e *Elector) startTerm(stored record) Token {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.token = Token(stored.transitions)
	e.acquired = stored.acquire
	return e.token
}

// renewal is one renewal's outcome and when it started.
type renewal struct {
	start time.Time
	err   error
}

// lead runs one term: it starts the work, keeps the lease renewed, and
// steps down when the lease is lost or ctx ends.
func (e *Elector) lead(ctx context.Context, start time.Time, tok Token) {
	deadline := start.Add(e.cfg.RenewDeadline)
	if !deadline.After(e.clock.Now().Add(e.cfg.RetryPeriod)) {
		// The winning attempt took most of a term (a store slow to come
		// back): renew once now, rather than start work that the
		// deadline would stop at once.
		now := e.clock.Now()
		e.mu.Lock()
		e.deadline = now.Add(e.cfg.RenewDeadline) // bounds the request
		e.mu.Unlock()
		if err := e.renew(ctx, tok, now); err == nil {
			deadline = now.Add(e.cfg.RenewDeadline)
		}
	}
	e.mu.Lock()
	e.leading, e.deadline = true, deadline
	e.mu.Unlock()
	e.gauge.Set(1)
	e.log.Info("became leader", "token", tok)

	workCtx, stopWork := context.WithCancel(withToken(ctx, tok))
	workDone := make(chan struct{})
	go func() {
		defer close(workDone)
		e.cfg.Callbacks.OnStartedLeading(workCtx)
	}()
	// Renewals outlive ctx: after a shutdown the work may take a while to
	// return, and the lease must stay held until it has.
	renewCtx, stopRenew := context.WithCancel(context.WithoutCancel(ctx))
	renewed := make(chan renewal)
	renewerDone := make(chan struct{})
	go func() {
		defer close(renewerDone)
		e.renewLoop(renewCtx, tok, renewed)
	}()

	timer := e.clock.NewTimer(deadline.Sub(e.clock.Now()))
	shutdown, work := ctx.Done(), (<-chan struct{})(workDone)
	stopping, workReturned := false, false
	var lost error
loop:
	for {
		select {
		case <-shutdown:
			shutdown, stopping = nil, true
			e.stepDown()
			stopWork()
			if workReturned {
				break loop
			}
		case <-work:
			// Work that returns on its own does not end the term (as in
			// client-go): leadership would otherwise bounce between
			// candidates whose work has nothing to do.
			work, workReturned = nil, true
			if stopping {
				break loop
			}
		case r := <-renewed:
			var le *lostError
			switch {
			case r.err == nil:
				deadline = r.start.Add(e.cfg.RenewDeadline)
				e.mu.Lock()
				e.deadline = deadline
				e.mu.Unlock()
				timer.Stop()
				timer = e.clock.NewTimer(deadline.Sub(e.clock.Now()))
			case errors.As(r.err, &le):
				lost = r.err
				break loop
			default:
				e.log.Info("renewing the lease failed; retrying", "err", r.err, "deadline", deadline)
			}
		case <-timer.C():
			if now := e.clock.Now(); now.Before(deadline) {
				timer = e.clock.NewTimer(deadline.Sub(now))
				continue
			}
			lost = errRenewDeadline
			break loop
		}
	}
	timer.Stop()
	e.stepDown()
	stopWork()
	if lost != nil {
		// Renewing is pointless now. The renewer may be stuck in a
		// request; the term ends without waiting for it.
		stopRenew()
		<-workDone
		e.stopped(lost, tok)
		<-renewerDone
		return
	}
	<-workDone
	stopRenew()
	<-renewerDone
	if e.cfg.ReleaseOnCancel {
		e.release(ctx, tok, deadline)
	}
	e.stopped(nil, tok)
}

// stopped ends a term whose work has returned.
func (e *Elector) stopped(lost error, tok Token) {
	e.gauge.Set(0)
	if lost != nil {
		e.log.Warn("lost the lease; stopped leading", "reason", lost.Error(), "token", tok)
	} else {
		e.log.Info("stopped leading", "token", tok)
	}
	if fn := e.cfg.Callbacks.OnStoppedLeading; fn != nil {
		fn()
	}
}

func (e *Elector) stepDown() {
	e.mu.Lock()
	e.leading = false
	e.mu.Unlock()
}

// renewLoop renews every RetryPeriod and reports each outcome, until ctx
// ends or the lease is lost.
func (e *Elector) renewLoop(ctx context.Context, tok Token, out chan<- renewal) {
	for sleep(e.clock, e.cfg.RetryPeriod, ctx.Done()) {
		start := e.clock.Now()
		err := e.renew(ctx, tok, start)
		select {
		case out <- renewal{start, err}:
		case <-ctx.Done():
			return
		}
		var le *lostError
		if errors.As(err, &le) {
			return
		}
	}
}

// renew writes a new renewTime over the copy of the lease last written.
// A 409 means someone else wrote since; a re-read tells a rival's
// acquisition (the term is over) from an unrelated edit (try again on the
// new version).
func (e *Elector) renew(ctx context.Context, tok Token, now time.Time) error {
	e.mu.Lock()
	deadline, acquired := e.deadline, e.acquired
	e.mu.Unlock()
	// Past the deadline the answer no longer matters.
	ctx, cancel := context.WithTimeout(ctx, deadline.Sub(now))
	defer cancel()
	r := e.newRecord(now, int32(tok))
	r.acquire = acquired
	stored, err := e.lock.update(ctx, r)
	if err == nil {
		e.observe(stored)
		return nil
	}
	if !client.IsConflict(err) {
		return err
	}
	cur, err := e.lock.get(ctx)
	if client.IsNotFound(err) {
		return &lostError{}
	}
	if err != nil {
		return err
	}
	e.observe(cur)
	if cur.holder != e.cfg.Identity || cur.transitions != int32(tok) {
		e.log.Info("the lease has a new holder", "leader", cur.holder)
		return &lostError{holder: cur.holder}
	}
	if stored, err = e.lock.update(ctx, r); err != nil {
		return err
	}
	e.observe(stored)
	return nil
}

// release gives the lease up as client-go does, if this term still owns
// it. ctx has ended by now; the release gets RenewDeadline of its own.
func (e *Elector) release(ctx context.Context, tok Token, deadline time.Time) {
	now := e.clock.Now()
	if !now.Before(deadline) {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.cfg.RenewDeadline)
	defer cancel()
	for range 2 {
		stored, err := e.lock.update(ctx, releasedRecord(int32(tok), now))
		if err == nil {
			e.observe(stored)
			e.log.Info("released the lease", "token", tok)
			return
		}
		if !client.IsConflict(err) {
			e.log.Warn("releasing the lease failed; others take over when it expires", "err", err)
			return
		}
		// A renewal cut short by the shutdown may have landed after all
		// and left our copy stale; re-read and release that, if ours.
		cur, err := e.lock.get(ctx)
		if err != nil {
			if !client.IsNotFound(err) {
				e.log.Warn("releasing the lease failed; others take over when it expires", "err", err)
			}
			return
		}
		e.observe(cur)
		if cur.holder != e.cfg.Identity || cur.transitions != int32(tok) {
			return
		}
	}
}
