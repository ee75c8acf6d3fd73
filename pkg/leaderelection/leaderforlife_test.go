package leaderelection_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/leaderelection"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// pods serves Pods from memory and everything else from the real server,
// so the tests play the kubelet and the collector.
type pods struct {
	*client.Client
	serve bool // false: Pod reads go to the server, started without Pods (startWithoutPods)

	mu       sync.Mutex
	byName   map[string]*corev1.Pod
	lockGets atomic.Int32
}

func newPods(c *client.Client) *pods {
	return &pods{Client: c, serve: true, byName: map[string]*corev1.Pod{}}
}

func (p *pods) Get(ctx context.Context, key types.NamespacedName, obj client.Object) error {
	pod, ok := obj.(*corev1.Pod)
	if !ok || !p.serve {
		if _, ok := obj.(*corev1.ConfigMap); ok {
			p.lockGets.Add(1)
		}
		return p.Client.Get(ctx, key, obj)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	stored, ok := p.byName[key.Name]
	if !ok {
		return &client.StatusError{ErrStatus: metav1.Status{
			Status: metav1.StatusFailure, Reason: metav1.StatusReasonNotFound, Code: http.StatusNotFound,
			Details: &metav1.StatusDetails{Name: key.Name, Kind: "pods"},
		}}
	}
	stored.DeepCopyInto(pod)
	return nil
}

func (p *pods) put(name string, uid types.UID, status corev1.PodStatus) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byName[name] = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, UID: uid}, Status: status}
}

func (p *pods) remove(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.byName, name)
}

var running = corev1.PodStatus{Phase: corev1.PodRunning}

func forLifeConfig(c leaderelection.LockClient, ns, pod string, l *logs) leaderelection.ForLifeConfig {
	return leaderelection.ForLifeConfig{
		Client: c, Namespace: ns, Name: "lock", PodName: pod, PodUID: types.UID("uid-" + pod),
		InitialBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
		Logger: l.logger().With("candidate", pod),
	}
}

func lockOwner(t testing.TB, c *client.Client, ns string) (types.UID, bool) {
	t.Helper()
	cm := &corev1.ConfigMap{}
	err := c.Get(t.Context(), types.NamespacedName{Namespace: ns, Name: "lock"}, cm)
	if client.IsNotFound(err) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return leaderelection.OwnerUID(cm), true
}

// Three Pods compete; each leads only once every earlier leader's Pod is
// gone, and then only after a waiting candidate found the owner gone and
// deleted the stale lock.
func TestForLifeOneLeaderAtATime(t *testing.T) {
	srv := apiservertest.Start(t)
	c := newClient(t, srv, nil)
	ns := createNamespace(t, c, "for-life")
	ps, l := newPods(c), &logs{}
	checkNoErrors(t, l)

	type result struct {
		pod string
		err error
	}
	won := make(chan result, 3)
	var mu sync.Mutex
	dead := map[string]bool{}
	names := []string{"pod-a", "pod-b", "pod-c"}
	for _, name := range names {
		ps.put(name, types.UID("uid-"+name), running)
		f, err := leaderelection.NewForLife(forLifeConfig(ps, ns, name, l))
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			err := f.Become(t.Context())
			if err == nil && !f.IsLeader() {
				err = errors.New("Become returned but IsLeader is false")
			}
			won <- result{name, err}
		}()
	}
	var order []string
	for range names {
		r := receive(t, won, "a leader")
		if r.err != nil {
			t.Fatalf("%s: Become: %v", r.pod, r.err)
		}
		mu.Lock()
		for _, prev := range order {
			if !dead[prev] {
				t.Errorf("%s became leader while %s, an earlier leader, was alive", r.pod, prev)
			}
		}
		mu.Unlock()
		if uid, ok := lockOwner(t, c, ns); !ok || uid != types.UID("uid-"+r.pod) {
			t.Errorf("lock owner while %s leads: got %q (exists %v)", r.pod, uid, ok)
		}
		// Nobody else may take over while it lives.
		before := ps.lockGets.Load()
		envtest.EventuallyTrue(t, "the waiting candidates to look at the lock a few times", func() bool {
			return len(order) == len(names)-1 || ps.lockGets.Load() >= before+6
		})
		select {
		case r2 := <-won:
			t.Fatalf("%s became leader while %s lived (err %v)", r2.pod, r.pod, r2.err)
		default:
		}
		order = append(order, r.pod)
		mu.Lock()
		dead[r.pod] = true
		mu.Unlock()
		ps.remove(r.pod) // the Pod goes; no garbage collector follows
	}
}

// What a waiting candidate makes of the lock's owner.
func TestForLifeStaleOwner(t *testing.T) {
	for _, tc := range []struct {
		name     string
		owner    func(ps *pods) // the owner Pod's state
		noPods   bool           // the server does not serve Pods
		takeover bool
	}{
		{name: "owner running", owner: func(ps *pods) { ps.put("old", "uid-old", running) }},
		{name: "owner failed, not evicted", owner: func(ps *pods) {
			ps.put("old", "uid-old", corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Error"})
		}},
		{name: "owner pending", owner: func(ps *pods) { ps.put("old", "uid-old", corev1.PodStatus{Phase: corev1.PodPending}) }},
		{name: "pods not served", noPods: true},
		{name: "owner evicted", takeover: true, owner: func(ps *pods) {
			ps.put("old", "uid-old", corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted"})
		}},
		{name: "owner deleted", takeover: true, owner: func(*pods) {}},
		{name: "owner replaced under its name", takeover: true, owner: func(ps *pods) { ps.put("old", "uid-other", running) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := apiservertest.Start(t)
			if tc.noPods {
				srv = startWithoutPods(t)
			}
			c := newClient(t, srv, nil)
			ns := createNamespace(t, c, "stale")
			ps, l := newPods(c), &logs{}
			checkNoErrors(t, l)
			ps.serve = !tc.noPods
			if tc.owner != nil {
				tc.owner(ps)
			}
			if err := c.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
				Namespace: ns, Name: "lock",
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "old", UID: "uid-old"}},
			}}); err != nil {
				t.Fatal(err)
			}
			f, err := leaderelection.NewForLife(forLifeConfig(ps, ns, "new", l))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- f.Become(ctx) }()

			if tc.takeover {
				if err := receive(t, done, "Become"); err != nil {
					t.Fatalf("Become: %v", err)
				}
				if uid, _ := lockOwner(t, c, ns); uid != "uid-new" {
					t.Errorf("lock owner: got %q, want uid-new", uid)
				}
				cancel()
				return
			}
			envtest.EventuallyTrue(t, "a few looks at the lock", func() bool { return ps.lockGets.Load() >= 5 })
			cancel()
			if err := receive(t, done, "Become to return"); !errors.Is(err, context.Canceled) {
				t.Errorf("Become: got %v, want context.Canceled", err)
			}
			if uid, ok := lockOwner(t, c, ns); !ok || uid != "uid-old" || f.IsLeader() {
				t.Errorf("lock owner: got %q (exists %v), IsLeader %v; want uid-old kept, not leader", uid, ok, f.IsLeader())
			}
		})
	}
}

// Garbage collection deleting the lock (simulated) frees it for the
// next candidate, on a server whose Pods cannot be read.
func TestForLifeLockCollected(t *testing.T) {
	srv := startWithoutPods(t)
	c := newClient(t, srv, nil)
	ns := createNamespace(t, c, "collected")
	ps, l := newPods(c), &logs{}
	checkNoErrors(t, l)
	ps.serve = false // staleness cannot be judged: only deletion frees the lock
	first, err := leaderelection.NewForLife(forLifeConfig(ps, ns, "first", l))
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Become(t.Context()); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	cfg := forLifeConfig(ps, ns, "second", l)
	cfg.Registerer = reg
	second, err := leaderelection.NewForLife(cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- second.Become(t.Context()) }()
	envtest.EventuallyTrue(t, "second to look at the lock", func() bool { return ps.lockGets.Load() >= 4 })
	if got := gaugeValue(t, reg, "lock"); got != 0 {
		t.Errorf("second's gauge while waiting: got %v, want 0", got)
	}
	if err := c.Delete(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "lock"}}); err != nil {
		t.Fatal(err)
	}
	if err := receive(t, done, "second to become leader"); err != nil {
		t.Fatal(err)
	}
	if uid, _ := lockOwner(t, c, ns); uid != "uid-second" {
		t.Errorf("lock owner: got %q, want uid-second", uid)
	}
	if got := gaugeValue(t, reg, "lock"); got != 1 {
		t.Errorf("second's gauge: got %v, want 1", got)
	}
}

// A process restarted inside the Pod that holds the lock leads again at
// once; its uid comes from its Pod when not given.
func TestForLifeRestartInTheSamePod(t *testing.T) {
	srv := apiservertest.Start(t)
	c := newClient(t, srv, nil)
	ns := createNamespace(t, c, "restart")
	ps, l := newPods(c), &logs{}
	checkNoErrors(t, l)
	ps.put("me", "uid-me", running)
	for i := range 2 {
		t.Setenv(leaderelection.EnvPodName, "me")
		t.Setenv(leaderelection.EnvPodNamespace, ns)
		f, err := leaderelection.NewForLife(leaderelection.ForLifeConfig{Client: ps, Name: "lock", Logger: l.logger()})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
		err = f.Become(ctx)
		cancel()
		if err != nil {
			t.Fatalf("start %d: Become: %v", i, err)
		}
		if uid, _ := lockOwner(t, c, ns); uid != "uid-me" {
			t.Errorf("start %d: lock owner %q, want uid-me", i, uid)
		}
	}
}

func TestForLifeConfig(t *testing.T) {
	t.Setenv(leaderelection.EnvPodName, "")
	t.Setenv(leaderelection.EnvPodNamespace, "")
	c := &pods{}
	for _, tc := range []struct {
		name  string
		cfg   leaderelection.ForLifeConfig
		field string
	}{
		{"no client", leaderelection.ForLifeConfig{Name: "l", Namespace: "ns", PodName: "p"}, "Client"},
		{"no name", leaderelection.ForLifeConfig{Client: c, Namespace: "ns", PodName: "p"}, "Name"},
		{"no namespace", leaderelection.ForLifeConfig{Client: c, Name: "l", PodName: "p"}, "Namespace"},
		{"no pod", leaderelection.ForLifeConfig{Client: c, Name: "l", Namespace: "ns"}, "PodName"},
		{"backoff upside down", leaderelection.ForLifeConfig{Client: c, Name: "l", Namespace: "ns", PodName: "p", InitialBackoff: time.Minute, MaxBackoff: time.Second}, "InitialBackoff and MaxBackoff"},
		{"complete", leaderelection.ForLifeConfig{Client: c, Name: "l", Namespace: "ns", PodName: "p"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := leaderelection.NewForLife(tc.cfg)
			var ce *leaderelection.ConfigError
			switch {
			case tc.field == "" && err != nil:
				t.Errorf("got %v, want success", err)
			case tc.field != "" && (!errors.As(err, &ce) || ce.Field != tc.field):
				t.Errorf("got %v, want a ConfigError for %s", err, tc.field)
			}
		})
	}
}

// startWithoutPods starts a server that does not serve Pods, where a
// lock's staleness cannot be judged and only its deletion frees it.
func startWithoutPods(t *testing.T) *apiservertest.Server {
	var kinds []*registry.Resource
	for _, r := range registry.Builtin() {
		if r.Plural != "pods" {
			kinds = append(kinds, r)
		}
	}
	return apiservertest.StartWith(t, apiservertest.Options{Configure: func(cfg *apiserver.Config) {
		cfg.Registry = registry.New(kinds...)
	}})
}
