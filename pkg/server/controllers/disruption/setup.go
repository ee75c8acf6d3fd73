package disruption

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// ControllerName names the controller in logs, metrics and events.
const ControllerName = "controllermanager"

// Options configure the controller. The zero value is ready to use.
type Options struct {
	// Clock tells the time recorded disruptions expire by; nil is the
	// real clock.
	Clock clock.Clock
	// Workers is how many budgets are reconciled at once; 0 means 2.
	Workers int
}

// Setup adds the disruption controller to m. It reads budgets and pods
// from m's informers, the pods' controllers from the API, and writes
// budgets' status; a second loop sets False the DisruptionTarget
// condition of pods an eviction marked but did not delete.
func Setup(m *manager.Manager, opts Options) error {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Workers <= 0 {
		opts.Workers = 2
	}
	r := &reconciler{cache: m.Client(), owners: m.APIReader(), api: m.API(), events: m.EventRecorder(ControllerName), clock: opts.Clock}
	_, err := m.NewController(r, controller.Options{Name: "disruption", Workers: opts.Workers, Clock: opts.Clock},
		controller.For[*policyv1.PodDisruptionBudget](),
		controller.Watches[*corev1.Pod](func(ctx context.Context, pod *corev1.Pod) []reconcile.Request {
			return budgetsOf(ctx, m.Client(), pod)
		}),
	)
	if err != nil {
		return err
	}
	stale := &staleReconciler{cache: m.Client(), api: m.API(), clock: opts.Clock}
	_, err = m.NewController(stale, controller.Options{Name: "disruption-stale-pods", Workers: opts.Workers, Clock: opts.Clock},
		controller.For[*corev1.Pod]())
	return err
}

// budgetsOf are the budgets whose selector picks pod.
func budgetsOf(ctx context.Context, c client.Reader, pod *corev1.Pod) []reconcile.Request {
	list := &policyv1.PodDisruptionBudgetList{}
	if err := c.List(ctx, list, client.InNamespace(pod.Namespace)); err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, b := range list.Items {
		sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
		if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: b.Namespace, Name: b.Name}})
	}
	return out
}
