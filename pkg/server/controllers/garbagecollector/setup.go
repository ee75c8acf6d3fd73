package garbagecollector

import (
	"github.com/setpoint-dev/setpoint/pkg/manager"
)

// Setup adds the garbage collector to m, to run on the leader once m
// starts. Call it before m.Start.
func Setup(m *manager.Manager, opts Options) error {
	opts = opts.withDefaults(m.Logger())
	return m.Add(&runnable{
		opts:      opts,
		informers: m,
		resources: m.API(),
		// Reads go to the server, never the cache: a decision to delete
		// must not rest on a stale copy.
		api:    m.API(),
		scopes: m.RESTMapper(),
	})
}
