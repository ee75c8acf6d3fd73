package leaderelection_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	cgle "k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// Durations for the mixed election. client-go notices a renewal only when
// renewTime's second changes (it compares records as JSON, with
// whole-second times), so with renewals under a second apart it may count
// expiry from up to a second before our last renewal: RenewDeadline + 1 s
// must stay below LeaseDuration (see Config.RetryPeriod).
const (
	mixedLease = 3 * time.Second
	mixedRenew = 1500 * time.Millisecond
	mixedRetry = 250 * time.Millisecond
)

// clientGoCandidate runs client-go's elector on the same Lease.
type clientGoCandidate struct {
	e      *cgle.LeaderElector
	cancel context.CancelFunc
	done   chan struct{}
}

func startClientGo(t *testing.T, srv *apiservertest.Server, ns, id string, release bool, p *probe) *clientGoCandidate {
	t.Helper()
	cs, err := kubernetes.NewForConfig(srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	cb := p.callbacks(id, nil)
	e, err := cgle.NewLeaderElector(cgle.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: ns, Name: "lock"},
			Client:     cs.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: id},
		},
		LeaseDuration: mixedLease, RenewDeadline: mixedRenew, RetryPeriod: mixedRetry,
		ReleaseOnCancel: release,
		Name:            "interop",
		Callbacks: cgle.LeaderCallbacks{
			OnStartedLeading: cb.OnStartedLeading,
			OnStoppedLeading: cb.OnStoppedLeading,
			OnNewLeader:      cb.OnNewLeader,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &clientGoCandidate{e: e, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		e.Run(ctx)
	}()
	t.Cleanup(c.stop)
	return c
}

func (c *clientGoCandidate) stop() {
	c.cancel()
	<-c.done
}

// client-go's candidates and ours share one Lease: each takes over from
// the other when it releases, client-go waits out our lease when we stop
// without releasing, and each reads the other's record as its own. Never
// two leaders. (Ours waiting out client-go's lease is the same code as
// waiting out ours, tested elsewhere.)
func TestInteropWithClientGo(t *testing.T) {
	srv := apiservertest.Start(t)
	admin := newClient(t, srv, nil)
	ns := createNamespace(t, admin, "interop")
	p, l := newProbe(t), &logs{}
	checkNoErrors(t, l)
	p.started = make(chan string, 8)
	ours := func(id string, release bool) *candidate {
		cfg := serverConfig(newClient(t, srv, nil), ns, id, p, l)
		cfg.LeaseDuration, cfg.RenewDeadline, cfg.RetryPeriod = mixedLease, mixedRenew, mixedRetry
		cfg.ReleaseOnCancel = release
		return startCandidate(t, cfg)
	}
	expect := func(id string, transitions int32) {
		t.Helper()
		if got := receive(t, p.started, id+" to lead"); got != id {
			t.Fatalf("leader: got %s, want %s", got, id)
		}
		got := getLease(t, admin, ns)
		if got.holder != id || got.transitions != transitions || got.durationSeconds != 3 {
			t.Errorf("lease while %s leads: got %+v, want holder %s, transitions %d, 3 s", id, got, id, transitions)
		}
	}

	// client-go leads first; ours follows it, then takes over when it
	// releases the lease.
	cg := startClientGo(t, srv, ns, "client-go-1", true, p)
	expect("client-go-1", 0)
	sp := ours("setpoint-1", false)
	envtest.EventuallyTrue(t, "setpoint-1 to see client-go-1 lead", func() bool { return sp.e.Leader() == "client-go-1" })
	cg.stop()
	expect("setpoint-1", 1)

	// client-go follows ours, and takes over by expiry when ours stops
	// without releasing: it read our leaseDurationSeconds and renewals.
	cg2 := startClientGo(t, srv, ns, "client-go-2", true, p)
	envtest.EventuallyTrue(t, "client-go-2 to see setpoint-1 lead", func() bool { return cg2.e.GetLeader() == "setpoint-1" })
	time.Sleep(mixedLease) // a full lease of renewals by ours, watched by client-go
	if got := len(p.allTerms()); got != 2 {
		t.Fatalf("client-go took over a lease that was being renewed: %d terms, want 2", got)
	}
	sp.stop()
	lastRenew := getLease(t, admin, ns).renew
	expect("client-go-2", 2)
	// client-go saw the last change when renewTime entered its second.
	if started, earliest := p.allTerms()[2].started, lastRenew.Truncate(time.Second).Add(mixedLease); started.Before(earliest) {
		t.Errorf("client-go-2 took over at %v, before the lease renewed at %v expired for it (%v)", started, lastRenew, earliest)
	}

	// Ours takes over again when client-go releases.
	sp2 := ours("setpoint-2", true)
	envtest.EventuallyTrue(t, "setpoint-2 to see client-go-2 lead", func() bool { return sp2.e.Leader() == "client-go-2" })
	cg2.stop()
	expect("setpoint-2", 3)
	sp2.stop()
	if got := getLease(t, admin, ns); got.holder != "" || got.durationSeconds != 1 || got.transitions != 3 {
		t.Errorf("lease after setpoint-2 released it: got %+v, want no holder, 1 s, transitions 3", got)
	}
}
