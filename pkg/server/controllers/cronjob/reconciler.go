package cronjob

import (
	"context"
	"errors"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// eventRecorder records events on a CronJob.
type eventRecorder interface {
	Eventf(obj client.Object, eventtype, reason, format string, args ...any)
}

// background deletes a Job at once and leaves its pods to the garbage
// collector, as kube's CronJob controller deletes.
var background = client.PropagationPolicy(metav1.DeletePropagationBackground)

// reconciler runs one pass over a CronJob: prune its history, observe
// its Jobs, start the Job due, write the status, ask to be woken at the
// next schedule time.
type reconciler struct {
	cache  client.Reader // CronJobs and Jobs, from informers
	api    *client.Client
	events eventRecorder
	clock  clock.Clock
	skew   func(time.Duration) // job creation skew, for the metric
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cj := &batchv1.CronJob{}
	if err := r.cache.Get(ctx, req.NamespacedName, cj); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	jobs, err := r.jobsOf(ctx, cj)
	if err != nil {
		return reconcile.Result{}, err
	}
	work := cj.DeepCopy()
	pruned := r.prune(ctx, work, jobs)
	requeue, syncErr := r.sync(ctx, &work, jobs, pruned)
	if !equality.Semantic.DeepEqual(cj.Status, work.Status) {
		if err := r.api.UpdateStatus(ctx, work); err != nil {
			return reconcile.Result{}, errors.Join(syncErr, fmt.Errorf("writing the cronjob's status: %w", err))
		}
	}
	if requeue != nil {
		// kube adds a key due now or in the past at once.
		return reconcile.Result{RequeueAfter: max(*requeue, time.Nanosecond)}, nil
	}
	return reconcile.Result{}, syncErr
}

// jobsOf are the Jobs of cj's namespace whose controller reference
// bears its name, whatever their labels now say.
func (r *reconciler) jobsOf(ctx context.Context, cj *batchv1.CronJob) ([]*batchv1.Job, error) {
	list := &batchv1.JobList{}
	if err := r.cache.List(ctx, list, client.InNamespace(cj.Namespace)); err != nil {
		return nil, err
	}
	var out []*batchv1.Job
	for i := range list.Items {
		if ref := metav1.GetControllerOfNoCopy(&list.Items[i]); ref != nil && ref.Name == cj.Name {
			out = append(out, &list.Items[i])
		}
	}
	return out, nil
}

// prune deletes the finished Jobs beyond the history limits and
// returns the UIDs of those it deleted.
func (r *reconciler) prune(ctx context.Context, cj *batchv1.CronJob, jobs []*batchv1.Job) map[types.UID]bool {
	deleted := map[types.UID]bool{}
	for _, j := range Prune(cj, jobs) {
		if r.deleteJob(ctx, cj, j) {
			deleted[j.UID] = true
		}
	}
	return deleted
}

// deleteJob deletes a Job and drops it from status.active; it reports
// whether the Job was deleted.
func (r *reconciler) deleteJob(ctx context.Context, cj *batchv1.CronJob, j *batchv1.Job) bool {
	if err := r.api.Delete(ctx, j, background); err != nil {
		r.events.Eventf(cj, corev1.EventTypeWarning, "FailedDelete", "Deleted job: %v", err)
		reconcile.Logger(ctx).ErrorContext(ctx, "deleting a job of the cronjob failed", "job", j.Name, "err", err)
		return false
	}
	dropActive(cj, j.UID)
	r.events.Eventf(cj, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted job %v", j.Name)
	return true
}

// sync observes the Jobs and acts on the Decision. It may replace
// *work with the CronJob read afresh, when the cached one proves stale.
func (r *reconciler) sync(ctx context.Context, work **batchv1.CronJob, jobs []*batchv1.Job, pruned map[types.UID]bool) (*time.Duration, error) {
	cj := *work
	unexpected, gone, events := Observe(cj, jobs)
	if len(unexpected) > 0 {
		// The cache may predate the status write that listed them.
		fresh := &batchv1.CronJob{}
		if err := r.api.Get(ctx, types.NamespacedName{Namespace: cj.Namespace, Name: cj.Name}, fresh); err != nil {
			return nil, err
		}
		if stale(fresh, unexpected) {
			for uid := range pruned {
				dropActive(fresh, uid)
			}
			cj, *work = fresh, fresh
			unexpected, gone, events = Observe(cj, jobs)
		}
		for _, j := range unexpected {
			if !inActive(fresh, j.UID) {
				r.events.Eventf(cj, corev1.EventTypeWarning, "UnexpectedJob", "Saw a job that the controller did not create or forgot: %s", j.Name)
			}
		}
	}
	for _, e := range events {
		r.events.Eventf(cj, e.Type, e.Reason, "%s", e.Message)
	}
	for _, ref := range gone {
		// Only the API can tell a Job deleted from one the cache has
		// not seen yet.
		err := r.api.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, &batchv1.Job{})
		switch {
		case client.IsNotFound(err):
			r.events.Eventf(cj, corev1.EventTypeNormal, "MissingJob", "Active job went missing: %v", ref.Name)
			dropActive(cj, ref.UID)
		case err != nil:
			return nil, err
		}
	}

	d := Decide(cj, r.clock.Now())
	for _, e := range d.Events {
		r.events.Eventf(cj, e.Type, e.Reason, "%s", e.Message)
	}
	if d.Start.IsZero() {
		return d.Requeue, nil
	}
	if d.Replace {
		if err := r.replace(ctx, cj); err != nil {
			return nil, err
		}
	}
	job, err := r.start(ctx, cj, d.Start)
	if err != nil || job == nil {
		return nil, err
	}
	cj.Status.Active = append(cj.Status.Active, reference(job))
	cj.Status.LastScheduleTime = &metav1.Time{Time: d.Start}
	return d.Requeue, nil
}

// stale reports whether fresh lists any of the Jobs the cached CronJob
// did not.
func stale(fresh *batchv1.CronJob, unexpected []*batchv1.Job) bool {
	for _, j := range unexpected {
		if inActive(fresh, j.UID) {
			return true
		}
	}
	return false
}

// replace deletes the running Jobs, read afresh, before a new one
// starts.
func (r *reconciler) replace(ctx context.Context, cj *batchv1.CronJob) error {
	for _, ref := range cj.Status.Active {
		j := &batchv1.Job{}
		if err := r.api.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, j); err != nil {
			r.events.Eventf(cj, corev1.EventTypeWarning, "FailedGet", "Get job: %v", err)
			return err
		}
		if !r.deleteJob(ctx, cj, j) {
			return &ReplaceError{Namespace: j.Namespace, Name: j.Name}
		}
	}
	return nil
}

// ReplaceError is a running Job that could not be deleted to make room
// for the next one.
type ReplaceError struct{ Namespace, Name string }

func (e *ReplaceError) Error() string {
	return fmt.Sprintf("could not replace job %s/%s", e.Namespace, e.Name)
}

// start creates the Job for a scheduled time. It returns the Job to
// list in status.active, or nil when there is none to add: a Job of
// that name another controller made, or ours already listed.
func (r *reconciler) start(ctx context.Context, cj *batchv1.CronJob, scheduled time.Time) (*batchv1.Job, error) {
	job, err := JobFor(cj, scheduled)
	if err != nil {
		reconcile.Logger(ctx).ErrorContext(ctx, "making a job from the cronjob's template failed", "err", err)
		return nil, err
	}
	err = r.api.Create(ctx, job)
	switch {
	case err == nil:
		r.skew(job.CreationTimestamp.Sub(scheduled))
		r.events.Eventf(cj, corev1.EventTypeNormal, "SuccessfulCreate", "Created job %v", job.Name)
		return job, nil
	case client.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		// Every create fails until the namespace is gone.
		return nil, err
	case client.IsAlreadyExists(err):
		// Ours from a pass whose status write was lost, or someone
		// else's.
		found := &batchv1.Job{}
		if err := r.api.Get(ctx, types.NamespacedName{Namespace: job.Namespace, Name: job.Name}, found); err != nil {
			return nil, err
		}
		if !metav1.IsControlledBy(found, cj) || inActive(cj, found.UID) {
			return nil, nil
		}
		reconcile.Logger(ctx).InfoContext(ctx, "job already exists", "job", found.Name)
		return found, nil
	}
	r.events.Eventf(cj, corev1.EventTypeWarning, "FailedCreate", "Error creating job: %v", err)
	return nil, err
}
