package podgc_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/podgc"
)

// holdFinalizer keeps a collected pod readable, to see how it was
// marked before its deletion.
const holdFinalizer = "example.com/hold"

// TestLive runs the collector against a real server with short periods:
// the oldest terminated pods beyond the threshold go, a pod bound to a
// node that never existed is marked Failed with DeletionByPodGC and
// force deleted, as are a terminating pod never scheduled and one on an
// out-of-service node, while live pods stay.
func TestLive(t *testing.T) {
	env := envtest.Start(t, envtest.WithoutControllers())
	c := env.Client()
	ctx := context.Background()

	mkNode := func(name string, ready corev1.ConditionStatus, taints ...corev1.Taint) {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{Taints: taints}}
		if err := c.Create(ctx, n); err != nil {
			t.Fatal(err)
		}
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready, Reason: "Test"}}
		if err := c.UpdateStatus(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	mkPod := func(name, node string, ph corev1.PodPhase, finalizers ...string) *corev1.Pod {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Finalizers: finalizers},
			Spec:       corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
		}
		if err := c.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		if ph != corev1.PodPending {
			p.Status.Phase = ph
			if err := c.UpdateStatus(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		if len(finalizers) > 0 {
			t.Cleanup(func() {
				got := &corev1.Pod{}
				if err := c.Get(ctx, key(p), got); err == nil {
					got.Finalizers = nil
					_ = c.Update(ctx, got)
				}
			})
		}
		return p
	}
	get := func(p *corev1.Pod) (*corev1.Pod, error) {
		got := &corev1.Pod{}
		return got, c.Get(ctx, key(p), got)
	}

	mkNode("n1", corev1.ConditionTrue)
	mkNode("broken", corev1.ConditionFalse, corev1.Taint{Key: corev1.TaintNodeOutOfService, Value: "nodeshutdown", Effect: corev1.TaintEffectNoExecute})
	var done []*corev1.Pod
	for i := range 4 {
		done = append(done, mkPod(fmt.Sprintf("done-%d", i), "n1", corev1.PodSucceeded))
	}
	running := mkPod("running", "n1", corev1.PodRunning)
	orphan := mkPod("orphan", "ghost", corev1.PodRunning, holdFinalizer)
	unscheduled := mkPod("unscheduled", "", corev1.PodPending, holdFinalizer)
	stuck := mkPod("stuck", "broken", corev1.PodRunning, holdFinalizer)
	for _, p := range []*corev1.Pod{unscheduled, stuck} {
		if err := c.Delete(ctx, p); err != nil {
			t.Fatal(err)
		}
	}

	start := time.Now()
	env.StartManager(t, func(m *manager.Manager) error {
		return podgc.Setup(m, podgc.Options{TerminatedPodThreshold: 2, Period: 200 * time.Millisecond, Quarantine: 2 * time.Second})
	})

	envtest.Eventually(t, "the two oldest terminated pods collected", func() error {
		var left []string
		for _, p := range done {
			if _, err := get(p); err == nil {
				left = append(left, p.Name)
			} else if !client.IsNotFound(err) {
				return err
			}
		}
		if !slices.Equal(left, []string{"done-2", "done-3"}) {
			return fmt.Errorf("terminated pods left: %v, want done-2 and done-3", left)
		}
		return nil
	})
	for _, p := range []*corev1.Pod{unscheduled, stuck} {
		envtest.Eventually(t, p.Name+" marked Failed and force deleted", func() error {
			got, err := get(p)
			if err != nil {
				return err
			}
			if got.Status.Phase != corev1.PodFailed || got.DeletionGracePeriodSeconds == nil || *got.DeletionGracePeriodSeconds != 0 {
				return fmt.Errorf("phase %s, deletion grace %v", got.Status.Phase, got.DeletionGracePeriodSeconds)
			}
			return nil
		})
	}
	envtest.Eventually(t, "the orphan marked and force deleted", func() error {
		got, err := get(orphan)
		if err != nil {
			return err
		}
		if got.DeletionTimestamp == nil {
			return fmt.Errorf("not deleted; phase %s", got.Status.Phase)
		}
		i := slices.IndexFunc(got.Status.Conditions, func(c corev1.PodCondition) bool { return c.Type == corev1.DisruptionTarget })
		if got.Status.Phase != corev1.PodFailed || i < 0 || got.Status.Conditions[i].Reason != "DeletionByPodGC" ||
			got.Status.Conditions[i].Message != "PodGC: node no longer exists" {
			return fmt.Errorf("phase %s, conditions %+v", got.Status.Phase, got.Status.Conditions)
		}
		return nil
	}, envtest.Within(20*time.Second))
	if waited := time.Since(start); waited < 2*time.Second {
		t.Errorf("orphan collected %s after start, before the 2 s quarantine", waited)
	}
	if got, err := get(running); err != nil || got.DeletionTimestamp != nil || got.Status.Phase != corev1.PodRunning {
		t.Errorf("running pod on a live node: %v, err %v", got.Status.Phase, err)
	}
}

func key(p *corev1.Pod) types.NamespacedName {
	return types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
}
