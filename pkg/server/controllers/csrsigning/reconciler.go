package csrsigning

import (
	"context"
	"encoding/pem"
	"fmt"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// reconciler signs, or fails, one request.
type reconciler struct {
	cache    client.Reader // requests, from the informer
	api      client.Writer
	signer   Signer
	duration time.Duration
	clock    clock.Clock
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	csr := &certificatesv1.CertificateSigningRequest{}
	if err := r.cache.Get(ctx, req.NamespacedName, csr); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	action, message, x509req, err := Decide(csr)
	if err != nil {
		return reconcile.Result{}, reconcile.TerminalError(err)
	}
	now := r.clock.Now()
	switch action {
	case Skip:
		return reconcile.Result{}, nil
	case Fail:
		csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
			Type: certificatesv1.CertificateFailed, Status: corev1.ConditionTrue,
			Reason: FailedReason, Message: message, LastUpdateTime: metav1.NewTime(now),
		})
	case Sign:
		tmpl, err := Template(x509req, csr.Spec.Usages, Duration(csr.Spec.ExpirationSeconds, r.duration), r.signer.NotAfter(), now)
		if err != nil {
			return reconcile.Result{}, err
		}
		der, err := r.signer.Sign(tmpl, x509req.PublicKey)
		if err != nil {
			return reconcile.Result{}, fmt.Errorf("signing: %w", err)
		}
		csr.Status.Certificate = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	}
	// The write carries the resourceVersion read: a request changed
	// meanwhile (denied, or signed by another replica) is a conflict,
	// and its event brings it back.
	switch err := r.api.UpdateStatus(ctx, csr); {
	case err == nil:
		reconcile.Logger(ctx).DebugContext(ctx, "certificate signing request handled", "action", action)
	case client.IsNotFound(err) || client.IsConflict(err):
	default:
		return reconcile.Result{}, fmt.Errorf("writing the %v of the request: %w", action, err)
	}
	return reconcile.Result{}, nil
}
