package registry

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
	"github.com/setpoint-dev/setpoint/pkg/server/user"
)

// signerGuard asks whether a caller may act for a signer, as
// kube-apiserver's CertificateApproval and CertificateSigning admission
// plugins ask its authorizer: the verb on the "signers" resource named
// after the signer, or after its domain and "/*".
type signerGuard struct {
	authz authorizer.Authorizer
}

// mayFor reports whether u may verb (approve, sign) for signerName.
func (g *signerGuard) mayFor(ctx context.Context, u authenticationv1.UserInfo, verb, signerName string) bool {
	domain, _, _ := strings.Cut(signerName, "/")
	for _, name := range []string{signerName, domain + "/*"} {
		d, _, _ := g.authz.Authorize(ctx, authorizer.Attributes{
			User: u, Verb: verb, ResourceRequest: true,
			APIGroup: certificatesGroup, APIVersion: "*", Resource: "signers", Name: name,
		})
		if d == authorizer.Allow {
			return true
		}
	}
	return false
}

// AdmitValidated runs kube's certificate admission on a valid write: a
// create for the kube-apiserver-client signer may not ask for
// system:masters, whoever approves or denies must be allowed to approve
// for the signer, and whoever adds a certificate or a condition through
// the status must be allowed to sign for it. Who may do which is read
// from the stored request, so a write cannot change the signer it is
// judged by.
func (s csrStrategy) AdmitValidated(ctx context.Context, sub Subresource, obj, old map[string]any) error {
	switch {
	case sub == SubresourceNone && old == nil:
		return restrictSubject(obj)
	case s.guard == nil:
		return nil
	case sub == SubresourceApproval:
		return s.guard.admit(ctx, "approve", old)
	case sub == SubresourceStatus:
		status, was, err := csrStatuses(obj, old)
		if err != nil {
			return err
		}
		if bytes.Equal(status.Certificate, was.Certificate) && equality.Semantic.DeepEqual(status.Conditions, was.Conditions) {
			return nil
		}
		return s.guard.admit(ctx, "sign", old)
	}
	return nil
}

// admit refuses, in kube's words, a caller who may not verb for the
// signer of the stored request old.
func (g *signerGuard) admit(ctx context.Context, verb string, old map[string]any) error {
	signer := str(nestedMap(old, false, "spec")["signerName"])
	if g.mayFor(ctx, user.Caller(ctx), verb, signer) {
		return nil
	}
	return &ForbiddenError{Reason: fmt.Sprintf("user not permitted to %s requests with signerName %q", verb, signer)}
}

// restrictSubject refuses a request to the kube-apiserver-client signer
// whose subject names system:masters (kube's
// CertificateSubjectRestriction): whoever approves client certificates
// must not be able to mint a member of the group no authorizer stops.
func restrictSubject(obj map[string]any) error {
	spec := nestedMap(obj, false, "spec")
	if str(spec["signerName"]) != certificatesv1.KubeAPIServerClientSignerName {
		return nil
	}
	csr, errs := typedCSR(obj)
	if len(errs) > 0 {
		return errs.ToAggregate()
	}
	req, err := parseCSR(csr.Spec.Request)
	if err != nil {
		return &ForbiddenError{Reason: fmt.Sprintf("failed to parse CSR: %v", err)}
	}
	if slices.Contains(req.Subject.Organization, authorizer.PrivilegedGroup) {
		return &ForbiddenError{Reason: fmt.Sprintf("use of %s signer with %s group is not allowed", certificatesv1.KubeAPIServerClientSignerName, authorizer.PrivilegedGroup)}
	}
	return nil
}
