package workqueue

import "time"

// MetricsProvider makes the metrics of each named queue. Queues call it
// once, from New or NewPriority. NewPrometheusMetrics is the standard
// implementation.
type MetricsProvider interface {
	// NewQueueMetrics returns the recorder of the queue called name.
	// stats reads the queue's gauges when called; a provider calls it
	// when it is scraped, so that gauges cost the queue nothing between
	// scrapes.
	NewQueueMetrics(name string, stats func() Stats) QueueMetrics
}

// QueueMetrics records a queue's events. The queue calls it outside its
// lock, so a slow implementation slows only the caller.
type QueueMetrics interface {
	// Added counts an add that queued an item or marked it dirty
	// (workqueue_adds_total); deduplicated adds are not counted.
	Added()
	// Retried counts an AddAfter or AddRateLimited
	// (workqueue_retries_total).
	Retried()
	// Started observes how long an item waited from its add to the Get
	// that returned it (workqueue_queue_duration_seconds).
	Started(waited time.Duration)
	// Finished observes how long an item was processed, from Get to Done
	// (workqueue_work_duration_seconds).
	Finished(worked time.Duration)
}

// Stats are a queue's gauges at one moment.
type Stats struct {
	// Depth is the number of items ready for Get (workqueue_depth).
	Depth int
	// Unfinished is the processing time so far of all items being
	// processed, summed (workqueue_unfinished_work_seconds).
	Unfinished time.Duration
	// Longest is how long the oldest item in processing has been
	// processed (workqueue_longest_running_processor_seconds).
	Longest time.Duration
}

// stats reads the gauges. With metrics on, each shard keeps its
// processing entries in start order, so each list's head is its longest
// running one.
func (q *Queue[T]) stats() Stats {
	s := Stats{Depth: q.Len()}
	now := q.now()
	for i := range q.shards {
		sh := &q.shards[i]
		sh.mu.Lock()
		if sh.proc.head != nil {
			s.Longest = max(s.Longest, time.Duration(now-sh.proc.head.x.startedAt))
		}
		for e := sh.proc.head; e != nil; e = e.x.next {
			s.Unfinished += time.Duration(now - e.x.startedAt)
		}
		sh.mu.Unlock()
	}
	return s
}
