package leaderelection_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/leaderelection"
)

// simulatedLabel makes the built-in node agent adopt a Node and play its
// kubelet.
const simulatedLabel = "setpoint.dev/simulated"

// podReader counts a candidate's looks at the lock and, when blind, is
// refused Pod reads as a service account without that permission would
// be: the candidate then cannot judge the lock stale, and only the
// garbage collector can free it.
type podReader struct {
	*client.Client
	blind    bool
	lockGets atomic.Int32
}

func (r *podReader) Get(ctx context.Context, key types.NamespacedName, obj client.Object) error {
	switch obj.(type) {
	case *corev1.ConfigMap:
		r.lockGets.Add(1)
	case *corev1.Pod:
		if r.blind {
			return &client.StatusError{ErrStatus: metav1.Status{
				Status: metav1.StatusFailure, Reason: metav1.StatusReasonForbidden, Code: http.StatusForbidden,
				Details: &metav1.StatusDetails{Name: key.Name, Kind: "pods"},
			}}
		}
	}
	return r.Client.Get(ctx, key, obj)
}

// runningPod creates a Pod, lets the scheduler bind it to a simulated
// node and waits until the node agent reports it Running; it returns
// the Pod as stored then.
func runningPod(t *testing.T, c *client.Client, ns, name string) *corev1.Pod {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "operator", Image: "example.com/operator:v1"}}},
	}
	if err := c.Create(t.Context(), pod); err != nil {
		t.Fatal(err)
	}
	envtest.EventuallyTrue(t, "pod "+name+" Running on a simulated node", func() bool {
		err := c.Get(t.Context(), types.NamespacedName{Namespace: ns, Name: name}, pod)
		return err == nil && pod.Spec.NodeName != "" && pod.Status.Phase == corev1.PodRunning
	}, envtest.Within(waitTimeout))
	return pod
}

// TestForLifeAcrossPods runs leader for life end to end with real Pods:
// a server with its built-in controllers (scheduler, simulated node,
// garbage collector) runs two Pods, and a candidate "in" each learns its
// Pod as a process in it would. The first leads and its lock is owned by
// its Pod; deleting that Pod (gracefully: the simulated kubelet stops it,
// then it is gone) gets the lock deleted, by the garbage collector or by
// the waiting candidate that sees the owner gone, and the second leads.
// When the second cannot read Pods, only the collector can free the
// lock: the failover then proves the collector deletes a ConfigMap owned
// by a deleted Pod.
func TestForLifeAcrossPods(t *testing.T) {
	tests := []struct {
		name string
		// blind: the second candidate may not read Pods (its uid comes
		// from the downward API instead).
		blind bool
	}{
		{name: "the waiting candidate reads Pods", blind: false},
		{name: "only the garbage collector frees the lock", blind: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := envtest.Start(t)
			c := env.Client()
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
				Name:   "sim-operator",
				Labels: map[string]string{simulatedLabel: "true"},
			}}
			if err := c.Create(t.Context(), node); err != nil {
				t.Fatal(err)
			}
			ns := createNamespace(t, c, "operator")
			podA := runningPod(t, c, ns, "operator-a")
			podB := runningPod(t, c, ns, "operator-b")
			l := &logs{}
			checkNoErrors(t, l)

			// Candidate A finds its Pod as a process in it does: its name
			// and namespace from the environment, its uid from the Pod.
			t.Setenv(leaderelection.EnvPodName, podA.Name)
			t.Setenv(leaderelection.EnvPodNamespace, ns)
			a, err := leaderelection.NewForLife(leaderelection.ForLifeConfig{
				Client: &podReader{Client: c}, Name: "operator-lock",
				InitialBackoff: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond,
				Logger: l.logger().With("candidate", "a"),
			})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
			defer cancel()
			if err := a.Become(ctx); err != nil {
				t.Fatalf("a: Become: %v", err)
			}
			lock := &corev1.ConfigMap{}
			key := types.NamespacedName{Namespace: ns, Name: "operator-lock"}
			if err := c.Get(ctx, key, lock); err != nil {
				t.Fatal(err)
			}
			wantRef := metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: podA.Name, UID: podA.UID}
			if len(lock.OwnerReferences) != 1 || lock.OwnerReferences[0] != wantRef {
				t.Fatalf("lock ownerReferences: got %+v, want [%+v]", lock.OwnerReferences, wantRef)
			}

			// Candidate B waits while A's Pod lives.
			rb := &podReader{Client: c, blind: tc.blind}
			cfgB := leaderelection.ForLifeConfig{
				Client: rb, Namespace: ns, Name: "operator-lock", PodName: podB.Name,
				InitialBackoff: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond,
				Logger: l.logger().With("candidate", "b"),
			}
			if tc.blind {
				cfgB.PodUID = podB.UID
			}
			b, err := leaderelection.NewForLife(cfgB)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- b.Become(ctx) }()
			envtest.EventuallyTrue(t, "b to look at A's lock a few times", func() bool { return rb.lockGets.Load() >= 4 })
			if b.IsLeader() {
				t.Fatal("b leads while A's Pod runs")
			}
			select {
			case err := <-done:
				t.Fatalf("b's Become returned %v while A's Pod runs", err)
			default:
			}

			if err := c.Delete(ctx, podA); err != nil {
				t.Fatal(err)
			}
			if err := receive(t, done, "b to become leader"); err != nil {
				t.Fatalf("b: Become: %v", err)
			}
			if !b.IsLeader() {
				t.Error("b: IsLeader false after Become")
			}
			if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: podA.Name}, &corev1.Pod{}); !client.IsNotFound(err) {
				t.Errorf("A's Pod: got %v, want it gone", err)
			}
			if err := c.Get(ctx, key, lock); err != nil {
				t.Fatal(err)
			}
			wantRef = metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: podB.Name, UID: podB.UID}
			if len(lock.OwnerReferences) != 1 || lock.OwnerReferences[0] != wantRef {
				t.Errorf("lock ownerReferences after failover: got %+v, want [%+v]", lock.OwnerReferences, wantRef)
			}
		})
	}
}
