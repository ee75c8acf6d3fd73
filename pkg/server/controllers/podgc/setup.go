package podgc

import (
	"github.com/setpoint-dev/setpoint/pkg/manager"
)

// ControllerName names the collector in logs.
const ControllerName = "pod-garbage-collector"

// Setup adds the pod garbage collector to m.
func Setup(m *manager.Manager, opts Options) error {
	opts = opts.withDefaults()
	log := opts.Logger
	if log == nil {
		log = m.Logger()
	}
	return m.Add(&collector{cache: m.Client(), api: m.API(), opts: opts, log: log.With("controller", ControllerName)})
}
