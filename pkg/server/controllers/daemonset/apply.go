package daemonset

import (
	"context"
	"errors"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// apply carries out a change, at most burstReplicas creates and as many
// deletes: creates in slow-start batches (1, 2, 4, ... stopping after a
// batch with a failure, so a template every create refuses fails once),
// deletes all at once. It returns every error.
func (r *reconciler) apply(ctx context.Context, ds *appsv1.DaemonSet, c Change, hash string, now time.Time) error {
	key := types.NamespacedName{Namespace: ds.Namespace, Name: ds.Name}
	creates := c.Create[:min(len(c.Create), burstReplicas)]
	deletes := c.Delete[:min(len(c.Delete), burstReplicas)]
	var errs []error
	for done, batch := 0, min(len(creates), 1); batch > 0; batch = min(2*batch, len(creates)-done) {
		failed := r.parallel(batch, func(i int) error { return r.create(ctx, ds, key, creates[done+i], hash, now) })
		done += batch
		if len(failed) > 0 {
			errs = append(errs, failed...)
			break
		}
	}
	for _, p := range deletes {
		r.exp.Deleting(key, p, now)
	}
	errs = append(errs, r.parallel(len(deletes), func(i int) error { return r.delete(ctx, ds, key, deletes[i]) })...)
	return errors.Join(errs...)
}

// parallel runs fn(0..n-1) at once and returns the errors.
func (r *reconciler) parallel(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = fn(i) })
	}
	wg.Wait()
	var out []error
	for _, err := range errs {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

func (r *reconciler) create(ctx context.Context, ds *appsv1.DaemonSet, key types.NamespacedName, node, hash string, now time.Time) error {
	pod := NewPod(ds, node, hash)
	if err := r.api.Create(ctx, pod); err != nil {
		if client.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			// Every create fails until the namespace is gone.
			return nil
		}
		r.events.Eventf(ds, corev1.EventTypeWarning, "FailedCreate", "Error creating: %v", err)
		return err
	}
	r.exp.Created(key, pod.Name, now)
	r.events.Eventf(ds, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: %v", pod.Name)
	return nil
}

func (r *reconciler) delete(ctx context.Context, ds *appsv1.DaemonSet, key types.NamespacedName, pod *corev1.Pod) error {
	err := r.api.Delete(ctx, pod.DeepCopy())
	switch {
	case err == nil:
		r.events.Eventf(ds, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted pod: %v", pod.Name)
		return nil
	case client.IsNotFound(err):
		return nil
	}
	r.exp.Undo(key, pod.UID)
	r.events.Eventf(ds, corev1.EventTypeWarning, "FailedDelete", "Error deleting: %v", err)
	return err
}
