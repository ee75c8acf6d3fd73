package job

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/setpoint-dev/setpoint/pkg/predicate"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// metrics are the series of kube-controller-manager's Job controller,
// under its names, so dashboards built for kube read these.
type metrics struct {
	syncDuration    *prometheus.HistogramVec // completion_mode, result, action
	syncs           *prometheus.CounterVec   // completion_mode, result, action
	finished        *prometheus.CounterVec   // completion_mode, result, reason
	podsFinished    *prometheus.CounterVec   // completion_mode, result
	indexesFinished *prometheus.CounterVec   // status, backoffLimit
	policyActions   *prometheus.CounterVec   // action
	podsCreated     *prometheus.CounterVec   // reason, status
	external        *prometheus.CounterVec   // controller_name
	trackedFinished *prometheus.CounterVec   // event
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
		indexesFinished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "job_controller", Name: "job_finished_indexes_total",
			Help: `The number of finished indexes. Possible values for the
			status label are: "succeeded", "failed". Possible values for the
			backoffLimit label are: "perIndex" and "global"`,
		}, []string{"status", "backoffLimit"}),
		policyActions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "job_controller", Name: "pod_failures_handled_by_failure_policy_total",
			Help: `The number of failed Pods handled by failure policy with
			respect to the failure policy action applied based on the matched
			rule. Possible values of the action label correspond to the
			possible values for the failure policy rule action, which are:
			"FailJob", "Ignore" and "Count".`,
		}, []string{"action"}),
		podsCreated: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "job_controller", Name: "job_pods_creation_total",
			Help: `The number of Pods created by the Job controller labelled with a reason for the Pod creation.
This metric also distinguishes between Pods created using different PodReplacementPolicy settings.
Possible values of the "reason" label are:
"new", "recreate_terminating_or_failed", "recreate_failed".
Possible values of the "status" label are:
"succeeded", "failed".`,
		}, []string{"reason", "status"}),
		external: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "job_controller", Name: "jobs_by_external_controller_total",
			Help: "The number of Jobs managed by an external controller",
		}, []string{"controller_name"}),
		trackedFinished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "job_controller", Name: "terminated_pods_tracking_finalizer_total",
			Help: `The number of terminated pods (phase=Failed|Succeeded)
that have the finalizer batch.kubernetes.io/job-tracking
The event label can be "add" or "delete".`,
		}, []string{"event"}),
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.syncDuration, m.syncs, m.finished, m.podsFinished, m.indexesFinished, m.policyActions, m.podsCreated, m.external, m.trackedFinished} {
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
func (m *metrics) counted(job *batchv1.Job, before batchv1.JobStatus, actions map[batchv1.PodFailurePolicyAction]int, concluded *batchv1.JobCondition) {
	if m == nil {
		return
	}
	mode := completionMode(job)
	if indexed(job) {
		// As kube: every pass of an Indexed Job adds its newly finished
		// indexes, none at times.
		completions := 0
		if job.Spec.Completions != nil {
			completions = int(*job.Spec.Completions)
		}
		count := func(s *string) int {
			if s == nil {
				return 0
			}
			return ParseIndexes(*s, completions).Len()
		}
		limit := "global"
		if job.Spec.BackoffLimitPerIndex != nil {
			limit = "perIndex"
		}
		done := count(&job.Status.CompletedIndexes) - count(&before.CompletedIndexes)
		m.indexesFinished.WithLabelValues("succeeded", limit).Add(float64(max(done, 0)))
		if failed := count(job.Status.FailedIndexes) - count(before.FailedIndexes); limit == "perIndex" && failed > 0 {
			m.indexesFinished.WithLabelValues("failed", limit).Add(float64(failed))
		}
	}
	for action, n := range actions {
		m.policyActions.WithLabelValues(string(action)).Add(float64(n))
	}
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

// created records the pods one pass created, and those it failed to,
// under kube's reason: a first pod, or a replacement once pods failed or
// are terminating (only failed ones under podReplacementPolicy Failed).
func (m *metrics) created(job *batchv1.Job, succeeded, failed int) {
	if m == nil || succeeded+failed == 0 {
		return
	}
	st := job.Status
	failedPods := int(st.Failed)
	if u := st.UncountedTerminatedPods; u != nil {
		failedPods += len(u.Failed)
	}
	onlyFailed := job.Spec.PodReplacementPolicy != nil && *job.Spec.PodReplacementPolicy == batchv1.Failed
	terminating := st.Terminating != nil && *st.Terminating > 0
	reason := "new"
	switch {
	case onlyFailed && failedPods > 0:
		reason = "recreate_failed"
	case failedPods > 0 || terminating:
		reason = "recreate_terminating_or_failed"
	}
	if succeeded > 0 {
		m.podsCreated.WithLabelValues(reason, "succeeded").Add(float64(succeeded))
	}
	if failed > 0 {
		m.podsCreated.WithLabelValues(reason, "failed").Add(float64(failed))
	}
}

// watched counts what kube's Job controller counts in its informers'
// handlers: Jobs that another controller manages, as each is first seen
// (a restart sees them all again, as kube's does), and the finished pods
// that gain or lose the tracking finalizer. Both pass every event.
func (m *metrics) watched() (jobs, pods predicate.Predicate) {
	jobs = predicate.Funcs[*batchv1.Job]{CreateFunc: func(job *batchv1.Job) bool {
		if managedElsewhere(job) {
			m.external.WithLabelValues(*job.Spec.ManagedBy).Inc()
		}
		return true
	}}
	pods = predicate.Funcs[*corev1.Pod]{
		CreateFunc: func(pod *corev1.Pod) bool { m.trackedFinishedChange(nil, pod); return true },
		UpdateFunc: func(old, pod *corev1.Pod) bool { m.trackedFinishedChange(old, pod); return true },
		DeleteFunc: func(pod *corev1.Pod) bool { m.trackedFinishedChange(pod, nil); return true },
	}
	return jobs, pods
}

// trackedFinishedChange counts a pod becoming, or no longer being, a
// finished pod with the tracking finalizer; nil is no pod.
func (m *metrics) trackedFinishedChange(old, pod *corev1.Pod) {
	is := func(p *corev1.Pod) bool {
		return p != nil && (p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed) && hasTrackingFinalizer(p)
	}
	switch was, now := is(old), is(pod); {
	case !was && now:
		m.trackedFinished.WithLabelValues("add").Inc()
	case was && !now:
		m.trackedFinished.WithLabelValues("delete").Inc()
	}
}

func completionMode(job *batchv1.Job) string {
	if indexed(job) {
		return string(batchv1.IndexedCompletion)
	}
	return string(batchv1.NonIndexedCompletion)
}
