package nodeagent

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// agent is both reconcilers on one store and a fake clock.
type agent struct {
	store *store
	clk   *clock.Fake
	nodes *nodeReconciler
	pods  *podReconciler
	kube  *kubeletEvents
}

func newAgent(t *testing.T, o Options, objs ...client.Object) *agent {
	t.Helper()
	clk := clock.NewFake(t0)
	o.Clock = clk
	cfg := mustConfig(t, o)
	s := newStore(objs...)
	ips := newPodIPs()
	kube := newKubeletEvents(s, clk, slog.New(slog.DiscardHandler))
	return &agent{
		store: s, clk: clk, kube: kube,
		nodes: &nodeReconciler{cfg: cfg, cache: s, api: s, clock: clk, ips: ips, leases: map[string]*coordinationv1.Lease{}},
		pods:  &podReconciler{cfg: cfg, cache: s, clock: clk, ips: ips, events: kube, uids: map[types.NamespacedName]types.UID{}},
	}
}

func request(ns, name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
}

func TestNodeReconciler(t *testing.T) {
	cfg := mustConfig(t, Options{Nodes: 1})
	stopped := cfg.newNode(0, t0)
	stopped.Name = "stopped"
	stopped.Annotations[AnnotationHeartbeat] = HeartbeatStopped
	bare := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "brought", Labels: map[string]string{LabelSimulated: "true"}}}
	other := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "real"}}
	a := newAgent(t, Options{Nodes: 1}, cfg.newNode(0, t0), stopped, bare, other)
	ctx := context.Background()

	type step struct {
		after      time.Duration
		node       string
		wantWrites []string
		wantWait   time.Duration
	}
	steps := []step{
		{0, "sim-node-0", []string{"create *v1.Lease kube-node-lease/sim-node-0"}, 10 * time.Second},
		{time.Second, "sim-node-0", nil, 9 * time.Second},
		{10 * time.Second, "sim-node-0", []string{"update *v1.Lease kube-node-lease/sim-node-0"}, 10 * time.Second},
		{5 * time.Minute, "sim-node-0", []string{"status *v1.Node /sim-node-0", "update *v1.Lease kube-node-lease/sim-node-0"}, 10 * time.Second},
		{5 * time.Minute, "stopped", nil, 0},
		{5 * time.Minute, "real", nil, 0},
		{5 * time.Minute, "brought", []string{"update *v1.Node /brought"}, 0},
		{5 * time.Minute, "brought", []string{"status *v1.Node /brought", "create *v1.Lease kube-node-lease/brought"}, 10 * time.Second},
		{5 * time.Minute, "gone", nil, 0},
	}
	var elapsed time.Duration
	for i, s := range steps {
		a.clk.Step(s.after - elapsed)
		elapsed = s.after
		res, err := a.nodes.Reconcile(ctx, request("", s.node))
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := a.store.takeWrites(); !slices.Equal(got, s.wantWrites) || res.RequeueAfter != s.wantWait {
			t.Fatalf("step %d (%s at +%s): writes %q, wait %s; want %q, %s", i, s.node, s.after, got, res.RequeueAfter, s.wantWrites, s.wantWait)
		}
	}

	var brought corev1.Node
	if err := a.store.Get(ctx, types.NamespacedName{Name: "brought"}, &brought); err != nil {
		t.Fatal(err)
	}
	if brought.Spec.PodCIDR != "10.244.1.0/24" || internalIP(&brought) != "172.18.0.3" || lastHeartbeat(&brought).IsZero() {
		t.Errorf("adopted node: podCIDR %s, InternalIP %s, status %+v", brought.Spec.PodCIDR, internalIP(&brought), brought.Status)
	}
	var lease coordinationv1.Lease
	if err := a.store.Get(ctx, types.NamespacedName{Namespace: NodeLeaseNamespace, Name: "sim-node-0"}, &lease); err != nil {
		t.Fatal(err)
	}
	if !lease.Spec.RenewTime.Time.Equal(t0.Add(5*time.Minute)) || lease.OwnerReferences[0].UID != "uid-sim-node-0" {
		t.Errorf("lease %+v", lease)
	}
}

func TestPodReconciler(t *testing.T) {
	cfg := mustConfig(t, Options{Nodes: 1})
	stopped := cfg.newNode(1, t0)
	stopped.Name = "stopped"
	stopped.Annotations[AnnotationHeartbeat] = HeartbeatStopped
	pod := func(name, node string, annotations ...string) *corev1.Pod {
		p := testPod(func(p *corev1.Pod) {
			p.Name, p.UID, p.Spec.NodeName = name, "", node
			p.Spec.RestartPolicy = corev1.RestartPolicyNever
			p.Annotations = map[string]string{}
			for i := 0; i < len(annotations); i += 2 {
				p.Annotations[annotations[i]] = annotations[i+1]
			}
		})
		return p
	}
	a := newAgent(t, Options{Nodes: 1}, cfg.newNode(0, t0), stopped,
		pod("a", "sim-node-0"), pod("job", "sim-node-0", AnnotationExitAfter, "30s"), pod("c", "sim-node-0"),
		pod("frozen", "stopped"), pod("unbound", ""))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = a.kube.Start(ctx) }()
	get := func(name string) *corev1.Pod {
		p := &corev1.Pod{}
		if err := a.store.Get(ctx, types.NamespacedName{Namespace: "default", Name: name}, p); err != nil {
			return nil
		}
		return p
	}

	type step struct {
		after    time.Duration
		pod      string
		act      func()
		wantIP   string
		phase    corev1.PodPhase
		writes   []string
		wantWait time.Duration
	}
	del := func(name string) func() {
		return func() {
			p := get(name)
			now := metav1.NewTime(a.clk.Now())
			p.DeletionTimestamp = &now
			if err := a.store.Update(ctx, p); err != nil {
				t.Fatal(err)
			}
			a.store.takeWrites()
		}
	}
	steps := []step{
		{pod: "a", wantIP: "10.244.0.2", phase: corev1.PodRunning, writes: []string{"status *v1.Pod default/a"}},
		{pod: "a", wantIP: "10.244.0.2", phase: corev1.PodRunning},
		{pod: "job", wantIP: "10.244.0.3", phase: corev1.PodRunning, writes: []string{"status *v1.Pod default/job"}, wantWait: 30 * time.Second},
		{pod: "frozen", phase: corev1.PodPending},
		{pod: "unbound", phase: corev1.PodPending},
		{after: 30 * time.Second, pod: "job", wantIP: "10.244.0.3", phase: corev1.PodSucceeded, writes: []string{"status *v1.Pod default/job"}},
		// The finished job's address goes to the next pod.
		{after: 30 * time.Second, pod: "c", wantIP: "10.244.0.3", phase: corev1.PodRunning, writes: []string{"status *v1.Pod default/c"}},
		{after: time.Minute, pod: "a", act: del("a"), writes: []string{"status *v1.Pod default/a", "delete *v1.Pod default/a"}},
		{after: time.Minute, pod: "a"},
	}
	var elapsed time.Duration
	for i, s := range steps {
		a.clk.Step(s.after - elapsed)
		elapsed = s.after
		if s.act != nil {
			s.act()
		}
		res, err := a.pods.Reconcile(ctx, request("default", s.pod))
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := a.store.takeWrites(); !slices.Equal(got, s.writes) || res.RequeueAfter != s.wantWait {
			t.Fatalf("step %d (%s at +%s): writes %q, wait %s; want %q, %s", i, s.pod, s.after, got, res.RequeueAfter, s.writes, s.wantWait)
		}
		if p := get(s.pod); p != nil && (p.Status.PodIP != s.wantIP || p.Status.Phase != s.phase) {
			t.Fatalf("step %d: pod %s has IP %q phase %s, want %q %s", i, s.pod, p.Status.PodIP, p.Status.Phase, s.wantIP, s.phase)
		}
	}
	if d := a.store.deletes; len(d) != 1 || d[0].GracePeriodSeconds == nil || *d[0].GracePeriodSeconds != 0 || d[0].Preconditions == nil {
		t.Errorf("deletes %+v, want one with grace period 0 and the UID precondition", d)
	}

	// The kubelet's Events reach the server, from the node's kubelet.
	deadline := time.Now().Add(5 * time.Second)
	for {
		var reasons []string
		a.store.mu.Lock()
		for _, o := range a.store.objs {
			if ev, ok := o.(*corev1.Event); ok && ev.InvolvedObject.Name == "a" {
				if ev.Source.Component != "kubelet" || ev.Source.Host != "sim-node-0" {
					t.Errorf("event source %+v", ev.Source)
				}
				reasons = append(reasons, ev.Reason)
			}
		}
		a.store.mu.Unlock()
		slices.Sort(reasons)
		if strings.Join(reasons, ",") == "Created,Killing,Pulled,Pulling,Started" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("events about pod a: %v", reasons)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
