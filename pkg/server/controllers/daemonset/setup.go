package daemonset

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/predicate"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/expectations"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/listers"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/ownership"
)

// ControllerName is the source of the controller's Events, as in kube.
const ControllerName = "daemonset-controller"

// Options configure the controller. The zero value is ready to use.
type Options struct {
	// Clock tells the time for availability, back-off and expectations;
	// nil is the real clock.
	Clock clock.Clock
	// Workers is how many DaemonSets are synced at once; 0 means 2,
	// kube-controller-manager's --concurrent-daemonset-syncs.
	Workers int
}

// Setup adds the DaemonSet controller to m.
func Setup(m *manager.Manager, opts Options) error {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Workers <= 0 {
		opts.Workers = 2
	}
	r := &reconciler{cache: m.Client(), api: m.API(), events: m.EventRecorder(ControllerName), clock: opts.Clock,
		exp: &expectations.Expectations{}, backoff: &failedBackoff{},
		pods: func(ctx context.Context, ns string) ([]*corev1.Pod, error) {
			return listers.List[*corev1.Pod](ctx, m, ns, nil)
		}}
	_, err := m.NewController(r, controller.Options{Name: "daemonset", Workers: opts.Workers, Clock: opts.Clock},
		controller.For[*appsv1.DaemonSet](),
		controller.Owns[*appsv1.ControllerRevision](),
		controller.Watches[*corev1.Pod](func(ctx context.Context, pod *corev1.Pod) []reconcile.Request {
			return daemonSetsOf(ctx, m, pod)
		}),
		controller.Watches[*corev1.Node](func(ctx context.Context, _ *corev1.Node) []reconcile.Request {
			return allDaemonSets(ctx, m.Client())
		}, controller.WithPredicates(predicate.Funcs[*corev1.Node]{UpdateFunc: placementChanged})),
	)
	return err
}

// placementChanged passes node updates that can change which DaemonSets
// belong on the node, its labels or taints, and not the heartbeats.
func placementChanged(old, cur *corev1.Node) bool {
	return !equality.Semantic.DeepEqual(old.Labels, cur.Labels) || !equality.Semantic.DeepEqual(old.Spec.Taints, cur.Spec.Taints)
}

// daemonSetsOf are the DaemonSets a change to pod concerns: its
// controller if that is a DaemonSet, or, for an orphan, every DaemonSet
// of its namespace that selects it.
func daemonSetsOf(ctx context.Context, m *manager.Manager, pod *corev1.Pod) []reconcile.Request {
	return ownership.OwnersOf(ctx, pod, appsv1.SchemeGroupVersion.String(), "DaemonSet", func(ctx context.Context, ns string) ([]ownership.Candidate, error) {
		sets, err := listers.List[*appsv1.DaemonSet](ctx, m, ns, nil)
		return ownership.CandidatesOf(sets, func(d *appsv1.DaemonSet) *metav1.LabelSelector { return d.Spec.Selector }), err
	})
}

// allDaemonSets: a node joining, leaving or changing may concern any.
func allDaemonSets(ctx context.Context, c client.Reader) []reconcile.Request {
	list := &appsv1.DaemonSetList{}
	if err := c.List(ctx, list); err != nil {
		return nil
	}
	out := make([]reconcile.Request, len(list.Items))
	for i := range list.Items {
		out[i] = reconcile.Request{NamespacedName: types.NamespacedName{Namespace: list.Items[i].Namespace, Name: list.Items[i].Name}}
	}
	return out
}
