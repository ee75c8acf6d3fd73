// Package events records core/v1 Events about objects, for operators to
// tell users what they did and why, where `kubectl describe` and
// `kubectl get events` look.
//
// It sits beside a controller's reconcile, on a path of its own so that
// reporting never slows or fails the work it reports on:
//
//	reconcile -> Recorder.Event -> bounded queue -> Broadcaster.Start -> client -> API server
//	             (validate, reference,            (aggregate, create or
//	              spam filter; never blocks)        patch, retry)
//
// A [Recorder] turns a call into an Event at once, on the caller's
// goroutine: it checks the type (Normal or Warning), builds the
// involvedObject reference, stamps the time from the injected [Clock],
// charges the object's token bucket (burst 25, one token back every five
// minutes, as client-go) and puts the Event on the [Broadcaster]'s queue.
// None of that waits: an Event the bucket or the full queue refuses is
// dropped and counted (Broadcaster.Dropped, and the
// setpoint_events_dropped_total counter).
//
// One goroutine, [Broadcaster.Start], writes the queue out. A repeat of an
// Event (same object, type, reason, message and source) seen within the
// aggregation window of the last one patches that Event's count and
// lastTimestamp instead of creating another, so a failing reconcile that
// retries every few seconds leaves one Event with a count, not hundreds.
// Writes that fail for a reason that may pass (5xx, 429, a broken
// connection, a timeout) are retried with backoff; other refusals are
// logged and dropped. Whoever calls Start owns its end: when the context
// ends, Start writes what is still queued for a bounded time and returns.
//
// Several controllers share one Broadcaster, each with a Recorder named
// after itself (the Event's source.component and reportingController).
package events
