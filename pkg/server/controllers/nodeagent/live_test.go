package nodeagent_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/nodeagent"
)

// TestLive runs the agent against a real server: it registers its
// nodes with their leases, runs a pod bound to one of them to Running
// and Ready, runs a pod that exits to Succeeded, adopts a node a user
// marks, stops renewing the lease of a node whose heartbeat is stopped,
// and finishes the deletion of a pod.
func TestLive(t *testing.T) {
	env := envtest.Start(t)
	env.StartManager(t, func(m *manager.Manager) error {
		return nodeagent.Setup(m, nodeagent.Options{Nodes: 2, LeaseInterval: time.Second})
	})
	c := env.Client()
	ctx := context.Background()

	for _, name := range []string{"sim-node-0", "sim-node-1"} {
		envtest.Eventually(t, "node "+name+" ready with a lease", func() error {
			n := &corev1.Node{}
			if err := c.Get(ctx, types.NamespacedName{Name: name}, n); err != nil {
				return err
			}
			if !nodeReady(n) || n.Spec.PodCIDR == "" {
				return fmt.Errorf("node status %+v, podCIDR %q", n.Status.Conditions, n.Spec.PodCIDR)
			}
			l := &coordinationv1.Lease{}
			if err := c.Get(ctx, types.NamespacedName{Namespace: nodeagent.NodeLeaseNamespace, Name: name}, l); err != nil {
				return err
			}
			if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != name || len(l.OwnerReferences) != 1 || l.OwnerReferences[0].UID != n.UID {
				return fmt.Errorf("lease %+v", l)
			}
			return nil
		})
	}

	web := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec:       corev1.PodSpec{NodeName: "sim-node-0", Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
	}
	job := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "job", Annotations: map[string]string{nodeagent.AnnotationExitAfter: "1s"}},
		Spec: corev1.PodSpec{NodeName: "sim-node-1", RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "work", Image: "busybox"}}},
	}
	for _, p := range []*corev1.Pod{web, job} {
		if err := c.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
	}

	envtest.Eventually(t, "web running and ready", func() error {
		p := &corev1.Pod{}
		if err := c.Get(ctx, key(web), p); err != nil {
			return err
		}
		for _, ct := range []corev1.PodConditionType{corev1.PodReadyToStartContainers, corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady, corev1.PodScheduled} {
			if !podCondition(p, ct) {
				return fmt.Errorf("condition %s not true: %+v", ct, p.Status.Conditions)
			}
		}
		if p.Status.Phase != corev1.PodRunning || len(p.Status.ContainerStatuses) != 1 || p.Status.ContainerStatuses[0].State.Running == nil ||
			!p.Status.ContainerStatuses[0].Ready || p.Status.PodIP == "" || p.Status.HostIP == "" {
			return fmt.Errorf("status %+v", p.Status)
		}
		return nil
	})
	envtest.Eventually(t, "job succeeded", func() error {
		p := &corev1.Pod{}
		if err := c.Get(ctx, key(job), p); err != nil {
			return err
		}
		if p.Status.Phase != corev1.PodSucceeded || len(p.Status.ContainerStatuses) != 1 ||
			p.Status.ContainerStatuses[0].State.Terminated == nil || p.Status.ContainerStatuses[0].State.Terminated.Reason != "Completed" {
			return fmt.Errorf("status %+v", p.Status)
		}
		return nil
	})
	envtest.Eventually(t, "the kubelet's Started event about web", func() error {
		var events corev1.EventList
		if err := c.List(ctx, &events, client.InNamespace("default")); err != nil {
			return err
		}
		for _, e := range events.Items {
			if e.InvolvedObject.Name == "web" && e.Reason == "Started" && e.Source.Component == "kubelet" && e.Source.Host == "sim-node-0" {
				return nil
			}
		}
		return fmt.Errorf("no Started event among %d", len(events.Items))
	})

	// A node a user brings with the label is run too.
	mine := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "mine", Labels: map[string]string{nodeagent.LabelSimulated: "true"}}}
	if err := c.Create(ctx, mine); err != nil {
		t.Fatal(err)
	}
	envtest.Eventually(t, "the user's node adopted", func() error {
		n := &corev1.Node{}
		if err := c.Get(ctx, types.NamespacedName{Name: "mine"}, n); err != nil {
			return err
		}
		if !nodeReady(n) || n.Spec.PodCIDR != "10.244.2.0/24" || len(n.Status.Addresses) == 0 {
			return fmt.Errorf("podCIDR %q, status %+v", n.Spec.PodCIDR, n.Status)
		}
		return nil
	})

	// A stopped heartbeat leaves the lease to expire.
	n1 := &corev1.Node{}
	if err := c.Get(ctx, types.NamespacedName{Name: "sim-node-1"}, n1); err != nil {
		t.Fatal(err)
	}
	n1.Annotations[nodeagent.AnnotationHeartbeat] = nodeagent.HeartbeatStopped
	if err := c.Update(ctx, n1); err != nil {
		t.Fatal(err)
	}
	renewedAt := func() (time.Time, error) {
		l := &coordinationv1.Lease{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: nodeagent.NodeLeaseNamespace, Name: "sim-node-1"}, l); err != nil {
			return time.Time{}, err
		}
		return l.Spec.RenewTime.Time, nil
	}
	time.Sleep(1500 * time.Millisecond) // a renewal under way may still land
	stoppedAt, err := renewedAt()
	if err != nil {
		t.Fatal(err)
	}
	envtest.Consistently(t, "sim-node-1's lease not renewed", func() error {
		at, err := renewedAt()
		if err == nil && !at.Equal(stoppedAt) {
			err = fmt.Errorf("renewed at %s after the heartbeat stopped (%s)", at, stoppedAt)
		}
		return err
	}, envtest.Within(3*time.Second))

	if err := c.Delete(ctx, web); err != nil {
		t.Fatal(err)
	}
	envtest.Eventually(t, "web deleted", func() error {
		err := c.Get(ctx, key(web), &corev1.Pod{})
		if client.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (%v)", err)
	})
}

func key(p *corev1.Pod) types.NamespacedName {
	return types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func podCondition(p *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
