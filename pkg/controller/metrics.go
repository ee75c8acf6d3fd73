package controller

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// Metrics are the controller_runtime_* metrics that dashboards built for
// controller-runtime already read, plus Setpoint's count of why
// reconciles ran. One Metrics serves every controller of a registry.
type Metrics struct {
	total, errors, terminal, panics *prometheus.CounterVec
	duration                        *prometheus.HistogramVec
	workers, activeWorkers          *prometheus.GaugeVec
	reasons                         *prometheus.CounterVec
	staleWaits                      *prometheus.CounterVec
}

// Reconcile results, the values of the result label.
const (
	resultSuccess      = "success"
	resultError        = "error"
	resultRequeueAfter = "requeue_after"
)

// NewMetrics registers the controller metrics on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	ctrl := []string{"controller"}
	m := &Metrics{
		total: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "controller_runtime_reconcile_total", Help: "Total number of reconciliations per controller and result.",
		}, []string{"controller", "result"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "controller_runtime_reconcile_errors_total", Help: "Total number of reconciliation errors per controller.",
		}, ctrl),
		terminal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "controller_runtime_terminal_reconcile_errors_total", Help: "Total number of terminal reconciliation errors per controller.",
		}, ctrl),
		panics: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "controller_runtime_reconcile_panics_total", Help: "Total number of reconciliation panics per controller.",
		}, ctrl),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "controller_runtime_reconcile_time_seconds", Help: "Length of time per reconciliation per controller.",
			Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
				1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60},
		}, ctrl),
		workers: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "controller_runtime_max_concurrent_reconciles", Help: "Maximum number of concurrent reconciles per controller.",
		}, ctrl),
		activeWorkers: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "controller_runtime_active_workers", Help: "Number of currently used workers per controller.",
		}, ctrl),
		reasons: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "setpoint_reconcile_reasons_total",
			Help: "Causes of reconciles per controller and trigger; merged causes count once each.",
		}, []string{"controller", "trigger"}),
		staleWaits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "setpoint_reconcile_stale_cache_waits_timed_out_total",
			Help: "Reconciles that started before the cache had seen the previous reconcile's writes.",
		}, ctrl),
	}
	err := errors.Join(
		register(reg, &m.total), register(reg, &m.errors), register(reg, &m.terminal), register(reg, &m.panics),
		register(reg, &m.duration), register(reg, &m.workers), register(reg, &m.activeWorkers),
		register(reg, &m.reasons), register(reg, &m.staleWaits),
	)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// register registers *c on reg; if reg already has an equal collector
// (a second Metrics for one registry), *c becomes that one, so both
// record into the series reg exposes.
func register[C prometheus.Collector](reg prometheus.Registerer, c *C) error {
	err := reg.Register(*c)
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			*c = existing
			return nil
		}
	}
	return err
}

// controllerMetrics are one controller's series; a nil one records
// nothing.
type controllerMetrics struct {
	m    *Metrics
	name string
}

func (m *Metrics) forController(name string) *controllerMetrics {
	if m == nil {
		return nil
	}
	// Zero series exist from the start, as dashboards expect.
	for _, r := range []string{resultSuccess, resultError, resultRequeueAfter, "requeue"} {
		m.total.WithLabelValues(name, r)
	}
	m.errors.WithLabelValues(name)
	m.terminal.WithLabelValues(name)
	m.panics.WithLabelValues(name)
	return &controllerMetrics{m: m, name: name}
}

func (c *controllerMetrics) setWorkers(n int) {
	if c != nil {
		c.m.workers.WithLabelValues(c.name).Set(float64(n))
	}
}

func (c *controllerMetrics) active(delta float64) {
	if c != nil {
		c.m.activeWorkers.WithLabelValues(c.name).Add(delta)
	}
}

func (c *controllerMetrics) done(result string, d time.Duration, terminal bool) {
	if c == nil {
		return
	}
	c.m.total.WithLabelValues(c.name, result).Inc()
	c.m.duration.WithLabelValues(c.name).Observe(d.Seconds())
	if result == resultError {
		c.m.errors.WithLabelValues(c.name).Inc()
		if terminal {
			c.m.terminal.WithLabelValues(c.name).Inc()
		}
	}
}

func (c *controllerMetrics) panicked() {
	if c != nil {
		c.m.panics.WithLabelValues(c.name).Inc()
	}
}

func (c *controllerMetrics) countReasons(rs reconcile.Reasons) {
	if c == nil {
		return
	}
	for _, r := range rs.List() {
		c.m.reasons.WithLabelValues(c.name, string(r.Trigger)).Add(float64(r.Count))
	}
}

func (c *controllerMetrics) staleWaitTimedOut() {
	if c != nil {
		c.m.staleWaits.WithLabelValues(c.name).Inc()
	}
}
