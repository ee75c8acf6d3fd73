package workqueue

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// histogram returns the sample count and sum of the named histogram for
// queue name.
func histogram(t *testing.T, reg *prometheus.Registry, metric, name string) (uint64, float64) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != metric {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "name" && l.GetValue() == name {
					return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
				}
			}
		}
	}
	return 0, 0
}

func TestPrometheusMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	pm, err := NewPrometheusMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	c := newFakeClock()
	q := New(Options[string]{Name: "things", Clock: c, Metrics: pm})

	q.Add("a")
	q.Add("a") // deduplicated: not an add
	q.Add("b")
	c.Step(2 * time.Second)
	q.Get() // a waited 2s
	c.Step(3 * time.Second)
	q.Get()    // b waited 5s
	q.Add("a") // dirty: counts
	c.Step(time.Second)
	// a has run 4s, b 1s.
	gauges := `
# HELP workqueue_depth Current depth of the workqueue.
# TYPE workqueue_depth gauge
workqueue_depth{name="things"} 0
# HELP workqueue_longest_running_processor_seconds Seconds the longest running item of the workqueue has been processed.
# TYPE workqueue_longest_running_processor_seconds gauge
workqueue_longest_running_processor_seconds{name="things"} 4
# HELP workqueue_unfinished_work_seconds Seconds of work in progress not yet observed by work_duration; a steady rise means stuck workers.
# TYPE workqueue_unfinished_work_seconds gauge
workqueue_unfinished_work_seconds{name="things"} 5
`
	if err := testutil.CollectAndCompare(pm.gauges, strings.NewReader(gauges)); err != nil {
		t.Error(err)
	}

	q.Done("a") // worked 4s, re-queued
	q.AddAfter("c", time.Second)
	q.AddRateLimited("d")

	if got := testutil.ToFloat64(pm.adds.WithLabelValues("things")); got != 3 {
		t.Errorf("%s = %v, want 3", MetricAdds, got)
	}
	if got := testutil.ToFloat64(pm.retries.WithLabelValues("things")); got != 2 {
		t.Errorf("%s = %v, want 2", MetricRetries, got)
	}
	if n, sum := histogram(t, reg, MetricQueueDuration, "things"); n != 2 || sum != 7 {
		t.Errorf("%s: count %d sum %v, want 2 and 7", MetricQueueDuration, n, sum)
	}
	if n, sum := histogram(t, reg, MetricWorkDuration, "things"); n != 1 || sum != 4 {
		t.Errorf("%s: count %d sum %v, want 1 and 4", MetricWorkDuration, n, sum)
	}
}

func TestPrometheusMetricsDepthAndIdle(t *testing.T) {
	reg := prometheus.NewRegistry()
	pm, err := NewPrometheusMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	q := New(Options[int]{Name: "ints", Metrics: pm})
	for i := range 5 {
		q.Add(i)
	}
	want := `
# HELP workqueue_depth Current depth of the workqueue.
# TYPE workqueue_depth gauge
workqueue_depth{name="ints"} 5
`
	if err := testutil.CollectAndCompare(pm.gauges, strings.NewReader(want), MetricDepth); err != nil {
		t.Error(err)
	}
}

func TestPrometheusMetricsRegisterTwiceFails(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := NewPrometheusMetrics(reg); err != nil {
		t.Fatal(err)
	}
	_, err := NewPrometheusMetrics(reg)
	var are prometheus.AlreadyRegisteredError
	if !errors.As(err, &are) {
		t.Errorf("second registration: %v, want AlreadyRegisteredError", err)
	}
}

func TestNoMetricsWithoutName(t *testing.T) {
	reg := prometheus.NewRegistry()
	pm, err := NewPrometheusMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	q := New(Options[int]{Metrics: pm}) // no name: no metrics
	q.Add(1)
	if q.metrics != nil {
		t.Error("unnamed queue records metrics")
	}
	if got := testutil.CollectAndCount(pm.adds); got != 0 {
		t.Errorf("%d add series, want 0", got)
	}
}
