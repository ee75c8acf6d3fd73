package scheduler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// fakeAPI records the scheduler's writes and answers with bindErr.
type fakeAPI struct {
	mu       sync.Mutex
	bindErr  error
	bindings []string // "ns/pod->node"
	statuses []*corev1.Pod
	// watch hears of each status write, as the pod informer would.
	watch func(*corev1.Pod)
}

func (f *fakeAPI) CreateSubresource(_ context.Context, obj client.Object, sub string, body client.Object, _ ...client.WriteOption) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := body.(*corev1.Binding)
	if sub != "binding" || !ok {
		return fmt.Errorf("unexpected subresource %s with %T", sub, body)
	}
	if f.bindErr != nil {
		return f.bindErr
	}
	f.bindings = append(f.bindings, fmt.Sprintf("%s/%s->%s %s", obj.GetNamespace(), obj.GetName(), b.Target.Kind, b.Target.Name))
	return nil
}

func (f *fakeAPI) UpdateStatus(_ context.Context, obj client.Object, _ ...client.WriteOption) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := obj.(*corev1.Pod).DeepCopy()
	f.statuses = append(f.statuses, p)
	if f.watch != nil {
		f.watch(p.DeepCopy())
	}
	return nil
}

// fakePods is the pod cache: a map by name.
type fakePods struct {
	mu   sync.Mutex
	pods map[types.NamespacedName]*corev1.Pod
}

func (f *fakePods) Get(_ context.Context, key types.NamespacedName, obj client.Object) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.pods[key]
	if !ok {
		return client.NewNotFound(schema.GroupResource{Resource: "pods"}, key.Name)
	}
	p.DeepCopyInto(obj.(*corev1.Pod))
	return nil
}

func (f *fakePods) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return errors.New("not used")
}

func (f *fakePods) set(p *corev1.Pod) (old *corev1.Pod) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pods == nil {
		f.pods = map[types.NamespacedName]*corev1.Pod{}
	}
	old = f.pods[keyOf(p)]
	f.pods[keyOf(p)] = p.DeepCopy()
	return old
}

// fakeEvents records Events as "type reason message".
type fakeEvents struct {
	mu  sync.Mutex
	got []string
}

func (f *fakeEvents) Eventf(obj client.Object, eventtype, reason, format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, eventtype+" "+reason+" "+fmt.Sprintf(format, args...))
}

// fakeQueue records the requests added.
type fakeQueue struct {
	mu   sync.Mutex
	reqs []string
}

func (q *fakeQueue) Add(req reconcile.Request, _ reconcile.Reason) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.reqs = append(q.reqs, req.String())
}

func (q *fakeQueue) take() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	r := q.reqs
	q.reqs = nil
	return r
}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// harness is a reconciler with fakes around it.
type harness struct {
	r      *reconciler
	feed   *feed
	api    *fakeAPI
	events *fakeEvents
	pods   *fakePods
	clock  *clock.Fake
	queue  *fakeQueue
}

func newHarness() *harness {
	h := &harness{api: &fakeAPI{}, events: &fakeEvents{}, pods: &fakePods{}, clock: clock.NewFake(epoch), queue: &fakeQueue{}}
	opts := Options{Clock: h.clock}.withDefaults()
	v := newView()
	h.r = &reconciler{pods: h.pods, view: v, api: h.api, events: h.events, clock: h.clock, opts: opts}
	h.feed = &feed{view: v, schedulerName: opts.SchedulerName}
	h.api.watch = func(p *corev1.Pod) { h.event(p) }
	return h
}

// event is a pod event as the informer delivers it: into the cache, to
// the view, and to the queue when the For predicate passes it.
func (h *harness) event(p *corev1.Pod) {
	old := h.pods.set(p)
	h.feed.pod(h.queue, old, p)
	pred := pending(h.r.opts.SchedulerName)
	if (old == nil && pred.CreateFunc(p)) || (old != nil && pred.UpdateFunc(old, p)) {
		h.queue.Add(reqOf(p.Name), reconcile.Reason{Trigger: reconcile.TriggerUpdate})
	}
}

func (h *harness) reconcile(name string) (reconcile.Result, error) {
	return h.r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: name}})
}

func node(name, cpu string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(cpu),
			corev1.ResourceMemory: resource.MustParse("8Gi"),
			corev1.ResourcePods:   resource.MustParse("110"),
		}},
	}
}

func pod(name, cpu string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Spec: corev1.PodSpec{
			SchedulerName: DefaultSchedulerName,
			Containers: []corev1.Container{{Name: "c", Image: "nginx", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
}

func reqOf(name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: name}}
}
