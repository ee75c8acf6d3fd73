package workqueue

// Options configure a queue. The zero value is a valid, unnamed queue on the
// real clock with the default rate limiter and no metrics.
type Options[T comparable] struct {
	// Name labels the queue's metrics (the name label of workqueue_*).
	// Metrics are recorded only when both Name and Metrics are set.
	Name string
	// Clock drives delays, priority aging and metrics. Nil means RealClock.
	Clock Clock
	// RateLimiter decides the delay of AddRateLimited. Nil means
	// DefaultRateLimiter on Clock.
	RateLimiter RateLimiter[T]
	// Metrics receives the queue's metrics. Nil means none, at no cost.
	Metrics MetricsProvider
}
