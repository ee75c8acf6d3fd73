package workqueue

import (
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metric names, as client-go and controller-runtime export them, so that
// existing dashboards and alerts work unchanged.
const (
	MetricDepth          = "workqueue_depth"
	MetricAdds           = "workqueue_adds_total"
	MetricQueueDuration  = "workqueue_queue_duration_seconds"
	MetricWorkDuration   = "workqueue_work_duration_seconds"
	MetricRetries        = "workqueue_retries_total"
	MetricUnfinishedWork = "workqueue_unfinished_work_seconds"
	MetricLongestRunning = "workqueue_longest_running_processor_seconds"
)

// durationBuckets are client-go's: 10 ns to 1000 s, by powers of ten.
var durationBuckets = prometheus.ExponentialBuckets(10e-9, 10, 12)

// PrometheusMetrics is the MetricsProvider that exports the workqueue_*
// metrics on a prometheus.Registerer, each labelled with the queue's name.
// Counters and histograms are updated as events happen; the three gauges
// are read from the queues when the registry is scraped.
type PrometheusMetrics struct {
	adds, retries               *prometheus.CounterVec
	queueDuration, workDuration *prometheus.HistogramVec
	gauges                      *gaugeCollector
}

// NewPrometheusMetrics registers the workqueue metrics on reg. Nothing is
// registered globally: pass prometheus.DefaultRegisterer to get that.
// Registering twice on one registry fails with the registry's error.
func NewPrometheusMetrics(reg prometheus.Registerer) (*PrometheusMetrics, error) {
	label := []string{"name"}
	m := &PrometheusMetrics{
		adds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricAdds,
			Help: "Total number of adds handled by the workqueue.",
		}, label),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricRetries,
			Help: "Total number of delayed and rate-limited adds handled by the workqueue.",
		}, label),
		queueDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    MetricQueueDuration,
			Help:    "How long in seconds an item stays in the workqueue before a worker gets it.",
			Buckets: durationBuckets,
		}, label),
		workDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    MetricWorkDuration,
			Help:    "How long in seconds processing an item from the workqueue takes.",
			Buckets: durationBuckets,
		}, label),
		gauges: &gaugeCollector{
			depth: prometheus.NewDesc(MetricDepth,
				"Current depth of the workqueue.", label, nil),
			unfinished: prometheus.NewDesc(MetricUnfinishedWork,
				"Seconds of work in progress not yet observed by work_duration; a steady rise means stuck workers.", label, nil),
			longest: prometheus.NewDesc(MetricLongestRunning,
				"Seconds the longest running item of the workqueue has been processed.", label, nil),
			queues: make(map[string]func() Stats),
		},
	}
	for _, c := range []prometheus.Collector{m.adds, m.retries, m.queueDuration, m.workDuration, m.gauges} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("workqueue: registering metrics: %w", err)
		}
	}
	return m, nil
}

// NewQueueMetrics implements MetricsProvider. A second queue with the same
// name replaces the first one's gauges and shares its counters.
func (m *PrometheusMetrics) NewQueueMetrics(name string, stats func() Stats) QueueMetrics {
	m.gauges.mu.Lock()
	m.gauges.queues[name] = stats
	m.gauges.mu.Unlock()
	// Resolve the label once: per-event updates are then a few atomics.
	return &promQueue{
		adds:          m.adds.WithLabelValues(name),
		retries:       m.retries.WithLabelValues(name),
		queueDuration: m.queueDuration.WithLabelValues(name),
		workDuration:  m.workDuration.WithLabelValues(name),
	}
}

type promQueue struct {
	adds, retries               prometheus.Counter
	queueDuration, workDuration prometheus.Observer
}

func (p *promQueue) Added()                   { p.adds.Inc() }
func (p *promQueue) Retried()                 { p.retries.Inc() }
func (p *promQueue) Started(d time.Duration)  { p.queueDuration.Observe(d.Seconds()) }
func (p *promQueue) Finished(d time.Duration) { p.workDuration.Observe(d.Seconds()) }

// gaugeCollector reads every queue's Stats at scrape time.
type gaugeCollector struct {
	depth, unfinished, longest *prometheus.Desc

	mu     sync.Mutex
	queues map[string]func() Stats
}

func (g *gaugeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- g.depth
	ch <- g.unfinished
	ch <- g.longest
}

func (g *gaugeCollector) Collect(ch chan<- prometheus.Metric) {
	type named struct {
		name  string
		stats func() Stats
	}
	// Copy first: reading a queue takes its lock, which must not be
	// taken while holding ours.
	g.mu.Lock()
	queues := make([]named, 0, len(g.queues))
	for name, stats := range g.queues {
		queues = append(queues, named{name, stats})
	}
	g.mu.Unlock()
	for _, q := range queues {
		s := q.stats()
		ch <- prometheus.MustNewConstMetric(g.depth, prometheus.GaugeValue, float64(s.Depth), q.name)
		ch <- prometheus.MustNewConstMetric(g.unfinished, prometheus.GaugeValue, s.Unfinished.Seconds(), q.name)
		ch <- prometheus.MustNewConstMetric(g.longest, prometheus.GaugeValue, s.Longest.Seconds(), q.name)
	}
}
