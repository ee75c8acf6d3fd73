package statefulset

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/listers"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/ownership"
)

// ControllerName is the source of the controller's Events, as in kube.
const ControllerName = "statefulset-controller"

// Options configure the controller. The zero value is ready to use.
type Options struct {
	// Clock tells the time for availability (minReadySeconds); nil is
	// the real clock.
	Clock clock.Clock
	// Workers is how many StatefulSets are synced at once; 0 means 5,
	// kube-controller-manager's --concurrent-statefulset-syncs.
	Workers int
}

// Setup adds the StatefulSet controller to m.
func Setup(m *manager.Manager, opts Options) error {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Workers <= 0 {
		opts.Workers = 5
	}
	r := &reconciler{cache: m.Client(), api: m.API(), events: m.EventRecorder(ControllerName), clock: opts.Clock,
		podsIn: func(ctx context.Context, ns string) ([]*corev1.Pod, error) {
			return listers.List[*corev1.Pod](ctx, m, ns, nil)
		}}
	_, err := m.NewController(r, controller.Options{Name: "statefulset", Workers: opts.Workers, Clock: opts.Clock},
		controller.For[*appsv1.StatefulSet](),
		controller.Watches[*corev1.Pod](func(ctx context.Context, pod *corev1.Pod) []reconcile.Request {
			return setsOf(ctx, m, pod)
		}),
		controller.Owns[*appsv1.ControllerRevision](),
	)
	return err
}

// setsOf are the StatefulSets a change to pod concerns: its controller
// if that is a StatefulSet, or, for an orphan, every StatefulSet of its
// namespace that selects it.
func setsOf(ctx context.Context, m *manager.Manager, pod *corev1.Pod) []reconcile.Request {
	return ownership.OwnersOf(ctx, pod, appsv1.SchemeGroupVersion.String(), "StatefulSet", func(ctx context.Context, ns string) ([]ownership.Candidate, error) {
		sets, err := listers.List[*appsv1.StatefulSet](ctx, m, ns, nil)
		return ownership.CandidatesOf(sets, func(s *appsv1.StatefulSet) *metav1.LabelSelector { return s.Spec.Selector }), err
	})
}
