package job

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/predicate"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/listers"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/ownership"
)

// ControllerName is the source of the controller's Events, as in kube.
const ControllerName = "job-controller"

// Options configure the controller. The zero value is ready to use.
type Options struct {
	// Clock tells the time for deadlines, back-off and expectations;
	// nil is the real clock.
	Clock clock.Clock
	// Workers is how many Jobs are synced at once; 0 means 5,
	// kube-controller-manager's --concurrent-job-syncs.
	Workers int
}

// Setup adds the Job controller to m, with its companion that releases
// the tracking finalizer of pods no running Job owns.
func Setup(m *manager.Manager, opts Options) error {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Workers <= 0 {
		opts.Workers = 5
	}
	met, err := newMetrics(m.Registry())
	if err != nil {
		return err
	}
	r := &reconciler{cache: m.Client(), api: m.API(), events: m.EventRecorder(ControllerName), clock: opts.Clock,
		exp: &expectations{}, backoffs: &backoffs{}, metrics: met}
	jobsSeen, podsSeen := met.watched()
	if _, err := m.NewController(r, controller.Options{Name: "job", Workers: opts.Workers, Clock: opts.Clock},
		controller.For[*batchv1.Job](controller.WithPredicates(jobsSeen)),
		controller.Watches[*corev1.Pod](func(ctx context.Context, pod *corev1.Pod) []reconcile.Request {
			return jobsOf(ctx, m, pod)
		}, controller.WithPredicates(podsSeen)),
	); err != nil {
		return err
	}
	o := &orphans{cache: m.Client(), api: m.API()}
	_, err = m.NewController(o, controller.Options{Name: "job_orphan_pod", Workers: opts.Workers, Clock: opts.Clock},
		controller.For[*corev1.Pod](controller.WithPredicates(predicate.Funcs[*corev1.Pod]{
			CreateFunc: hasTrackingFinalizer,
			UpdateFunc: func(_, pod *corev1.Pod) bool { return hasTrackingFinalizer(pod) },
			DeleteFunc: func(*corev1.Pod) bool { return false },
		})),
		controller.Watches[*batchv1.Job](func(ctx context.Context, job *batchv1.Job) []reconcile.Request {
			return podsToRelease(ctx, m.Client(), job)
		}),
	)
	return err
}

// jobsOf are the Jobs a change to pod concerns: its controller if that
// is a Job, or, for an orphan, every Job of its namespace selecting it.
func jobsOf(ctx context.Context, m *manager.Manager, pod *corev1.Pod) []reconcile.Request {
	return ownership.OwnersOf(ctx, pod, batchv1.SchemeGroupVersion.String(), "Job", func(ctx context.Context, ns string) ([]ownership.Candidate, error) {
		jobs, err := listers.List[*batchv1.Job](ctx, m, ns, nil)
		return ownership.CandidatesOf(jobs, func(j *batchv1.Job) *metav1.LabelSelector { return j.Spec.Selector }), err
	})
}
