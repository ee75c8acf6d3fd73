package scheduler

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
)

// ControllerName names the controller in logs and metrics.
const ControllerName = "scheduler"

// Setup adds the scheduler to m. It reads pods, nodes and namespaces
// from m's informers, binds through m's API client and records Events
// as opts.SchedulerName ("default-scheduler"), as kube-scheduler does.
// Decisions are made one at a time, each seeing the pods placed before
// it; opts.Workers bindings travel at once, as kube-scheduler's binding
// cycles run beside its scheduling cycle.
func Setup(m *manager.Manager, opts Options) error {
	opts = opts.withDefaults()
	v := newView()
	r := &reconciler{pods: m.Client(), view: v, api: m.API(), events: m.EventRecorder(opts.SchedulerName), clock: opts.Clock, opts: opts}
	src := &feed{cluster: m, view: v, schedulerName: opts.SchedulerName}
	_, err := m.NewController(r, controller.Options{Name: ControllerName, Workers: opts.Workers, Clock: opts.Clock},
		controller.For[*corev1.Pod](controller.WithPredicates(pending(opts.SchedulerName))), src)
	return err
}
