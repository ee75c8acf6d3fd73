package leaderelection

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Defaults are client-go's, so a Setpoint controller fails over on the
// same schedule as the kube-controller-manager next to it.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
	// JitterFactor stretches each wait between acquire attempts by up to
	// this fraction of RetryPeriod, so candidates started together do not
	// hit the server in step.
	JitterFactor = 1.2
)

// Config says what lease to compete for and what to do with it. Zero
// durations take the defaults above.
type Config struct {
	// Client reads and writes the Lease; *client.Client is one.
	Client LeaseClient
	// Namespace and Name name the coordination.k8s.io/v1 Lease.
	Namespace, Name string
	// Identity names this candidate in the lease's holderIdentity. It
	// must be unique among candidates: two processes with one identity
	// both believe they hold the lease.
	Identity string

	// LeaseDuration is how long a candidate waits, after it last saw the
	// lease change, before it takes the lease from a silent holder.
	LeaseDuration time.Duration
	// RenewDeadline is how long the leader keeps leading without a
	// successful renewal, counted from the start of the last renewal
	// that succeeded. It is shorter than LeaseDuration, so the leader
	// stops before anyone may take over.
	RenewDeadline time.Duration
	// RetryPeriod is the wait between attempts to acquire (plus jitter)
	// and between renewals.
	//
	// Sharing a Lease with client-go candidates and renewing more often
	// than once a second: client-go compares lease records at whole
	// seconds, so it may count expiry from up to a second before the last
	// renewal. Keep RenewDeadline + 1s below LeaseDuration then (the
	// defaults renew every 2s and are not affected).
	RetryPeriod time.Duration

	// ReleaseOnCancel makes the leader, when Run's context ends, give
	// the lease up once its work has returned, so another candidate
	// takes over at once instead of after LeaseDuration.
	ReleaseOnCancel bool

	Callbacks Callbacks

	// Clock measures every duration; nil is RealClock.
	Clock Clock
	// Logger receives the elector's logs; nil is slog.Default().
	Logger *slog.Logger
	// Registerer, when set, gets the leader_election_master_status gauge.
	Registerer prometheus.Registerer
	// MetricName is the gauge's name label; empty is Name.
	MetricName string
}

// Callbacks tell the program what the elector decided. They run on
// goroutines of their own, never on the one that renews the lease, so a
// slow callback cannot cost the leader its lease.
type Callbacks struct {
	// OnStartedLeading runs the leader's work; it is required. Its
	// context ends when leadership does (lost, or Run's context ended),
	// and carries the fencing token (TokenFrom). The elector waits for it
	// to return before it releases the lease or competes again, so work
	// must stop promptly when ctx ends.
	OnStartedLeading func(ctx context.Context)
	// OnStoppedLeading runs after each term, once OnStartedLeading has
	// returned (and the lease was released, if asked for). Optional.
	OnStoppedLeading func()
	// OnNewLeader is told each time the lease names a different holder,
	// this candidate included (a released lease, with no holder, is not
	// reported). A slow callback sees only the latest holder, not every
	// one in between. Optional.
	OnNewLeader func(identity string)
}

// ConfigError is a Config that cannot work; New returns it.
type ConfigError struct {
	Field  string
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("leaderelection: invalid config: %s %s", e.Field, e.Reason)
}

// withDefaults fills the zero fields.
func (c Config) withDefaults() Config {
	if c.LeaseDuration == 0 {
		c.LeaseDuration = DefaultLeaseDuration
	}
	if c.RenewDeadline == 0 {
		c.RenewDeadline = DefaultRenewDeadline
	}
	if c.RetryPeriod == 0 {
		c.RetryPeriod = DefaultRetryPeriod
	}
	if c.Clock == nil {
		c.Clock = RealClock{}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.MetricName == "" {
		c.MetricName = c.Name
	}
	return c
}

// validate checks what client-go checks, in the same order, and what
// this package needs besides.
func (c Config) validate() error {
	switch {
	case c.LeaseDuration <= c.RenewDeadline:
		return &ConfigError{"LeaseDuration", "must be greater than RenewDeadline"}
	case c.RenewDeadline <= time.Duration(JitterFactor*float64(c.RetryPeriod)):
		return &ConfigError{"RenewDeadline", "must be greater than JitterFactor x RetryPeriod"}
	case c.LeaseDuration < 1:
		return &ConfigError{"LeaseDuration", "must be greater than zero"}
	case c.RenewDeadline < 1:
		return &ConfigError{"RenewDeadline", "must be greater than zero"}
	case c.RetryPeriod < 1:
		return &ConfigError{"RetryPeriod", "must be greater than zero"}
	case c.Callbacks.OnStartedLeading == nil:
		return &ConfigError{"Callbacks.OnStartedLeading", "is required"}
	case c.Client == nil:
		return &ConfigError{"Client", "is required"}
	case c.Namespace == "" || c.Name == "":
		return &ConfigError{"Namespace and Name", "are required"}
	case c.Identity == "":
		return &ConfigError{"Identity", "is required"}
	}
	return nil
}
