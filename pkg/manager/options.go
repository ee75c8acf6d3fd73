package manager

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/client"
)

// Options configure a Manager. The zero value runs without leader
// election and without HTTP endpoints, over every namespace.
type Options struct {
	// Client configures the API client (scheme, protobuf, ...).
	Client client.Options
	// Namespaces limits the manager's informers, and so its cached reads
	// and its controllers, to these namespaces; empty means all of them.
	// Cluster-scoped kinds are always watched whole.
	Namespaces []string
	// Cache tunes the shared informers (resync, managedFields, ...).
	Cache cache.FactoryOptions

	// HealthAddr serves /healthz and /readyz ("127.0.0.1:8081",
	// ":8081"); empty serves nothing.
	HealthAddr string
	// MetricsAddr serves /metrics; empty serves nothing. It may equal
	// HealthAddr to serve all three on one port.
	MetricsAddr string
	// Registry collects the manager's metrics; nil is a new registry
	// with the Go and process collectors.
	Registry *prometheus.Registry

	// LeaderElection runs leader-only runnables (controllers, by
	// default) only while this replica holds the Lease
	// LeaderElectionNamespace/LeaderElectionID.
	LeaderElection          bool
	LeaderElectionID        string
	LeaderElectionNamespace string
	// Identity names this replica in the lease; empty is the hostname
	// plus a random suffix.
	Identity string
	// LeaseDuration, RenewDeadline and RetryPeriod default to 15 s, 10 s
	// and 2 s.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration

	// GracefulShutdownTimeout bounds how long Start waits for runnables
	// to return once its context ends; 0 means 30 seconds, negative
	// waits forever.
	GracefulShutdownTimeout time.Duration
	// CacheSyncTimeout is the controllers' default; 0 means 2 minutes.
	CacheSyncTimeout time.Duration

	// Logger receives the manager's logs and is handed to what it
	// builds; nil is slog.Default().
	Logger *slog.Logger
}
