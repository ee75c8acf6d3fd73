package garbagecollector

import (
	"log/slog"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Options configure the garbage collector. The zero value is the
// default, which matches kube-controller-manager's.
type Options struct {
	// Workers is how many objects are judged at once, and separately
	// how many orphaning owners are released at once; 0 means 20.
	Workers int
	// ResyncDiscovery is how often the served kinds are listed again
	// (besides each time a CustomResourceDefinition changes); 0 means
	// 30 seconds.
	ResyncDiscovery time.Duration
	// SyncTimeout bounds how long the decisions that need all of an
	// owner's dependents (releasing a foreground or orphan deletion)
	// wait for the informers of newly watched kinds to list their
	// objects; after it they go on without the laggards. Other
	// collection never waits. 0 means 30 seconds.
	SyncTimeout time.Duration
	// Ignored are resources never watched; nil means Kubernetes'
	// default, the core and events.k8s.io Events. Objects of these
	// kinds are neither collected nor kept alive.
	Ignored []schema.GroupResource
	// Logger receives the collector's logs; nil is the manager's.
	Logger *slog.Logger
}

// absentOwnersSize bounds the memory of owners known to be absent.
const absentOwnersSize = 500

func (o Options) withDefaults(log *slog.Logger) Options {
	if o.Workers <= 0 {
		o.Workers = 20
	}
	if o.ResyncDiscovery <= 0 {
		o.ResyncDiscovery = 30 * time.Second
	}
	if o.SyncTimeout <= 0 {
		o.SyncTimeout = 30 * time.Second
	}
	if o.Ignored == nil {
		o.Ignored = []schema.GroupResource{{Resource: "events"}, {Group: "events.k8s.io", Resource: "events"}}
	}
	if o.Logger == nil {
		o.Logger = log
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	o.Logger = o.Logger.With("controller", "garbagecollector")
	return o
}
