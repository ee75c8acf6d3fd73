package podgc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
)

// fakeCluster is the informers' view and the server at once: pods and
// nodes the cache lists, nodes the server still has, and the writes.
type fakeCluster struct {
	pods        []*corev1.Pod
	cachedNodes []*corev1.Node
	serverNodes map[string]bool
	getErr      error

	mu     sync.Mutex
	writes []string
	marked map[string]*corev1.Pod
}

func (f *fakeCluster) Get(_ context.Context, key types.NamespacedName, _ client.Object) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes = append(f.writes, "get node/"+key.Name)
	if f.getErr != nil {
		return f.getErr
	}
	if !f.serverNodes[key.Name] {
		return client.NewNotFound(schema.GroupResource{Resource: "nodes"}, key.Name)
	}
	return nil
}

func (f *fakeCluster) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	switch l := list.(type) {
	case *corev1.PodList:
		for _, p := range f.pods {
			l.Items = append(l.Items, *p)
		}
	case *corev1.NodeList:
		for _, n := range f.cachedNodes {
			l.Items = append(l.Items, *n)
		}
	default:
		return fmt.Errorf("unexpected list %T", list)
	}
	return nil
}

func (f *fakeCluster) UpdateStatus(_ context.Context, obj client.Object, _ ...client.WriteOption) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := obj.(*corev1.Pod)
	f.writes = append(f.writes, "status "+p.Name)
	f.marked[p.Name] = p.DeepCopy()
	return nil
}

func (f *fakeCluster) Delete(_ context.Context, obj client.Object, opts ...client.DeleteOption) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	grace := "?"
	for _, o := range opts {
		if g, ok := o.(client.GracePeriodSeconds); ok {
			grace = fmt.Sprint(int64(g))
		}
	}
	f.writes = append(f.writes, "delete "+obj.GetName()+" grace "+grace)
	return nil
}

// TestLook runs looks 20 s apart over a cluster whose node "ghost" is
// gone and whose node "lagging" the informer has not seen yet.
func TestLook(t *testing.T) {
	f := &fakeCluster{
		pods: []*corev1.Pod{
			pod("ghosted", time.Hour, on("ghost")),
			pod("ghosted-done", time.Hour, on("ghost"), phase(corev1.PodSucceeded)),
			pod("new", time.Hour, on("lagging")),
			pod("old-done", 2*time.Hour, phase(corev1.PodFailed)),
			pod("done", time.Minute, phase(corev1.PodSucceeded)),
			pod("live", time.Hour),
		},
		cachedNodes: []*corev1.Node{node("n1", corev1.ConditionTrue)},
		serverNodes: map[string]bool{"n1": true, "lagging": true},
		marked:      map[string]*corev1.Pod{},
	}
	clk := clock.NewFake(t0)
	c := &collector{cache: f, api: f, log: slog.New(slog.DiscardHandler),
		opts: Options{TerminatedPodThreshold: 2, Period: DefaultPeriod, Quarantine: DefaultQuarantine, Clock: clk}}
	steps := []struct {
		name string
		want []string
	}{
		{"at once: the oldest terminated pod beyond the threshold", []string{"delete old-done grace 0"}},
		{"20 s: the missing nodes are still in quarantine", []string{"delete old-done grace 0"}},
		{"40 s: the server says which node is really gone", []string{
			"delete old-done grace 0", "get node/ghost", "get node/lagging", "status ghosted", "delete ghosted grace 0", "delete ghosted-done grace 0"}},
	}
	for i, s := range steps {
		if i > 0 {
			clk.Step(DefaultPeriod)
		}
		f.writes = nil
		c.look(context.Background())
		got := slices.Clone(f.writes)
		// Deletions run in parallel: compare them as a set, in order.
		slices.Sort(got)
		want := slices.Clone(s.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: writes %q, want %q", s.name, got, want)
		}
	}
	m := f.marked["ghosted"]
	if m == nil || m.Status.Phase != corev1.PodFailed || len(m.Status.Conditions) != 1 ||
		m.Status.Conditions[0].Reason != "DeletionByPodGC" || !m.Status.Conditions[0].LastTransitionTime.Time.Equal(t0.Add(2*DefaultPeriod)) {
		t.Errorf("orphan marked %+v, want Failed with DeletionByPodGC at %s", m, t0.Add(2*DefaultPeriod))
	}
	if _, ok := f.marked["ghosted-done"]; ok {
		t.Error("a pod that succeeded was marked Failed")
	}
}

// TestLookReadFails: a node the server cannot be asked about keeps its
// pods.
func TestLookReadFails(t *testing.T) {
	f := &fakeCluster{
		pods:   []*corev1.Pod{pod("ghosted", time.Hour, on("ghost"))},
		getErr: errors.New("connection refused"),
		marked: map[string]*corev1.Pod{},
	}
	clk := clock.NewFake(t0)
	c := &collector{cache: f, api: f, log: slog.New(slog.DiscardHandler),
		opts: Options{Period: DefaultPeriod, Quarantine: DefaultQuarantine, Clock: clk}.withDefaults()}
	c.look(context.Background())
	clk.Step(DefaultQuarantine)
	c.look(context.Background())
	if want := []string{"get node/ghost"}; !slices.Equal(f.writes, want) {
		t.Errorf("writes %q, want %q", f.writes, want)
	}
}
