package csrcleaner

import (
	"context"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// ControllerName names the controller in logs and metrics, as
// kube-controller-manager names it.
const ControllerName = "csrcleaner"

// Options configure the controller. The zero value is ready to use.
type Options struct {
	// Clock tells the time and times each request's deadline; nil is
	// the real clock.
	Clock clock.Clock
	// Workers is how many requests are looked at once; 0 means 1, as
	// kube-controller-manager runs this controller.
	Workers int
}

// Setup adds the CSR cleaner to m, whose client must know
// certificates.k8s.io/v1.
func Setup(m *manager.Manager, opts Options) error {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	r := &reconciler{cache: m.Client(), api: m.API(), clock: opts.Clock}
	_, err := m.NewController(r, controller.Options{Name: ControllerName, Workers: opts.Workers, Clock: opts.Clock},
		controller.For[*certificatesv1.CertificateSigningRequest]())
	return err
}

type reconciler struct {
	cache client.Reader // requests, from the informer
	api   *client.Client
	clock clock.Clock
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	csr := &certificatesv1.CertificateSigningRequest{}
	if err := r.cache.Get(ctx, req.NamespacedName, csr); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	wait, due := r.due(csr)
	if !due {
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	// The cache may be behind (a pending request just approved has no
	// deadline): decide again on the stored request, and delete that one
	// only, not one changed or created since.
	fresh := &certificatesv1.CertificateSigningRequest{}
	if err := r.api.Get(ctx, req.NamespacedName, fresh); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if wait, due = r.due(fresh); !due {
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	err := r.api.Delete(ctx, fresh, client.Preconditions{UID: &fresh.UID, ResourceVersion: &fresh.ResourceVersion})
	switch {
	case err == nil:
		reconcile.Logger(ctx).InfoContext(ctx, "certificate signing request deleted past its deadline")
	case !client.IsNotFound(err) && !client.IsConflict(err):
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, nil
}

// due reports whether csr's deadline has come, or how long until it does
// (0 when it has none).
func (r *reconciler) due(csr *certificatesv1.CertificateSigningRequest) (time.Duration, bool) {
	at, ok := Deadline(csr)
	if !ok {
		return 0, false
	}
	wait := at.Sub(r.clock.Now())
	return wait, wait <= 0
}
