package csrsigning

import (
	"crypto"
	"crypto/x509"
	"errors"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"

	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
)

// ControllerName names the controller in logs and metrics, as
// kube-controller-manager names it.
const ControllerName = "csrsigning"

// DefaultDuration is the longest certificate issued when Options.Duration
// is 0: kube-controller-manager's --cluster-signing-duration default.
const DefaultDuration = 365 * 24 * time.Hour

// ErrNoSigner is returned by Setup without a Signer.
var ErrNoSigner = errors.New("csrsigning: no signer")

// Signer issues certificates with the cluster's CA, which keeps its key
// to itself (pkg/server/apiserver/credentials.CA is one).
type Signer interface {
	// Sign issues the certificate tmpl describes for the public key
	// pub and returns it DER encoded.
	Sign(tmpl *x509.Certificate, pub crypto.PublicKey) ([]byte, error)
	// NotAfter is when the CA expires: no certificate outlives it.
	NotAfter() time.Time
}

// Options configure the controller.
type Options struct {
	// Signer signs; required.
	Signer Signer
	// Duration is the longest certificate issued; 0 is DefaultDuration.
	// A request asks for less with spec.expirationSeconds.
	Duration time.Duration
	// Clock tells the time; nil is the real clock.
	Clock clock.Clock
	// Workers is how many requests are handled at once; 0 means 5, as
	// kube-controller-manager runs this controller.
	Workers int
}

// Setup adds the CSR signing controller to m, whose client must know
// certificates.k8s.io/v1. It fails with ErrNoSigner without a signer.
func Setup(m *manager.Manager, opts Options) error {
	if opts.Signer == nil {
		return ErrNoSigner
	}
	if opts.Duration <= 0 {
		opts.Duration = DefaultDuration
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Workers <= 0 {
		opts.Workers = 5
	}
	r := &reconciler{cache: m.Client(), api: m.API(), signer: opts.Signer, duration: opts.Duration, clock: opts.Clock}
	_, err := m.NewController(r, controller.Options{Name: ControllerName, Workers: opts.Workers, Clock: opts.Clock},
		controller.For[*certificatesv1.CertificateSigningRequest]())
	return err
}
