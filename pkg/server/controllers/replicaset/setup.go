package replicaset

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// ControllerName is the source of the controller's Events, as in kube.
const ControllerName = "replicaset-controller"

// Options configure the controller. The zero value is ready to use.
type Options struct {
	// Clock tells the time for availability and expectations; nil is
	// the real clock.
	Clock clock.Clock
	// Workers is how many ReplicaSets are synced at once; 0 means 5,
	// kube-controller-manager's --concurrent-replicaset-syncs.
	Workers int
}

// Setup adds the ReplicaSet controller to m.
func Setup(m *manager.Manager, opts Options) error {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Workers <= 0 {
		opts.Workers = 5
	}
	r := &reconciler{cache: m.Client(), api: m.API(), events: m.EventRecorder(ControllerName), clock: opts.Clock, exp: &expectations{}}
	_, err := m.NewController(r, controller.Options{Name: "replicaset", Workers: opts.Workers, Clock: opts.Clock},
		controller.For[*appsv1.ReplicaSet](),
		controller.Watches[*corev1.Pod](func(ctx context.Context, pod *corev1.Pod) []reconcile.Request {
			return replicaSetsOf(ctx, m.Client(), pod)
		}),
	)
	return err
}

// replicaSetsOf are the ReplicaSets a change to pod concerns: its
// controller if that is a ReplicaSet, or, for an orphan, every
// ReplicaSet of its namespace that selects it.
func replicaSetsOf(ctx context.Context, c client.Reader, pod *corev1.Pod) []reconcile.Request {
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil {
		if ref.Kind != "ReplicaSet" || ref.APIVersion != appsv1.SchemeGroupVersion.String() {
			return nil
		}
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: pod.Namespace, Name: ref.Name}}}
	}
	list := &appsv1.ReplicaSetList{}
	if err := c.List(ctx, list, client.InNamespace(pod.Namespace)); err != nil {
		return nil
	}
	var out []reconcile.Request
	for i := range list.Items {
		sel, err := metav1.LabelSelectorAsSelector(list.Items[i].Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: pod.Namespace, Name: list.Items[i].Name}})
	}
	return out
}
