package job

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/ownership"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/podcondition"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/slowstart"
)

// eventRecorder records events on a Job.
type eventRecorder interface {
	Eventf(obj client.Object, eventtype, reason, format string, args ...any)
}

// reconciler runs one pass of a Job: claim its pods, assess, create or
// delete pods, count finished ones and release them, write the status.
type reconciler struct {
	cache    client.Reader // Jobs and Pods, from informers
	api      *client.Client
	events   eventRecorder
	clock    clock.Clock
	exp      *expectations
	backoffs *backoffs
	metrics  *metrics // nil records nothing
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	key := req.NamespacedName
	job := &batchv1.Job{}
	if err := r.cache.Get(ctx, key, job); err != nil {
		if client.IsNotFound(err) {
			r.exp.forget(key)
			r.backoffs.forget(key)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if managedElsewhere(job) {
		return reconcile.Result{}, nil
	}
	if Finished(job) {
		r.backoffs.forget(key)
		return reconcile.Result{}, nil
	}
	if m := job.Spec.CompletionMode; m != nil && *m != batchv1.NonIndexedCompletion && *m != batchv1.IndexedCompletion {
		r.events.Eventf(job, corev1.EventTypeWarning, "UnknownCompletionMode", "Skipped Job sync because completion mode is unknown")
		return reconcile.Result{}, nil
	}
	start := r.clock.Now()
	res, action, err := r.sync(ctx, key, job)
	r.metrics.synced(job, action, err, r.clock.Now().Sub(start))
	return res, err
}

// sync runs one pass of job and says what it did, as kube's action label
// does.
func (r *reconciler) sync(ctx context.Context, key types.NamespacedName, job *batchv1.Job) (reconcile.Result, string, error) {
	sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil {
		// Validation refuses such a selector; wait for a fixed one.
		reconcile.Logger(ctx).WarnContext(ctx, "job selector unusable", "err", err)
		return reconcile.Result{}, actionReconciling, nil
	}
	now := r.clock.Now()
	list := &corev1.PodList{}
	if err := r.cache.List(ctx, list, client.InNamespace(job.Namespace)); err != nil {
		return reconcile.Result{}, actionReconciling, err
	}
	pods := make([]*corev1.Pod, len(list.Items))
	for i := range list.Items {
		pods[i] = &list.Items[i]
	}
	// Expectations first: a pod that enters the cache after this reads
	// them is only seen by the next pass.
	satisfied, removing := r.exp.observe(key, pods, now)
	owned, err := r.settleClaims(ctx, job, ownership.Claim(job, sel, pods))
	if err != nil {
		return reconcile.Result{}, actionReconciling, err
	}
	pass := NewPass(job, owned, now, r.backoffs.get(key), removing, satisfied)
	plan := pass.Plan()
	outcome, manageErr := r.carryOut(ctx, key, pass, plan)
	pass.Managed(outcome)
	if err := r.track(ctx, key, pass); err != nil {
		return reconcile.Result{}, plan.action(), errors.Join(manageErr, fmt.Errorf("tracking status: %w", err))
	}
	if manageErr != nil {
		return reconcile.Result{}, plan.action(), manageErr
	}
	var requeue time.Duration
	if plan.Wait > 0 {
		requeue = max(plan.Wait, time.Second)
	}
	if pass.Recheck > 0 && (requeue == 0 || pass.Recheck < requeue) {
		requeue = pass.Recheck
	}
	return reconcile.Result{RequeueAfter: requeue}, plan.action(), nil
}

// managedElsewhere: spec.managedBy names another controller.
func managedElsewhere(job *batchv1.Job) bool {
	return job.Spec.ManagedBy != nil && *job.Spec.ManagedBy != batchv1.JobControllerName
}

// settleClaims adopts (controller reference and tracking finalizer) and
// releases what Claim decided, and returns the pods job owns. It adopts
// only if the Job, read afresh, is still the same object and not being
// deleted.
func (r *reconciler) settleClaims(ctx context.Context, job *batchv1.Job, c ownership.Claims[*corev1.Pod]) ([]*corev1.Pod, error) {
	if len(c.Adopt) > 0 {
		fresh := &batchv1.Job{}
		if err := r.api.Get(ctx, types.NamespacedName{Namespace: job.Namespace, Name: job.Name}, fresh); err != nil {
			return nil, err
		}
		if fresh.UID != job.UID {
			return nil, fmt.Errorf("original Job %s/%s is gone: got uid %s, wanted %s", job.Namespace, job.Name, fresh.UID, job.UID)
		}
		if fresh.DeletionTimestamp != nil {
			return nil, fmt.Errorf("%s/%s has just been deleted at %v", job.Namespace, job.Name, fresh.DeletionTimestamp)
		}
	}
	adopted := map[types.UID]*corev1.Pod{}
	for _, p := range c.Adopt {
		ref := metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))
		err := r.patch(ctx, p, map[string]any{"ownerReferences": []any{ref}, "uid": p.UID, "finalizers": []string{batchv1.JobTrackingFinalizer}})
		if err != nil && !client.IsNotFound(err) {
			return nil, err
		}
		if err == nil {
			// The rest of the pass sees the finalizer the patch added.
			cp := p.DeepCopy()
			if !hasTrackingFinalizer(cp) {
				cp.Finalizers = append(cp.Finalizers, batchv1.JobTrackingFinalizer)
			}
			adopted[p.UID] = cp
		} else {
			adopted[p.UID] = nil
		}
	}
	for _, p := range c.Release {
		err := r.patch(ctx, p, map[string]any{
			"ownerReferences":                     []any{map[string]any{"$patch": "delete", "uid": job.UID}},
			"uid":                                 p.UID,
			"$deleteFromPrimitiveList/finalizers": []string{batchv1.JobTrackingFinalizer},
		})
		if err != nil && !client.IsNotFound(err) {
			return nil, err
		}
	}
	owned := make([]*corev1.Pod, 0, len(c.Owned))
	for _, p := range c.Owned {
		if cp, ok := adopted[p.UID]; ok {
			if cp != nil {
				owned = append(owned, cp)
			}
			continue
		}
		owned = append(owned, p)
	}
	return owned, nil
}

// patch applies a strategic merge patch to pod's metadata.
func (r *reconciler) patch(ctx context.Context, pod *corev1.Pod, metadata map[string]any) error {
	data, err := json.Marshal(map[string]any{"metadata": metadata})
	if err != nil {
		return err
	}
	return r.api.Patch(ctx, pod.DeepCopy(), types.StrategicMergePatchType, data)
}

// releaseFinalizer removes the tracking finalizer from pod.
func (r *reconciler) releaseFinalizer(ctx context.Context, pod *corev1.Pod) error {
	return r.patch(ctx, pod, map[string]any{"$deleteFromPrimitiveList/finalizers": []string{batchv1.JobTrackingFinalizer}})
}

// carryOut does what plan says and reports what came of it.
func (r *reconciler) carryOut(ctx context.Context, key types.NamespacedName, pass *Pass, plan Plan) (Outcome, error) {
	job := pass.Job
	if len(plan.Create) > 0 {
		var failed atomic.Int32
		created, err := slowstart.Run(plan.Create, func(ix int) error {
			err := r.create(ctx, key, pass, ix)
			if err != nil {
				failed.Add(1)
			}
			return err
		})
		r.metrics.created(job, created, int(failed.Load()))
		return Outcome{Created: int32(created)}, err
	}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		out    Outcome
		errs   []error
		expect = !plan.Ending
	)
	for _, p := range plan.Delete {
		if expect {
			r.exp.deleting(key, p, pass.Now)
		}
		wg.Go(func() {
			err := r.deletePod(ctx, job, p, !plan.Ending)
			if err != nil && expect {
				r.exp.undoDelete(key, p.UID)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			out.Deleted++
			if podcondition.True(p, corev1.PodReady) {
				out.DeletedReady++
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		return out, errs[0]
	}
	return out, nil
}

// deletePod deletes pod, first removing its tracking finalizer when
// release is set (a pod deleted so it is never counted).
func (r *reconciler) deletePod(ctx context.Context, job *batchv1.Job, pod *corev1.Pod, release bool) error {
	if release && hasTrackingFinalizer(pod) {
		if err := r.releaseFinalizer(ctx, pod); err != nil {
			if client.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("removing completion finalizer: %w", err)
		}
	}
	err := r.api.Delete(ctx, pod.DeepCopy())
	switch {
	case err == nil:
		r.events.Eventf(job, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted pod: %v", pod.Name)
		return nil
	case client.IsNotFound(err):
		return nil
	}
	r.events.Eventf(job, corev1.EventTypeWarning, "FailedDelete", "Error deleting: %v", err)
	return err
}

func (r *reconciler) create(ctx context.Context, key types.NamespacedName, pass *Pass, ix int) error {
	job := pass.Job
	pod := NewPod(job, ix, pass.Replaced(ix))
	if err := r.api.Create(ctx, pod); err != nil {
		if client.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			// Every create fails until the namespace is gone.
			return nil
		}
		r.events.Eventf(job, corev1.EventTypeWarning, "FailedCreate", "Error creating: %v", err)
		return err
	}
	r.exp.created(key, pod.Name, pass.Now)
	r.events.Eventf(job, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: %v", pod.Name)
	return nil
}

// track counts finished pods: the status first names them uncounted,
// then their finalizers go, then the status counts them and, when
// nothing is left to count or terminate, shows the Job's end.
func (r *reconciler) track(ctx context.Context, key types.NamespacedName, pass *Pass) error {
	tr := pass.Track()
	if tr.Flush {
		if err := r.writeStatus(ctx, pass); err != nil {
			return fmt.Errorf("adding uncounted pods to status: %w", err)
		}
		r.backoffs.set(key, pass.Backoff)
	}
	released, rmErr := r.release(ctx, key, tr.Release)
	dirty := pass.Counted(released)
	if rmErr != nil {
		if dirty {
			if err := r.writeStatus(ctx, pass); err != nil {
				return errors.Join(rmErr, fmt.Errorf("removing uncounted pods from status: %w", err))
			}
		}
		return rmErr
	}
	concluded := pass.Conclude()
	if concluded || dirty {
		if err := r.writeStatus(ctx, pass); err != nil {
			return fmt.Errorf("removing uncounted pods from status: %w", err)
		}
	}
	var end *batchv1.JobCondition
	if concluded {
		end = pass.Finished
	}
	r.metrics.counted(pass.Job, pass.original, pass.PolicyActions, end)
	for _, e := range pass.Events {
		r.events.Eventf(pass.Job, e.Type, e.Reason, "%s", e.Message)
	}
	return nil
}

// writeStatus writes the pass's Job status and takes the server's
// answer as the Job from then on.
func (r *reconciler) writeStatus(ctx context.Context, pass *Pass) error {
	if err := r.api.UpdateStatus(ctx, pass.Job); err != nil {
		return err
	}
	if pass.Job.Status.UncountedTerminatedPods == nil {
		pass.Job.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
	}
	return nil
}

// release removes the tracking finalizer of pods, all at once, and
// returns the UIDs of those now without it (gone ones included) and the
// first error.
func (r *reconciler) release(ctx context.Context, key types.NamespacedName, pods []*corev1.Pod) ([]types.UID, error) {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		released []types.UID
		first    error
	)
	for _, p := range pods {
		r.exp.removingFinalizer(key, p)
		wg.Go(func() {
			err := r.releaseFinalizer(ctx, p)
			if err != nil {
				r.exp.undoFinalizer(key, p.UID)
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil || client.IsNotFound(err):
				released = append(released, p.UID)
			case first == nil:
				first = fmt.Errorf("removing tracking finalizer: %w", err)
			}
		})
	}
	wg.Wait()
	return released, first
}
