// Package workqueue is where Setpoint's controllers turn events into work:
// event handlers push object keys into a deduplicating, rate-limited queue,
// and reconcile workers pull them out one at a time.
//
//	cache (reflector -> store -> handlers) -> workqueue -> reconcile
//
// A [Queue] keeps three promises that controllers rely on:
//
//   - Deduplication: a key added while it is already queued is stored once,
//     so a burst of events for one object costs one reconcile.
//   - Exclusivity: a key being processed is never handed to a second worker.
//     Adding it meanwhile marks it dirty, and [Queue.Done] queues it again,
//     so the change is never lost and never processed concurrently.
//   - Order: apart from deduplication, keys come out first in, first out.
//
// On top of that, [Queue.AddAfter] delays a key on an injected [clock.Clock],
// [Queue.AddRateLimited] delays it by a [RateLimiter] (by default the same
// per-key exponential backoff and overall token bucket as client-go), and
// [NewPriority] orders keys by priority with an aging rule that bounds how
// long any key can be passed over (see [PriorityQueue]).
//
// Metrics use the names client-go's dashboards already know
// (workqueue_depth, workqueue_adds_total, ...) through a small
// [MetricsProvider]; [NewPrometheusMetrics] registers them on a
// prometheus.Registerer of the caller's choosing. Without a provider the
// queue reads no clocks and records nothing.
//
// The queue is built for throughput (see bench/ for the comparison with
// client-go): item state is sharded by hash, each shard with its own lock
// and an open-addressing table that is read without the lock, so an Add
// of an item already queued (a burst of events) takes no lock and a Done
// never waits for one; the only global critical section is a
// push or pop on the ready set, a ring buffer; a parked worker is handed
// its item directly, and one Get at a time spins briefly before parking,
// so that producers rarely pay for a wake-up; recurring keys reuse their
// bookkeeping, so steady state allocates nothing; and with metrics off the
// queue reads no clock.
package workqueue
