package leaderelection_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/leaderelection"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// These tests run candidates against a real in-process API server, with
// short durations. They check who leads and in what order, never how
// fast.

func serverConfig(c leaderelection.LeaseClient, ns, id string, p *probe, l *logs) leaderelection.Config {
	return leaderelection.Config{
		Client: c, Namespace: ns, Name: "lock", Identity: id,
		LeaseDuration: 1500 * time.Millisecond, RenewDeadline: 800 * time.Millisecond, RetryPeriod: 150 * time.Millisecond,
		Callbacks: p.callbacks(id, nil),
		Logger:    l.logger().With("candidate", id),
	}
}

func getLease(t testing.TB, c *client.Client, ns string) record {
	t.Helper()
	l := &coordinationv1.Lease{}
	if err := c.Get(t.Context(), types.NamespacedName{Namespace: ns, Name: "lock"}, l); err != nil {
		t.Fatal(err)
	}
	return recordOf(&l.Spec)
}

// fencedWriter is leader work that writes its token into a ConfigMap
// through Fence until its term ends or a newer leader fences it off.
// Every successful write is recorded, so the test can check that the
// object never saw an older leader after a newer one.
type fencedWriter struct {
	c   *client.Client
	key types.NamespacedName

	mu     sync.Mutex
	writes []leaderelection.Token
}

func (w *fencedWriter) work(ctx context.Context) {
	tok, _ := leaderelection.TokenFrom(ctx)
	for ctx.Err() == nil {
		cm := &corev1.ConfigMap{}
		if err := w.c.Get(ctx, w.key, cm); err != nil {
			return
		}
		if err := leaderelection.Fence(cm, tok); errors.Is(err, leaderelection.ErrFenced) {
			return
		}
		err := w.c.Update(ctx, cm)
		if err == nil {
			w.mu.Lock()
			w.writes = append(w.writes, tok)
			w.mu.Unlock()
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Three candidates; the leader is stopped again and again, alternately
// releasing the lease and crashing (the lease expires), and replaced. Never two
// leaders at once, each term's token larger than the last, and the
// fenced object sees tokens in order.
func TestElectorsNeverTwoLeaders(t *testing.T) {
	srv := apiservertest.Start(t)
	c := newClient(t, srv, nil)
	ns := createNamespace(t, c, "never-two")
	w := &fencedWriter{c: c, key: types.NamespacedName{Namespace: ns, Name: "fenced"}}
	if err := c.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "fenced"}}); err != nil {
		t.Fatal(err)
	}
	p, l := newProbe(t), &logs{}
	checkNoErrors(t, l)
	p.started = make(chan string, 16)

	byID, gates := map[string]*candidate{}, map[string]*gate{}
	start := func(id string) {
		g := newGate(nil)
		c := newClient(t, srv, func(rt http.RoundTripper) http.RoundTripper { g.next = rt; return g })
		cfg := serverConfig(c, ns, id, p, l)
		cfg.Callbacks = p.callbacks(id, w.work)
		cfg.ReleaseOnCancel = true
		byID[id], gates[id] = startCandidate(t, cfg), g
	}
	for _, id := range []string{"a", "b", "c"} {
		start(id)
	}
	const rounds = 4
	for i := range rounds {
		id := receive(t, p.started, fmt.Sprintf("a leader in round %d", i))
		if i%2 == 1 {
			// A crash: the release cannot reach the server, so the
			// others wait for the lease to expire.
			gates[id].die()
		}
		byID[id].stop()
		// A new identity: the same one would take its own lease back at
		// once, as a restarted process should, and nobody else would
		// get a turn.
		start(fmt.Sprintf("%s%d", id, i))
	}
	receive(t, p.started, "the last leader")

	terms := p.allTerms()
	for i := 1; i < len(terms); i++ {
		if terms[i].token <= terms[i-1].token {
			t.Errorf("term %d (%s) has token %d after term %d (%s) with token %d; want it larger",
				i, terms[i].id, terms[i].token, i-1, terms[i-1].id, terms[i-1].token)
		}
		if terms[i-1].ended.IsZero() || terms[i].started.Before(terms[i-1].ended) {
			t.Errorf("term %d (%s) started at %v, before term %d (%s) ended at %v", i, terms[i].id, terms[i].started, i-1, terms[i-1].id, terms[i-1].ended)
		}
	}
	if got := p.maxSeen.Load(); got != 1 {
		t.Errorf("most leaders at once: got %d, want 1", got)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := 1; i < len(w.writes); i++ {
		if w.writes[i] < w.writes[i-1] {
			t.Fatalf("fenced object written with token %d after %d", w.writes[i], w.writes[i-1])
		}
	}
}

// The leader is cut off the network past its lease (its renewal hangs,
// as in a paused VM). It stops its work at its deadline, before another
// candidate takes over; when its network comes back, its late renewal
// meets the new leader's resourceVersion, fails with 409, and it follows
// the new leader instead of leading again.
func TestPausedLeaderStepsDownAndFollows(t *testing.T) {
	srv := apiservertest.Start(t)
	admin := newClient(t, srv, nil)
	ns := createNamespace(t, admin, "paused")
	p, l := newProbe(t), &logs{}
	checkNoErrors(t, l)
	p.started = make(chan string, 16)

	gates := map[string]*gate{}
	cands := map[string]*candidate{}
	for _, id := range []string{"a", "b", "c"} {
		g := newGate(nil)
		gates[id] = g
		c := newClient(t, srv, func(rt http.RoundTripper) http.RoundTripper { g.next = rt; return g })
		cands[id] = startCandidate(t, serverConfig(c, ns, id, p, l))
	}
	old := receive(t, p.started, "a first leader")
	gates[old].shut()
	next := receive(t, p.started, "a new leader after the old one was cut off")
	if next == old {
		t.Fatalf("%s led again while cut off", old)
	}
	if terms := p.allTerms(); terms[0].ended.IsZero() || terms[1].started.Before(terms[0].ended) {
		t.Fatalf("the new term started at %v, before the cut-off leader's work ended at %v", terms[1].started, terms[0].ended)
	}

	gates[old].reopen()
	envtest.EventuallyTrue(t, "the old leader's late renewal to be answered", func() bool { return len(gates[old].latePuts()) > 0 })
	if got := gates[old].latePuts(); got[0] != http.StatusConflict {
		t.Errorf("the old leader's late renewal: got status %d, want 409", got[0])
	}
	envtest.EventuallyTrue(t, "the old leader to follow "+next, func() bool {
		return cands[old].e.Leader() == next && p.lastNewLeader(old) == next
	})
	if cands[old].e.IsLeader() || len(p.allTerms()) != 2 {
		t.Errorf("after its network came back, %s: IsLeader %v, terms %d; want false, 2", old, cands[old].e.IsLeader(), len(p.allTerms()))
	}
	if got := getLease(t, admin, ns); got.holder != next {
		t.Errorf("lease holder: got %q, want %s", got.holder, next)
	}
}

// The elector never reads the lease's timestamps as times: a candidate
// whose clock is an hour behind the leader's neither takes over a lease
// that is being renewed, nor waits an hour for one that is not.
func TestClockSkewDoesNotMatter(t *testing.T) {
	srv := apiservertest.Start(t)
	admin := newClient(t, srv, nil)
	ns := createNamespace(t, admin, "skew")
	p, l := newProbe(t), &logs{}
	checkNoErrors(t, l)
	p.started = make(chan string, 4)

	aheadCfg := serverConfig(newClient(t, srv, nil), ns, "ahead", p, l)
	aheadCfg.Clock = skewedClock(time.Hour)
	ahead := startCandidate(t, aheadCfg)
	receive(t, p.started, "ahead to lead")
	behindCfg := serverConfig(newClient(t, srv, nil), ns, "behind", p, l)
	behindCfg.Clock = skewedClock(-time.Hour)
	behind := startCandidate(t, behindCfg)

	envtest.EventuallyTrue(t, "behind to see ahead lead", func() bool { return behind.e.Leader() == "ahead" })
	time.Sleep(aheadCfg.LeaseDuration + 500*time.Millisecond)
	if got := len(p.allTerms()); got != 1 {
		t.Fatalf("terms while ahead renews: got %d, want 1", got)
	}
	lease := getLease(t, admin, ns)
	if d := time.Until(lease.renew); d < 59*time.Minute {
		t.Errorf("renewTime is %v from now, want about an hour ahead (ahead's clock)", d)
	}

	// ahead stops without releasing; behind takes over once it has seen
	// no change for LeaseDuration, counted on its own clock.
	ahead.stop()
	lastRenew := getLease(t, admin, ns).renew.Add(-time.Hour) // back to real time
	receive(t, p.started, "behind to take over")
	terms := p.allTerms()
	if terms[1].id != "behind" {
		t.Fatalf("second term: got %s, want behind", terms[1].id)
	}
	if earliest := lastRenew.Add(aheadCfg.LeaseDuration); terms[1].started.Before(earliest) {
		t.Errorf("behind took over at %v, before the lease expired at %v", terms[1].started, earliest)
	}
}

type skewedClock time.Duration

func (s skewedClock) Now() time.Time { return time.Now().Add(time.Duration(s)) }
func (s skewedClock) NewTimer(d time.Duration) leaderelection.Timer {
	return leaderelection.RealClock{}.NewTimer(d)
}
func (s skewedClock) AfterFunc(d time.Duration, f func()) leaderelection.Timer {
	return leaderelection.RealClock{}.AfterFunc(d, f)
}

// Fence against a real server: a deposed leader either reads the newer
// token or loses the compare-and-swap.
func TestFenceOnTheServer(t *testing.T) {
	srv := apiservertest.Start(t)
	c := newClient(t, srv, nil)
	ns := createNamespace(t, c, "fence")
	key := types.NamespacedName{Namespace: ns, Name: "target"}
	if err := c.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "target"}}); err != nil {
		t.Fatal(err)
	}
	read := func() *corev1.ConfigMap {
		cm := &corev1.ConfigMap{}
		if err := c.Get(t.Context(), key, cm); err != nil {
			t.Fatal(err)
		}
		return cm
	}

	// The deposed leader (token 2) reads before the new one (token 3)
	// writes, and writes after.
	stale := read()
	fresh := read()
	if err := leaderelection.Fence(fresh, 3); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(t.Context(), fresh); err != nil {
		t.Fatal(err)
	}
	if err := leaderelection.Fence(stale, 2); err != nil {
		t.Fatalf("Fence on the copy read before the new leader wrote: %v", err)
	}
	if err := c.Update(t.Context(), stale); !client.IsConflict(err) {
		t.Fatalf("the deposed leader's write: got %v, want 409 Conflict", err)
	}
	// It reads again and is refused.
	err := leaderelection.Fence(read(), 2)
	var fe *leaderelection.FencedError
	if !errors.Is(err, leaderelection.ErrFenced) || !errors.As(err, &fe) || fe.Token != 2 || fe.Newer != 3 {
		t.Errorf("Fence with token 2 after token 3 wrote: got %v, want a FencedError{2, 3}", err)
	}
	if got := read().Annotations[leaderelection.TokenAnnotation]; got != "3" {
		t.Errorf("annotation: got %q, want 3", got)
	}
}

func TestFence(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ann     map[string]string
		tok     leaderelection.Token
		wantErr error
		want    string
	}{
		{"first writer", nil, 4, nil, "4"},
		{"same leader again", map[string]string{leaderelection.TokenAnnotation: "4"}, 4, nil, "4"},
		{"newer leader", map[string]string{leaderelection.TokenAnnotation: "4"}, 5, nil, "5"},
		{"deposed leader", map[string]string{leaderelection.TokenAnnotation: "5"}, 4, leaderelection.ErrFenced, "5"},
		{"other annotations kept", map[string]string{"x": "y"}, 0, nil, "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Annotations: tc.ann}}
			err := leaderelection.Fence(cm, tc.tok)
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("Fence: got %v, want %v", err, tc.wantErr)
			}
			if got := cm.Annotations[leaderelection.TokenAnnotation]; got != tc.want {
				t.Errorf("annotation: got %q, want %q", got, tc.want)
			}
			if tc.ann["x"] != "" && cm.Annotations["x"] != tc.ann["x"] {
				t.Errorf("other annotation lost: %v", cm.Annotations)
			}
		})
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{leaderelection.TokenAnnotation: "x"}}}
	if err := leaderelection.Fence(cm, 1); err == nil || errors.Is(err, leaderelection.ErrFenced) {
		t.Errorf("Fence over a garbled annotation: got %v, want a parse error", err)
	}
}
