package scheduler_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/scheduler"
)

// TestSchedulerLive runs the scheduler against a real server: pods that
// fit are bound (spec.nodeName set through pods/binding, with a
// Scheduled Event), a pod that fits nowhere stays Pending with
// PodScheduled False and kube-scheduler's message, and is bound once a
// node with room appears.
func TestSchedulerLive(t *testing.T) {
	// Only this test's scheduler runs: a second one would not see its
	// assumptions.
	env := envtest.Start(t, envtest.WithoutControllers())
	c := env.Client()
	ctx := context.Background()

	mkNode := func(name, cpu string, taints ...corev1.Taint) {
		t.Helper()
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}},
			Spec: corev1.NodeSpec{Taints: taints}}
		if err := c.Create(ctx, n); err != nil {
			t.Fatalf("creating node %s: %v", name, err)
		}
		// The server taints a new node not-ready; a Ready node loses the
		// taint (kube's node lifecycle controller removes it).
		n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeNotReady })
		if err := c.Update(ctx, n); err != nil {
			t.Fatalf("untainting node %s: %v", name, err)
		}
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
		n.Status.Allocatable = corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("8Gi"),
			corev1.ResourcePods: resource.MustParse("110"),
		}
		n.Status.Capacity = n.Status.Allocatable
		if err := c.UpdateStatus(ctx, n); err != nil {
			t.Fatalf("node %s status: %v", name, err)
		}
	}
	mkNode("n1", "2", corev1.Taint{Key: "key", Value: "value", Effect: corev1.TaintEffectNoSchedule})
	mkNode("n2", "2")
	mkNode("n3", "2")

	logs := &envtest.Logs{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("manager logs:\n%s", logs)
		}
	})
	env.StartManager(t, func(m *manager.Manager) error { return scheduler.Setup(m, scheduler.Options{}) }, envtest.WithLogs(logs, slog.LevelDebug))

	mkPod := func(name, cpu string) {
		t.Helper()
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}}}
		if err := c.Create(ctx, p); err != nil {
			t.Fatalf("creating pod %s: %v", name, err)
		}
	}
	get := func(name string) *corev1.Pod {
		p := &corev1.Pod{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: name}, p); err != nil {
			t.Fatalf("getting pod %s: %v", name, err)
		}
		return p
	}

	mkPod("a", "1500m")
	mkPod("b", "1500m")
	nodes := map[string]bool{}
	for _, name := range []string{"a", "b"} {
		envtest.Eventually(t, "pod "+name+" bound", func() error {
			if p := get(name); p.Spec.NodeName == "" {
				return fmt.Errorf("no nodeName yet; conditions %+v", p.Status.Conditions)
			}
			return nil
		})
		nodes[get(name).Spec.NodeName] = true
	}
	if !nodes["n2"] || !nodes["n3"] {
		t.Errorf("pods a and b went to %v, want n2 and n3 (n1 is tainted)", nodes)
	}

	mkPod("c", "1500m")
	want := "0/3 nodes are available: 1 node(s) had untolerated taint {key: value}, 2 Insufficient cpu. " +
		"preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
	envtest.Eventually(t, "pod c Unschedulable", func() error {
		p := get("c")
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodScheduled {
				if cond.Status != corev1.ConditionFalse || cond.Reason != corev1.PodReasonUnschedulable || cond.Message != want {
					return fmt.Errorf("PodScheduled %s %s %q, want False Unschedulable %q", cond.Status, cond.Reason, cond.Message, want)
				}
				return nil
			}
		}
		return fmt.Errorf("no PodScheduled condition: %+v (nodeName %q)", p.Status.Conditions, p.Spec.NodeName)
	})
	wantEvents := map[string]string{
		"a": "Successfully assigned default/a to " + get("a").Spec.NodeName,
		"c": want,
	}
	for pod, msg := range wantEvents {
		envtest.Eventually(t, "event for "+pod, func() error {
			evs := &corev1.EventList{}
			if err := c.List(ctx, evs, client.InNamespace("default")); err != nil {
				return err
			}
			for _, e := range evs.Items {
				if e.InvolvedObject.Name == pod && e.Message == msg && e.Source.Component == scheduler.DefaultSchedulerName {
					return nil
				}
			}
			return fmt.Errorf("no event %q from %s among %d", msg, scheduler.DefaultSchedulerName, len(evs.Items))
		})
	}

	// A node with room lets the waiting pod in.
	mkNode("n4", "4")
	envtest.Eventually(t, "pod c bound to n4, PodScheduled True", func() error {
		p := get("c")
		if p.Spec.NodeName != "n4" {
			return fmt.Errorf("nodeName %q", p.Spec.NodeName)
		}
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionTrue {
				return nil
			}
		}
		return fmt.Errorf("conditions %+v", p.Status.Conditions)
	})
}

// TestSchedulerLiveFill fills ten nodes to the last millicore with 200
// pods created at once: bindings travel in parallel, so only the view's
// assumptions keep two decisions from handing out the same room. Every
// pod is bound and no node holds more than it has.
func TestSchedulerLiveFill(t *testing.T) {
	// Only this test's scheduler runs: a second one would not see its
	// assumptions.
	env := envtest.Start(t, envtest.WithoutControllers())
	c := env.Client()
	ctx := context.Background()
	const nodes, perNode = 10, 20
	for i := range nodes {
		name := fmt.Sprintf("fill-%d", i)
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}}}
		if err := c.Create(ctx, n); err != nil {
			t.Fatal(err)
		}
		n.Spec.Taints = nil
		if err := c.Update(ctx, n); err != nil {
			t.Fatal(err)
		}
		n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")}
		n.Status.Capacity = n.Status.Allocatable
		if err := c.UpdateStatus(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	env.StartManager(t, func(m *manager.Manager) error { return scheduler.Setup(m, scheduler.Options{}) })
	for i := range nodes * perNode {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("p-%d", i)},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}}}
		if err := c.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	envtest.Eventually(t, "every pod bound", func() error {
		pods := &corev1.PodList{}
		if err := c.List(ctx, pods, client.InNamespace("default")); err != nil {
			return err
		}
		per := map[string]int{}
		unbound := 0
		for _, p := range pods.Items {
			if p.Spec.NodeName == "" {
				unbound++
				continue
			}
			per[p.Spec.NodeName]++
		}
		for n, k := range per {
			if k > perNode {
				t.Fatalf("node %s holds %d pods of 100m, room for %d", n, k, perNode)
			}
		}
		if unbound > 0 {
			return fmt.Errorf("%d of %d pods unbound; per node %v", unbound, len(pods.Items), per)
		}
		return nil
	})
	// One more fits nowhere.
	extra := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "extra"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}}}
	if err := c.Create(ctx, extra); err != nil {
		t.Fatal(err)
	}
	want := "0/10 nodes are available: 10 Insufficient cpu. preemption: 0/10 nodes are available: 10 No preemption victims found for incoming pod."
	envtest.Eventually(t, "extra Unschedulable", func() error {
		p := &corev1.Pod{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "extra"}, p); err != nil {
			return err
		}
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodScheduled && cond.Reason == corev1.PodReasonUnschedulable && cond.Message == want {
				return nil
			}
		}
		return fmt.Errorf("conditions %+v, nodeName %q", p.Status.Conditions, p.Spec.NodeName)
	})
}
