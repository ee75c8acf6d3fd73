package daemonset_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/daemonset"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/nodeagent"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/nodelifecycle"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/podgc"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/scheduler"
)

// TestLive runs the DaemonSet controller with the scheduler, the
// simulated nodes, their lifecycle and a quick pod garbage collector against a real
// server: a DaemonSet gets one Ready pod on each of two nodes, a third
// node joins and gets one, a deleted node's pod goes, a nodeSelector
// keeps another DaemonSet off the nodes it excludes, an image change
// rolls out to every node under a second revision, a failed pod is
// replaced, and a template whose pods never become ready stops the
// rollout at maxUnavailable.
func TestLive(t *testing.T) {
	env := envtest.Start(t, envtest.WithoutControllers())
	env.StartManager(t, func(m *manager.Manager) error {
		if err := scheduler.Setup(m, scheduler.Options{}); err != nil {
			return err
		}
		if err := nodeagent.Setup(m, nodeagent.Options{}); err != nil {
			return err
		}
		// New nodes are tainted not-ready until this controller sees
		// them Ready; daemon pods do not tolerate that taint.
		if err := nodelifecycle.Setup(m, nodelifecycle.Options{}); err != nil {
			return err
		}
		// The collector removes the pods of a deleted node; kube's waits
		// a minute, this one seconds.
		if err := podgc.Setup(m, podgc.Options{Period: time.Second, Quarantine: time.Second}); err != nil {
			return err
		}
		return daemonset.Setup(m, daemonset.Options{})
	})
	c := env.Client()
	ctx := context.Background()
	addNode := func(name string, labels map[string]string) {
		t.Helper()
		l := map[string]string{"setpoint.dev/simulated": "true"}
		for k, v := range labels {
			l[k] = v
		}
		if err := c.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}}); err != nil {
			t.Fatal(err)
		}
	}
	addNode("sim-a", map[string]string{"edge": "true"})
	addNode("sim-b", nil)

	newDS := func(name string, nodeSelector map[string]string) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec: appsv1.DaemonSetSpec{
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
					Spec: corev1.PodSpec{NodeSelector: nodeSelector,
						Containers: []corev1.Container{{Name: "c", Image: "agent:1"}}},
				},
			},
		}
	}
	for _, ds := range []*appsv1.DaemonSet{newDS("agent", nil), newDS("edge", map[string]string{"edge": "true"})} {
		if err := c.Create(ctx, ds); err != nil {
			t.Fatal(err)
		}
	}

	// settled waits until DaemonSet name has exactly one live, Ready pod
	// of its current template on each of nodes, and says so in its
	// status; it returns the pods by node.
	settled := func(name string, nodes ...string) map[string]corev1.Pod {
		t.Helper()
		var byNode map[string]corev1.Pod
		want := int32(len(nodes))
		envtest.Eventually(t, fmt.Sprintf("%s: a ready pod on each of %v", name, nodes), func() error {
			ds := &appsv1.DaemonSet{}
			if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: name}, ds); err != nil {
				return err
			}
			st := ds.Status
			if st.DesiredNumberScheduled != want || st.CurrentNumberScheduled != want || st.NumberReady != want || st.NumberAvailable != want ||
				st.UpdatedNumberScheduled != want || st.NumberUnavailable != 0 || st.NumberMisscheduled != 0 || st.ObservedGeneration != ds.Generation {
				return fmt.Errorf("status %+v (generation %d)", st, ds.Generation)
			}
			byNode = map[string]corev1.Pod{}
			for _, p := range ownedPods(t, c, ds.UID) {
				if p.Spec.NodeName == "" {
					return fmt.Errorf("pod %s unscheduled", p.Name)
				}
				if _, dup := byNode[p.Spec.NodeName]; dup {
					return fmt.Errorf("two pods on %s", p.Spec.NodeName)
				}
				if p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == "" || p.Labels["pod-template-generation"] != fmt.Sprint(ds.Generation) {
					return fmt.Errorf("pod %s labels %v", p.Name, p.Labels)
				}
				byNode[p.Spec.NodeName] = p
			}
			var got []string
			for n := range byNode {
				got = append(got, n)
			}
			sort.Strings(got)
			if !slices.Equal(got, nodes) {
				return fmt.Errorf("pods on %v", got)
			}
			return nil
		}, envtest.Within(2*time.Minute))
		return byNode
	}

	pods := settled("agent", "sim-a", "sim-b")
	settled("edge", "sim-a")
	for node, p := range pods {
		if got, err := daemonset.TargetNode(&corev1.Pod{Spec: corev1.PodSpec{Affinity: p.Spec.Affinity}}); err != nil || got != node {
			t.Errorf("pod %s on %s is pinned by affinity to %q (%v)", p.Name, node, got, err)
		}
	}

	addNode("sim-c", nil)
	settled("agent", "sim-a", "sim-b", "sim-c")
	settled("edge", "sim-a")

	gone := pods["sim-b"]
	if err := c.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "sim-b"}}); err != nil {
		t.Fatal(err)
	}
	settled("agent", "sim-a", "sim-c")
	envtest.Eventually(t, "the deleted node's pod gone", func() error {
		p := &corev1.Pod{}
		err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: gone.Name}, p)
		if client.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("pod %s still there (%v)", gone.Name, err)
	}, envtest.Within(time.Minute))

	// An image change rolls out under a second revision.
	ds := updateDS(t, c, "agent", func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "agent:2" })
	rolled := settled("agent", "sim-a", "sim-c")
	for node, p := range rolled {
		if p.Spec.Containers[0].Image != "agent:2" {
			t.Errorf("pod on %s runs %s", node, p.Spec.Containers[0].Image)
		}
	}
	revs := &appsv1.ControllerRevisionList{}
	if err := c.List(ctx, revs, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	numbers := map[string]int64{}
	for _, r := range revs.Items {
		if ref := metav1.GetControllerOf(&r); ref != nil && ref.UID == ds.UID {
			numbers[r.Name] = r.Revision
		}
	}
	hash := rolled["sim-a"].Labels[appsv1.DefaultDaemonSetUniqueLabelKey]
	if len(numbers) != 2 || numbers["agent-"+hash] != 2 {
		t.Errorf("revisions %v, want two with agent-%s at 2", numbers, hash)
	}

	// A failed pod is deleted and replaced on its node.
	failed := &corev1.Pod{}
	envtest.Eventually(t, "a pod marked failed", func() error {
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: rolled["sim-a"].Name}, failed); err != nil {
			return err
		}
		failed.Status.Phase = corev1.PodFailed
		return c.UpdateStatus(ctx, failed)
	})
	envtest.Eventually(t, "the failed pod replaced", func() error {
		p := &corev1.Pod{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: failed.Name}, p); !client.IsNotFound(err) {
			return fmt.Errorf("failed pod %s still there (%v)", failed.Name, err)
		}
		return nil
	}, envtest.Within(time.Minute))
	if p := settled("agent", "sim-a", "sim-c")["sim-a"]; p.UID == failed.UID {
		t.Errorf("sim-a still runs the failed pod %s", p.Name)
	}

	// A template whose pods never become ready stalls the rollout after
	// maxUnavailable (1) node: the other keeps its ready old pod.
	updateDS(t, c, "agent", func(ds *appsv1.DaemonSet) {
		ds.Spec.Template.Annotations = map[string]string{"setpoint.dev/never-ready": "true"}
	})
	stalled := func() error {
		got := &appsv1.DaemonSet{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "agent"}, got); err != nil {
			return err
		}
		st := got.Status
		if st.ObservedGeneration != got.Generation || st.DesiredNumberScheduled != 2 || st.UpdatedNumberScheduled != 1 ||
			st.NumberReady != 1 || st.NumberUnavailable != 1 {
			return fmt.Errorf("status %+v", st)
		}
		var ready int
		for _, p := range ownedPods(t, c, got.UID) {
			for _, cond := range p.Status.Conditions {
				if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
		if ready != 1 {
			return fmt.Errorf("%d ready pods, want 1", ready)
		}
		return nil
	}
	envtest.Eventually(t, "the rollout stalled at one node", stalled, envtest.Within(time.Minute))
	envtest.Consistently(t, "the rollout stalled at one node", stalled, envtest.Within(3*time.Second))

	events := &corev1.EventList{}
	if err := c.List(ctx, events, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	reasons := map[string]int{}
	for _, e := range events.Items {
		if e.InvolvedObject.Kind == "DaemonSet" && e.InvolvedObject.Name == "agent" && e.Source.Component == daemonset.ControllerName {
			reasons[e.Reason]++
		}
	}
	// Two pods, one for the new node, two for the rollout, one for the
	// failed pod, one for the stalled rollout; as many deleted.
	if reasons["SuccessfulCreate"] < 6 || reasons["SuccessfulDelete"] < 3 || reasons["FailedDaemonPod"] != 1 {
		t.Errorf("daemonset events = %v, want SuccessfulCreate, SuccessfulDelete and one FailedDaemonPod", reasons)
	}
}

// updateDS changes DaemonSet name with change, read afresh until the
// write does not conflict with the controller's status writes.
func updateDS(t *testing.T, c *client.Client, name string, change func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
	t.Helper()
	ds := &appsv1.DaemonSet{}
	envtest.Eventually(t, "updating daemonset "+name, func() error {
		if err := c.Get(context.Background(), types.NamespacedName{Namespace: "default", Name: name}, ds); err != nil {
			return err
		}
		change(ds)
		return c.Update(context.Background(), ds)
	})
	return ds
}

// ownedPods are the live pods controlled by the object with uid.
func ownedPods(t *testing.T, c *client.Client, uid types.UID) []corev1.Pod {
	t.Helper()
	list := &corev1.PodList{}
	if err := c.List(context.Background(), list, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if ref := metav1.GetControllerOf(&p); ref != nil && ref.UID == uid && p.DeletionTimestamp == nil &&
			p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			out = append(out, p)
		}
	}
	return out
}
