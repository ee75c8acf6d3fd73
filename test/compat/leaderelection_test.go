package compat_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// candidate is one leader-election participant.
type candidate struct {
	id      string
	elector *leaderelection.LeaderElector
	cancel  context.CancelFunc
	done    chan struct{}
	led     atomic.Int32 // times it became leader
	// leaderCtx is the context OnStartedLeading got: the candidate leads
	// until it is done. Guarded by election.mu.
	leaderCtx context.Context
}

// election tracks who leads and catches two leaders at once.
type election struct {
	mu         sync.Mutex
	candidates []*candidate
	leaders    atomic.Int32 // OnStartedLeading calls so far
	overlaps   atomic.Int32 // times a candidate started leading while another still led
	overlapMsg []string
	started    chan string
}

// startLeading records c as leader; a candidate steps down the moment
// its leader context is cancelled (synchronously with the cancel), so
// checking ctx.Err() of the others is exact.
func (e *election) startLeading(c *candidate, ctx context.Context) {
	e.mu.Lock()
	for _, o := range e.candidates {
		if o != c && o.leaderCtx != nil && o.leaderCtx.Err() == nil {
			e.overlaps.Add(1)
			e.overlapMsg = append(e.overlapMsg, fmt.Sprintf("%s started leading while %s still led", c.id, o.id))
		}
	}
	c.leaderCtx = ctx
	e.mu.Unlock()
	c.led.Add(1)
	e.leaders.Add(1)
	e.started <- c.id
}

func TestLeaderElectionLease(t *testing.T) {
	srv := apiservertest.Start(t)
	rec := newRecorder(t)
	// The clientset's default for Lease is protobuf; keep it.
	cs, err := kubernetes.NewForConfig(rec.wrap(srv.Config))
	if err != nil {
		t.Fatal(err)
	}
	ns := createNamespace(t, cs, "election")
	const leaseName = "compat-lock"

	e := &election{started: make(chan string, 10)}
	for _, id := range []string{"candidate-a", "candidate-b"} {
		c := &candidate{id: id, done: make(chan struct{})}
		lock := &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: ns, Name: leaseName},
			Client:     cs.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: id},
		}
		c.elector, err = leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock:            lock,
			Name:            "compat",
			LeaseDuration:   2 * time.Second,
			RenewDeadline:   1500 * time.Millisecond,
			RetryPeriod:     200 * time.Millisecond,
			ReleaseOnCancel: true,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(ctx context.Context) { e.startLeading(c, ctx) },
				OnStoppedLeading: func() {},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		e.candidates = append(e.candidates, c)
	}
	for _, c := range e.candidates {
		ctx, cancel := context.WithCancel(t.Context())
		c.cancel = cancel
		go func() {
			defer close(c.done)
			c.elector.Run(ctx)
		}()
	}
	t.Cleanup(func() {
		for _, c := range e.candidates {
			c.cancel()
			<-c.done
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		if n := e.overlaps.Load(); n != 0 {
			t.Errorf("two leaders at once %d times: %v", n, e.overlapMsg)
		}
	})
	byID := map[string]*candidate{}
	for _, c := range e.candidates {
		byID[c.id] = c
	}

	getLease := func() *coordinationv1.Lease {
		t.Helper()
		l, err := cs.CoordinationV1().Leases(ns).Get(t.Context(), leaseName, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get lease: %v", err)
		}
		return l
	}
	holder := func(l *coordinationv1.Lease) string {
		if l.Spec.HolderIdentity == nil {
			return ""
		}
		return *l.Spec.HolderIdentity
	}
	transitions := func(l *coordinationv1.Lease) int32 {
		if l.Spec.LeaseTransitions == nil {
			return -1
		}
		return *l.Spec.LeaseTransitions
	}

	// Exactly one of the two leads, and the Lease names it.
	first := byID[receive(t, e.started, "a first leader")]
	var second *candidate
	for _, c := range e.candidates {
		if c != first {
			second = c
		}
	}
	waitFor(t, second.id+" to observe "+first.id+" as leader", func() (bool, error) {
		return second.elector.GetLeader() == first.id, fmt.Errorf("%s observes %q", second.id, second.elector.GetLeader())
	})
	if !first.elector.IsLeader() || second.elector.IsLeader() {
		t.Errorf("IsLeader: got %s=%v %s=%v, want only %s", first.id, first.elector.IsLeader(), second.id, second.elector.IsLeader(), first.id)
	}
	l := getLease()
	if got := holder(l); got != first.id {
		t.Errorf("lease holderIdentity: got %q, want %q", got, first.id)
	}
	if got := transitions(l); got != 0 {
		t.Errorf("lease leaseTransitions: got %d, want 0", got)
	}
	if l.Spec.LeaseDurationSeconds == nil || *l.Spec.LeaseDurationSeconds != 2 {
		t.Errorf("lease leaseDurationSeconds: got %v, want 2", l.Spec.LeaseDurationSeconds)
	}
	if l.Spec.AcquireTime == nil || l.Spec.RenewTime == nil {
		t.Fatalf("lease: got acquireTime %v renewTime %v, want both set", l.Spec.AcquireTime, l.Spec.RenewTime)
	}
	// The leader keeps renewing: renewTime moves on while the holder
	// stays the same.
	firstRenew := l.Spec.RenewTime.Time
	waitFor(t, "the leader to renew the lease", func() (bool, error) {
		l := getLease()
		return holder(l) == first.id && l.Spec.RenewTime != nil && l.Spec.RenewTime.After(firstRenew),
			fmt.Errorf("holder %q renewTime %v", holder(l), l.Spec.RenewTime)
	})

	// Cancel the leader: it releases the lease and the other takes over.
	first.cancel()
	select {
	case <-first.done:
	case <-time.After(waitTimeout):
		t.Fatalf("%s's elector did not return after its context was cancelled", first.id)
	}
	if got := receive(t, e.started, "the second candidate to take over"); got != second.id {
		t.Fatalf("after cancelling %s: got new leader %s, want %s", first.id, got, second.id)
	}
	l = getLease()
	if got := holder(l); got != second.id {
		t.Errorf("lease holderIdentity after takeover: got %q, want %q", got, second.id)
	}
	if got := transitions(l); got != 1 {
		t.Errorf("lease leaseTransitions after takeover: got %d, want 1", got)
	}
	if first.led.Load() != 1 || second.led.Load() != 1 || e.leaders.Load() != 2 {
		t.Errorf("times led: got %s=%d %s=%d total=%d, want 1, 1, 2", first.id, first.led.Load(), second.id, second.led.Load(), e.leaders.Load())
	}

	// Cancel the second: it releases the lease, which is left without a
	// holder and with the short release duration.
	second.cancel()
	<-second.done
	l = getLease()
	if got := holder(l); got != "" {
		t.Errorf("lease holderIdentity after release: got %q, want none", got)
	}
	if l.Spec.LeaseDurationSeconds == nil || *l.Spec.LeaseDurationSeconds != 1 {
		t.Errorf("lease leaseDurationSeconds after release: got %v, want 1", l.Spec.LeaseDurationSeconds)
	}
	if got := transitions(l); got != 1 {
		t.Errorf("lease leaseTransitions after release: got %d, want 1", got)
	}
}
