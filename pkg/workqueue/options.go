package workqueue

import "github.com/setpoint-dev/setpoint/pkg/clock"

// Options configure a queue. The zero value is a valid, unnamed queue on the
// real clock with the default rate limiter and no metrics.
type Options[T comparable] struct {
	// Name labels the queue's metrics (the name label of workqueue_*).
	// Metrics are recorded only when both Name and Metrics are set.
	Name string
	// Clock drives delays, priority aging and metrics. Nil means
	// clock.Real.
	Clock clock.Clock
	// RateLimiter decides the delay of AddRateLimited. Nil means
	// DefaultRateLimiter on Clock.
	RateLimiter RateLimiter[T]
	// Metrics receives the queue's metrics. Nil means none, at no cost.
	Metrics MetricsProvider
}

// orReal returns c, or the real clock if c is nil.
func orReal(c clock.Clock) clock.Clock {
	if c == nil {
		return clock.Real{}
	}
	return c
}
