package events

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Bridges for the external tests, which run against a live server and so
// cannot live in this package (pkg/server imports it through the
// built-in controllers).

// t0 is the fake clock's start, on a whole second: the API stores
// timestamps to the second. T0 hands it to the external tests.
var t0 = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

var (
	T0          = t0
	DropReasons = dropReasons
)

// DropsVec is the counter behind Dropped.
func (b *Broadcaster) DropsVec() *prometheus.CounterVec { return b.drops.vec }
