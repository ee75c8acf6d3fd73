package ttlafterfinished

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/collectors"
)

// Options configure the controller. The zero value is ready to use.
type Options struct {
	// Clock tells the time; nil is the real clock.
	Clock clock.Clock
	// Workers is how many Jobs are looked at once; 0 means 5,
	// kube-controller-manager's --concurrent-ttl-after-finished-syncs.
	Workers int
}

// Setup adds the controller to m.
func Setup(m *manager.Manager, opts Options) error {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Workers <= 0 {
		opts.Workers = 5
	}
	deletion, err := collectors.Histogram(m.Registry(), prometheus.HistogramOpts{
		Subsystem: "ttl_after_finished_controller",
		Name:      "job_deletion_duration_seconds",
		Help:      "The time it took to delete the job since it became eligible for deletion",
		// From 100 ms to the last bucket, [~27m, Inf).
		Buckets: prometheus.ExponentialBuckets(0.1, 2, 14),
	})
	if err != nil {
		return err
	}
	r := &reconciler{cache: m.Client(), api: m.API(), clock: opts.Clock, deletion: deletion}
	_, err = m.NewController(r, controller.Options{Name: "ttl_jobs_to_delete", Workers: opts.Workers, Clock: opts.Clock},
		controller.For[*batchv1.Job]())
	return err
}

type reconciler struct {
	cache client.Reader
	api   *client.Client
	clock clock.Clock
	// deletion observes how long after its expiry each Job went.
	deletion prometheus.Observer
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	job := &batchv1.Job{}
	if err := r.cache.Get(ctx, req.NamespacedName, job); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	wait, due, err := Expiry(job, r.clock.Now())
	if err != nil || !due {
		return reconcile.Result{RequeueAfter: wait}, err
	}
	// The cached Job may be stale: its TTL may have changed since.
	fresh := &batchv1.Job{}
	if err := r.api.Get(ctx, req.NamespacedName, fresh); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	wait, due, err = Expiry(fresh, r.clock.Now())
	if err != nil || !due {
		return reconcile.Result{RequeueAfter: wait}, err
	}
	reconcile.Logger(ctx).InfoContext(ctx, "deleting finished job past its ttl", "job", req.NamespacedName)
	err = r.api.Delete(ctx, fresh, client.PropagationPolicy(metav1.DeletePropagationForeground), client.Preconditions{UID: &fresh.UID})
	switch {
	case err == nil:
		if at, ok, _ := expiresAt(fresh); ok {
			r.deletion.Observe(r.clock.Now().Sub(at).Seconds())
		}
	case !client.IsNotFound(err):
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, nil
}
