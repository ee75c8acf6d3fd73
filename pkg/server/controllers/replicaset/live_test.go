package replicaset_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
)

// TestLive runs the built-in controllers, the ReplicaSet controller with
// the scheduler and a simulated node among them: the seed's example of a
// ReplicaSet that loses a pod and makes another, then scaling down,
// adoption of a matching orphan and release of a pod relabelled away.
func TestLive(t *testing.T) {
	env := envtest.Start(t)
	c := env.Client()
	ctx := context.Background()
	// envtest's node agent registers no node of its own: this one it
	// adopts and runs.
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "sim", Labels: map[string]string{"setpoint.dev/simulated": "true"}}}
	if err := c.Create(ctx, node); err != nil {
		t.Fatal(err)
	}
	replicas := int32(3)
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
			},
		},
	}
	if err := c.Create(ctx, rs); err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: "default", Name: "web"}
	// settled waits until the ReplicaSet owns want live pods, all Ready,
	// and says so in its status.
	settled := func(want int32) []corev1.Pod {
		t.Helper()
		var owned []corev1.Pod
		envtest.Eventually(t, fmt.Sprintf("%d pods ready", want), func() error {
			got := &appsv1.ReplicaSet{}
			if err := c.Get(ctx, key, got); err != nil {
				return err
			}
			owned = ownedPods(t, c, got.UID)
			st := got.Status
			if int32(len(owned)) != want || st.Replicas != want || st.ReadyReplicas != want || st.AvailableReplicas != want ||
				st.FullyLabeledReplicas != want || st.ObservedGeneration != got.Generation {
				return fmt.Errorf("%d live pods owned, status %+v", len(owned), st)
			}
			return nil
		}, envtest.Within(90*time.Second))
		return owned
	}
	pods := settled(3)

	// A lost pod is replaced.
	lost := pods[0]
	if err := c.Delete(ctx, &lost, client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}
	pods = settled(3)
	for _, p := range pods {
		if p.UID == lost.UID {
			t.Fatalf("the deleted pod %s still counts", p.Name)
		}
	}

	// relabel sets a pod's labels, retrying while the node agent's status
	// writes race the update.
	relabel := func(name string, l map[string]string) {
		t.Helper()
		envtest.Eventually(t, "relabel "+name, func() error {
			p := &corev1.Pod{}
			if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: name}, p); err != nil {
				return err
			}
			p.Labels = l
			return c.Update(ctx, p)
		})
	}

	// A pod relabelled away is released and replaced.
	away := pods[0].DeepCopy()
	relabel(away.Name, map[string]string{"app": "elsewhere"})
	settled(3)
	envtest.Eventually(t, "the relabelled pod released", func() error {
		got := &corev1.Pod{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: away.Name}, got); err != nil {
			return err
		}
		if ref := metav1.GetControllerOf(got); ref != nil {
			return fmt.Errorf("still controlled by %s", ref.Name)
		}
		return nil
	})

	// Relabelled back, the orphan is adopted: one too many, so one goes.
	relabel(away.Name, map[string]string{"app": "web"})
	envtest.Eventually(t, "the orphan adopted", func() error {
		got := &corev1.Pod{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: away.Name}, got); client.IsNotFound(err) {
			return nil // adopted, then chosen for deletion
		} else if err != nil {
			return err
		}
		if metav1.GetControllerOf(got) == nil {
			return fmt.Errorf("not adopted")
		}
		return nil
	})
	settled(3)

	// Scaling down deletes the extra pods.
	envtest.Eventually(t, "scale to 1", func() error {
		cur := &appsv1.ReplicaSet{}
		if err := c.Get(ctx, key, cur); err != nil {
			return err
		}
		one := int32(1)
		cur.Spec.Replicas = &one
		return c.Update(ctx, cur)
	})
	settled(1)

	events := &corev1.EventList{}
	if err := c.List(ctx, events, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	reasons := map[string]int{}
	for _, e := range events.Items {
		if e.InvolvedObject.Kind == "ReplicaSet" && e.InvolvedObject.Name == "web" && e.Source.Component == "replicaset-controller" {
			reasons[e.Reason]++
		}
	}
	if reasons["SuccessfulCreate"] < 4 || reasons["SuccessfulDelete"] < 2 {
		t.Errorf("replicaset events = %v, want SuccessfulCreate and SuccessfulDelete", reasons)
	}
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
