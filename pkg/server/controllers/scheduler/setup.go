package scheduler

import (
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
)

// ControllerName names the controller in logs and metrics.
const ControllerName = "scheduler"

// Setup adds the scheduler to m. It reads pods, nodes and namespaces
// from m's informers, binds through m's API client and records Events
// as opts.SchedulerName ("default-scheduler"), as kube-scheduler does.
// One worker: pods are placed one at a time, each decision seeing the
// ones before it.
func Setup(m *manager.Manager, opts Options) error {
	opts = opts.withDefaults()
	v := newView()
	r := &reconciler{view: v, api: m.API(), events: m.EventRecorder(opts.SchedulerName), clock: opts.Clock, opts: opts}
	src := &feed{cluster: m, view: v, schedulerName: opts.SchedulerName}
	_, err := m.NewController(r, controller.Options{Name: ControllerName, Workers: 1, Clock: opts.Clock}, src)
	return err
}
