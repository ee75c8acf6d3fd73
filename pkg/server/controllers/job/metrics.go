package job

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	batchv1 "k8s.io/api/batch/v1"
)

// metrics are the stable series of kube-controller-manager's Job
// controller, under its names, so dashboards built for kube read these.
type metrics struct {
	syncDuration *prometheus.HistogramVec // completion_mode, result, action
	syncs        *prometheus.CounterVec   // completion_mode, result, action
	finished     *prometheus.CounterVec   // completion_mode, result, reason
	podsFinished *prometheus.CounterVec   // completion_mode, result
}

// The action label of a sync, as kube names what it did.
const (
	actionReconciling = "reconciling"
	actionTracking    = "tracking"
	actionCreated     = "pods_created"
	actionDeleted     = "pods_deleted"
)

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		syncDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: "job_controller", Name: "job_sync_duration_seconds", Help: "The time it took to sync a job",
			Buckets: prometheus.ExponentialBuckets(0.004, 2, 15),
		}, []string{"completion_mode", "result", "action"}),
		syncs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "job_controller", Name: "job_syncs_total", Help: "The number of job syncs",
		}, []string{"completion_mode", "result", "action"}),
		finished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "job_controller", Name: "jobs_finished_total", Help: "The number of finished jobs",
		}, []string{"completion_mode", "result", "reason"}),
		podsFinished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "job_controller", Name: "job_pods_finished_total", Help: "The number of finished Pods that are fully tracked",
		}, []string{"completion_mode", "result"}),
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.syncDuration, m.syncs, m.finished, m.podsFinished} {
		// A second Setup on one manager keeps the first's series.
		var are prometheus.AlreadyRegisteredError
		if err := reg.Register(c); err != nil && !errors.As(err, &are) {
			return nil, err
		}
	}
	return m, nil
}

// action names what a plan did.
func (p Plan) action() string {
	switch {
	case p.Ending || !p.Managed:
		return actionReconciling
	case len(p.Delete) > 0:
		return actionDeleted
	case len(p.Create) > 0 || p.Wait > 0:
		return actionCreated
	}
	return actionTracking
}

// synced records one sync of job that took d and did action.
func (m *metrics) synced(job *batchv1.Job, action string, err error, d time.Duration) {
	if m == nil {
		return
	}
	result := "success"
	if err != nil {
		result = "error"
	}
	mode := completionMode(job)
	m.syncDuration.WithLabelValues(mode, result, action).Observe(d.Seconds())
	m.syncs.WithLabelValues(mode, result, action).Inc()
}

// counted records the pods a pass moved into the Job's counters, and its
// end if it concluded.
func (m *metrics) counted(job *batchv1.Job, before batchv1.JobStatus, concluded *batchv1.JobCondition) {
	if m == nil {
		return
	}
	mode := completionMode(job)
	if d := job.Status.Succeeded - before.Succeeded; d > 0 {
		m.podsFinished.WithLabelValues(mode, "succeeded").Add(float64(d))
	}
	if d := job.Status.Failed - before.Failed; d > 0 {
		m.podsFinished.WithLabelValues(mode, "failed").Add(float64(d))
	}
	if concluded == nil {
		return
	}
	result := "failed"
	if concluded.Type == batchv1.JobComplete {
		result = "succeeded"
	}
	m.finished.WithLabelValues(mode, result, concluded.Reason).Inc()
}

func completionMode(job *batchv1.Job) string {
	if indexed(job) {
		return string(batchv1.IndexedCompletion)
	}
	return string(batchv1.NonIndexedCompletion)
}
