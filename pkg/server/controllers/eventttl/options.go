package eventttl

import (
	"time"

	"github.com/setpoint-dev/setpoint/pkg/clock"
)

// DefaultTTL is how long an Event lives after its last write when
// Options.TTL is 0: kube-apiserver's --event-ttl default.
const DefaultTTL = time.Hour

// Options configure the Event TTL controller. The zero value is ready
// to use.
type Options struct {
	// TTL is how long an Event lives after its last write; 0 means
	// DefaultTTL.
	TTL time.Duration
	// Clock tells the time and times the look at each Event's expiry;
	// nil is the real clock. Tests inject a fake one to expire Events
	// without waiting.
	Clock clock.Clock
	// Workers is how many Events are looked at at once; 0 means 2.
	Workers int
}

func (o Options) withDefaults() Options {
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	return o
}
