package compat_test

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers"
)

// startCluster starts a server with its built-in controllers and nodes
// simulated nodes (sim-node-0, ...): the scheduler binds pods, the node
// agent runs them, as `setpoint server --nodes N` does.
func startCluster(t *testing.T, nodes int) *apiservertest.Server {
	t.Helper()
	return apiservertest.StartWith(t, apiservertest.Options{
		BuiltinControllers: true,
		ControllerOptions:  controllers.Options{Nodes: nodes},
	})
}

// podEvent is one call of a pod informer's handler, reduced to what the
// lifecycle tests compare.
type podEvent struct {
	typ, name, node string
	phase           corev1.PodPhase
	ready           bool
}

func (e podEvent) String() string {
	return fmt.Sprintf("%s %s node=%q phase=%s ready=%v", e.typ, e.name, e.node, e.phase, e.ready)
}

func podEventOf(typ string, obj any) podEvent {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	p := obj.(*corev1.Pod)
	return podEvent{typ: typ, name: p.Name, node: p.Spec.NodeName, phase: p.Status.Phase, ready: podReady(p)}
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func podHandler(ch chan<- podEvent) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { ch <- podEventOf("add", obj) },
		UpdateFunc: func(_, obj any) { ch <- podEventOf("update", obj) },
		DeleteFunc: func(obj any) { ch <- podEventOf("delete", obj) },
	}
}

// nginxPod is the pod `kubectl run NAME --image=nginx` creates.
func nginxPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"run": name}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: "nginx"}}},
	}
}

// TestPodInformerLifecycle runs a SharedInformerFactory's pod informer,
// with the WatchList client feature on and off, while a pod is created,
// scheduled and started: its handler sees the pod added unscheduled and
// then modified until it is Running and Ready on a simulated node, never
// going back, and never deleted.
func TestPodInformerLifecycle(t *testing.T) {
	for _, watchList := range []bool{true, false} {
		t.Run(fmt.Sprintf("WatchList=%v", watchList), func(t *testing.T) {
			clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, watchList)
			srv := startCluster(t, 1)
			rec := newRecorder(t)
			cs, err := kubernetes.NewForConfig(rec.wrap(srv.Config))
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			ns := createNamespace(t, cs, "lifecycle")

			factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
			inf := factory.Core().V1().Pods()
			events := make(chan podEvent, 100)
			if _, err := inf.Informer().AddEventHandler(podHandler(events)); err != nil {
				t.Fatal(err)
			}
			factory.Start(ctx.Done())
			t.Cleanup(factory.Shutdown)
			for typ, ok := range factory.WaitForCacheSync(ctxWithTimeout(t).Done()) {
				if !ok {
					t.Fatalf("informer for %v did not sync", typ)
				}
			}
			reqs := rec.requests(func(r recordedRequest) bool {
				return r.Method == http.MethodGet && r.URL.Path == "/api/v1/namespaces/"+ns+"/pods"
			})
			if got := countWhere(reqs, isWatchList) > 0 && countWhere(reqs, isPlainList) == 0; got != watchList {
				t.Fatalf("initial state: got %d WatchList requests and %d LISTs, want WatchList=%v", countWhere(reqs, isWatchList), countWhere(reqs, isPlainList), watchList)
			}

			if _, err := cs.CoreV1().Pods(ns).Create(ctx, nginxPod("web"), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			var seen []podEvent
			for {
				ev := receive(t, events, fmt.Sprintf("pod event %d (seen %v)", len(seen), seen))
				seen = append(seen, ev)
				if ev.phase == corev1.PodRunning && ev.ready {
					break
				}
			}
			first := seen[0]
			if first.typ != "add" || first.name != "web" || first.node != "" || first.phase != corev1.PodPending {
				t.Errorf("first event: got %v, want add web unscheduled and Pending", first)
			}
			for i, ev := range seen[1:] {
				if ev.typ != "update" || ev.name != "web" {
					t.Errorf("event %d: got %v, want update of web", i+1, ev)
				}
			}
			last := seen[len(seen)-1]
			if last.node != "sim-node-0" {
				t.Errorf("last event: got %v, want it on sim-node-0", last)
			}
			phases := []corev1.PodPhase{}
			for _, ev := range seen {
				if len(phases) == 0 || phases[len(phases)-1] != ev.phase {
					phases = append(phases, ev.phase)
				}
			}
			if want := []corev1.PodPhase{corev1.PodPending, corev1.PodRunning}; !slices.Equal(phases, want) {
				t.Errorf("phases in order: got %v, want %v (events %v)", phases, want, seen)
			}
			p, err := inf.Lister().Pods(ns).Get("web")
			if err != nil || p.Status.Phase != corev1.PodRunning || p.Status.PodIP == "" {
				t.Errorf("lister get web: got %v (err %v), want Running with a pod IP", p, err)
			}
		})
	}
}

// TestPodFieldSelectorNodeName watches pods as a kubelet does, across
// namespaces with fieldSelector spec.nodeName=<its node>, through an
// informer (WatchList) and a plain LIST: it sees only that node's pods,
// including one that enters the selection when the scheduler binds it.
func TestPodFieldSelectorNodeName(t *testing.T) {
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, true)
	srv := startCluster(t, 2)
	cs, err := kubernetes.NewForConfig(srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	nsA := createNamespace(t, cs, "kubelet-a")
	nsB := createNamespace(t, cs, "kubelet-b")
	waitFor(t, "both simulated nodes", func() (bool, error) {
		nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		return err == nil && len(nodes.Items) == 2, err
	})

	pinned := func(ns, name, node string) {
		t.Helper()
		p := nginxPod(name)
		p.Spec.NodeName = node
		if _, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	pinned(nsA, "on-0-before", "sim-node-0")
	pinned(nsB, "on-1-before", "sim-node-1")

	selector := fields.OneTermEqualSelector("spec.nodeName", "sim-node-0").String()
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = selector
	}))
	inf := factory.Core().V1().Pods()
	events := make(chan podEvent, 100)
	if _, err := inf.Informer().AddEventHandler(podHandler(events)); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	t.Cleanup(factory.Shutdown)
	for typ, ok := range factory.WaitForCacheSync(ctxWithTimeout(t).Done()) {
		if !ok {
			t.Fatalf("informer for %v did not sync", typ)
		}
	}

	pinned(nsB, "on-1-after", "sim-node-1")
	pinned(nsB, "on-0-after", "sim-node-0")
	// Created unbound: the scheduler must put it on sim-node-0, and the
	// watch sees it only from the binding on.
	scheduled := nginxPod("scheduled-0")
	scheduled.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": "sim-node-0"}
	if _, err := cs.CoreV1().Pods(nsA).Create(ctx, scheduled, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	want := []string{"on-0-after", "on-0-before", "scheduled-0"}
	waitFor(t, "the node's three pods Running in the lister", func() (bool, error) {
		pods, err := inf.Lister().List(labels.Everything())
		if err != nil {
			return false, err
		}
		var running []string
		for _, p := range pods {
			if p.Status.Phase == corev1.PodRunning {
				running = append(running, p.Name)
			}
		}
		slices.Sort(running)
		return slices.Equal(running, want), fmt.Errorf("running %v", running)
	})
	pods, err := inf.Lister().List(labels.Everything())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pods {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("lister: got %v, want %v", names, want)
	}
	for {
		select {
		case ev := <-events:
			if ev.node != "sim-node-0" {
				t.Errorf("event for another node's pod: %v", ev)
			}
			if ev.name == "scheduled-0" && ev.typ == "add" && ev.node == "" {
				t.Errorf("the unbound pod was added before its binding: %v", ev)
			}
			continue
		default:
		}
		break
	}

	list, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	names = names[:0]
	for _, p := range list.Items {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("LIST fieldSelector=%s: got %v, want %v", selector, names, want)
	}
}

// TestPodBadRequests checks the errors client-go gets for pods the
// server must refuse, as kube-apiserver answers them: status code,
// reason, and for invalid specs the offending field in the causes.
func TestPodBadRequests(t *testing.T) {
	srv := startCluster(t, 1)
	cs, err := kubernetes.NewForConfig(srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	ns := createNamespace(t, cs, "bad")

	bound := nginxPod("bound")
	bound.Spec.NodeName = "sim-node-0"
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, bound, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name       string
		do         func() error
		wantCode   int32
		wantReason metav1.StatusReason
		wantField  string // a cause's field, for Invalid
		wantMsg    string // the message, as kube-apiserver words it
	}{
		{
			name: "no containers",
			do: func() error {
				p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "empty"}}
				_, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
				return err
			},
			wantCode: 422, wantReason: metav1.StatusReasonInvalid,
			wantField: "spec.containers", wantMsg: `Pod "empty" is invalid: spec.containers: Required value`,
		},
		{
			name: "container without image",
			do: func() error {
				p := nginxPod("noimage")
				p.Spec.Containers[0].Image = ""
				_, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
				return err
			},
			wantCode: 422, wantReason: metav1.StatusReasonInvalid,
			wantField: "spec.containers[0].image", wantMsg: `Pod "noimage" is invalid: spec.containers[0].image: Required value`,
		},
		{
			name: "invalid container name",
			do: func() error {
				p := nginxPod("badname")
				p.Spec.Containers[0].Name = "Bad_Name"
				_, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
				return err
			},
			wantCode: 422, wantReason: metav1.StatusReasonInvalid,
			wantField: "spec.containers[0].name",
			wantMsg:   `Pod "badname" is invalid: spec.containers[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
		},
		{
			name: "bind a bound pod",
			do: func() error {
				return cs.CoreV1().Pods(ns).Bind(ctx, &corev1.Binding{
					ObjectMeta: metav1.ObjectMeta{Name: "bound"},
					Target:     corev1.ObjectReference{Kind: "Node", Name: "sim-node-0"},
				}, metav1.CreateOptions{})
			},
			wantCode: 409, wantReason: metav1.StatusReasonConflict,
			wantMsg: `Operation cannot be fulfilled on pods/binding "bound": pod bound is already assigned to node "sim-node-0"`,
		},
		{
			name: "pod in a missing namespace",
			do: func() error {
				_, err := cs.CoreV1().Pods("missing").Create(ctx, nginxPod("orphan"), metav1.CreateOptions{})
				return err
			},
			wantCode: 404, wantReason: metav1.StatusReasonNotFound,
			wantMsg: `namespaces "missing" not found`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do()
			var se apierrors.APIStatus
			if !errors.As(err, &se) {
				t.Fatalf("got error %v (%T), want an API status", err, err)
			}
			st := se.Status()
			if st.Code != tc.wantCode || st.Reason != tc.wantReason {
				t.Errorf("got %d %s, want %d %s (message %q)", st.Code, st.Reason, tc.wantCode, tc.wantReason, st.Message)
			}
			if st.Message != tc.wantMsg {
				t.Errorf("message: got %q, want %q", st.Message, tc.wantMsg)
			}
			if tc.wantField == "" {
				return
			}
			var fieldsGot []string
			if st.Details != nil {
				for _, c := range st.Details.Causes {
					fieldsGot = append(fieldsGot, c.Field)
				}
			}
			if !slices.Contains(fieldsGot, tc.wantField) {
				t.Errorf("causes' fields: got %v, want %s among them", fieldsGot, tc.wantField)
			}
		})
	}
}
