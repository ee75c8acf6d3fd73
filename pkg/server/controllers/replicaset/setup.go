package replicaset

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/collectors"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/expectations"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/listers"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/ownership"
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
	ages, err := collectors.Histogram(m.Registry(), prometheus.HistogramOpts{
		Subsystem: "replicaset_controller",
		Name:      "sorting_deletion_age_ratio",
		Help: "The ratio of chosen deleted pod's ages to the current youngest pod's age (at the time). Should be <2. " +
			"The intent of this metric is to measure the rough efficacy of the LogarithmicScaleDown feature gate's effect on " +
			"the sorting (and deletion) of pods when a replicaset scales down. This only considers Ready pods when calculating and reporting.",
		Buckets: prometheus.ExponentialBuckets(0.25, 2, 6),
	})
	if err != nil {
		return err
	}
	r := &reconciler{
		cache: m.Client(), api: m.API(), events: m.EventRecorder(ControllerName), clock: opts.Clock, exp: &expectations.Expectations{},
		deletionAges: ages,
		pods: func(ctx context.Context, ns string) ([]*corev1.Pod, error) {
			return listers.List[*corev1.Pod](ctx, m, ns, nil)
		},
		sets: func(ctx context.Context, ns string) ([]*appsv1.ReplicaSet, error) {
			return listers.List[*appsv1.ReplicaSet](ctx, m, ns, nil)
		},
	}
	_, err = m.NewController(r, controller.Options{Name: "replicaset", Workers: opts.Workers, Clock: opts.Clock},
		controller.For[*appsv1.ReplicaSet](),
		controller.Watches[*corev1.Pod](func(ctx context.Context, pod *corev1.Pod) []reconcile.Request {
			return replicaSetsOf(ctx, m, pod)
		}),
	)
	return err
}

// replicaSetsOf are the ReplicaSets a change to pod concerns: its
// controller if that is a ReplicaSet, or, for an orphan, every
// ReplicaSet of its namespace that selects it.
func replicaSetsOf(ctx context.Context, m *manager.Manager, pod *corev1.Pod) []reconcile.Request {
	return ownership.OwnersOf(ctx, pod, appsv1.SchemeGroupVersion.String(), "ReplicaSet", func(ctx context.Context, ns string) ([]ownership.Candidate, error) {
		sets, err := listers.List[*appsv1.ReplicaSet](ctx, m, ns, nil)
		return ownership.CandidatesOf(sets, func(rs *appsv1.ReplicaSet) *metav1.LabelSelector { return rs.Spec.Selector }), err
	})
}
