package disruption_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/disruption"
)

// TestController runs the controller against a real server: a budget's
// status follows its pods (a pod turning unready takes its allowance
// away), and a budget whose pods' controller cannot be found (apps/v1
// is not served here) fails safe with SyncFailed.
func TestController(t *testing.T) {
	env := envtest.Start(t, envtest.WithoutControllers())
	c := env.Client()
	ctx := context.Background()
	yes := true
	for i, owner := range []*metav1.OwnerReference{nil, nil, nil, {APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "u1", Controller: &yes}} {
		app := "web"
		if owner != nil {
			app = "managed"
		}
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("p%d", i), Labels: map[string]string{"app": app}},
			Spec:       corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
		}
		if owner != nil {
			p.OwnerReferences = []metav1.OwnerReference{*owner}
		}
		if err := c.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		setReady(t, c, p, corev1.ConditionTrue)
	}
	min2 := intstr.FromInt32(2)
	web := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &min2, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	max1 := intstr.FromString("10%")
	managed := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "managed"},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &max1, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "managed"}}}}
	for _, b := range []*policyv1.PodDisruptionBudget{web, managed} {
		if err := c.Create(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	env.StartManager(t, func(m *manager.Manager) error { return disruption.Setup(m, disruption.Options{}) })

	status := func(name string, want string) {
		t.Helper()
		envtest.Eventually(t, name+" status", func() error {
			b := &policyv1.PodDisruptionBudget{}
			if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: name}, b); err != nil {
				return err
			}
			st := b.Status
			reason := ""
			if cond := apimeta.FindStatusCondition(st.Conditions, policyv1.DisruptionAllowedCondition); cond != nil {
				reason = cond.Reason
			}
			got := fmt.Sprintf("gen %d/%d expected %d healthy %d desired %d allowed %d %s",
				st.ObservedGeneration, b.Generation, st.ExpectedPods, st.CurrentHealthy, st.DesiredHealthy, st.DisruptionsAllowed, reason)
			if got != want {
				return fmt.Errorf("got %q, want %q", got, want)
			}
			return nil
		})
	}
	status("web", "gen 1/1 expected 3 healthy 3 desired 2 allowed 1 SufficientPods")
	status("managed", "gen 0/1 expected 0 healthy 0 desired 0 allowed 0 SyncFailed")

	p0 := &corev1.Pod{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "p0"}, p0); err != nil {
		t.Fatal(err)
	}
	setReady(t, c, p0, corev1.ConditionFalse)
	status("web", "gen 1/1 expected 3 healthy 2 desired 2 allowed 0 InsufficientPods")
}

// setReady writes the pod's status as its kubelet would: Running, with
// the Ready condition given.
func setReady(t *testing.T, c interface {
	UpdateStatus(ctx context.Context, obj client.Object, opts ...client.WriteOption) error
}, p *corev1.Pod, ready corev1.ConditionStatus) {
	t.Helper()
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: ready}}
	if err := c.UpdateStatus(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}
