package csrsigning

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
)

// Action is what the controller does about one request.
type Action int

const (
	// Skip leaves the request alone: undecided, denied, failed, signed
	// already, or for a signer this controller does not serve.
	Skip Action = iota
	// Fail marks the request Failed: its signer does not issue what it
	// asks for.
	Fail
	// Sign issues its certificate.
	Sign
)

func (a Action) String() string {
	switch a {
	case Fail:
		return "Fail"
	case Sign:
		return "Sign"
	}
	return "Skip"
}

// FailedReason is the reason of the Failed condition the controller
// adds, as kube's signer words it.
const FailedReason = "SignerValidationFailure"

// ErrRequest is returned by Decide for a request whose PEM block is not
// a signed certificate request; the server refuses such requests, so
// it is never stored.
var ErrRequest = errors.New("csrsigning: unreadable certificate request")

// Decide says what to do about csr: for Fail, the condition's message;
// for Sign, the parsed request to issue the certificate for.
func Decide(csr *certificatesv1.CertificateSigningRequest) (Action, string, *x509.CertificateRequest, error) {
	if len(csr.Status.Certificate) > 0 || !approved(csr) || failed(csr) {
		return Skip, "", nil, nil
	}
	check, ok := signers[csr.Spec.SignerName]
	if !ok {
		return Skip, "", nil, nil
	}
	req, err := parseRequest(csr.Spec.Request)
	if err != nil {
		return Skip, "", nil, fmt.Errorf("%w %q: %v", ErrRequest, csr.Name, err)
	}
	if err := check(req, csr.Spec.Usages); err != nil {
		return Fail, err.Error(), nil, nil
	}
	return Sign, "", req, nil
}

// approved: an Approved condition and no Denied one, whatever their
// status (only True is valid).
func approved(csr *certificatesv1.CertificateSigningRequest) bool {
	var yes, no bool
	for _, c := range csr.Status.Conditions {
		switch c.Type {
		case certificatesv1.CertificateApproved:
			yes = true
		case certificatesv1.CertificateDenied:
			no = true
		}
	}
	return yes && !no
}

// failed: a Failed condition that is True or has no status.
func failed(csr *certificatesv1.CertificateSigningRequest) bool {
	for _, c := range csr.Status.Conditions {
		if c.Type == certificatesv1.CertificateFailed && (c.Status == "" || c.Status == corev1.ConditionTrue) {
			return true
		}
	}
	return false
}

func parseRequest(data []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return nil, err
	}
	return req, req.CheckSignature()
}
