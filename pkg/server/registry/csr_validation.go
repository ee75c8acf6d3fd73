package registry

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// csrWrite says what a write may change beyond metadata: the approval
// subresource the decision, the status subresource the certificate.
type csrWrite struct {
	decision    bool
	certificate bool
}

// csrUsages are the key usages a request may ask for, sorted as kube
// lists them in its message.
var csrUsages = []string{
	string(certificatesv1.UsageAny), string(certificatesv1.UsageCertSign), string(certificatesv1.UsageClientAuth),
	string(certificatesv1.UsageCodeSigning), string(certificatesv1.UsageContentCommitment), string(certificatesv1.UsageCRLSign),
	string(certificatesv1.UsageDataEncipherment), string(certificatesv1.UsageDecipherOnly), string(certificatesv1.UsageDigitalSignature),
	string(certificatesv1.UsageEmailProtection), string(certificatesv1.UsageEncipherOnly), string(certificatesv1.UsageIPsecEndSystem),
	string(certificatesv1.UsageIPsecTunnel), string(certificatesv1.UsageIPsecUser), string(certificatesv1.UsageKeyAgreement),
	string(certificatesv1.UsageKeyEncipherment), string(certificatesv1.UsageMicrosoftSGC), string(certificatesv1.UsageNetscapeSGC),
	string(certificatesv1.UsageOCSPSigning), string(certificatesv1.UsageSMIME), string(certificatesv1.UsageServerAuth),
	string(certificatesv1.UsageSigning), string(certificatesv1.UsageTimestamping),
}

// minExpirationSeconds is the shortest certificate a request may ask
// for: twice the signer's backdating.
const minExpirationSeconds = 600

// decisionTypes are the conditions only the approval subresource sets;
// verdictTypes are those no write may remove.
var (
	decisionTypes = []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied}
	verdictTypes  = []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed}
)

// csrErrors checks a request as kube-apiserver does, on create (old
// nil) or on an update of old through a write that may change what w
// says. Objects written before kube tightened its rules are not
// tolerated as kube tolerates them: this server never stored any.
func csrErrors(csr, old *certificatesv1.CertificateSigningRequest, w csrWrite) field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if _, err := parseCSR(csr.Spec.Request); err != nil {
		errs = append(errs, field.Invalid(spec.Child("request"), kubeValue{csr.Spec.Request}, err.Error()))
	}
	if len(csr.Spec.Usages) == 0 {
		errs = append(errs, field.Required(spec.Child("usages"), ""))
	}
	for i, u := range csr.Spec.Usages {
		if !slices.Contains(csrUsages, string(u)) {
			errs = append(errs, field.NotSupported(spec.Child("usages").Index(i), u, csrUsages))
		}
	}
	for i, u := range csr.Spec.Usages {
		if slices.Contains(csr.Spec.Usages[:i], u) {
			errs = append(errs, field.Duplicate(spec.Child("usages").Index(i), u))
		}
	}
	if csr.Spec.SignerName == certificatesv1beta1.LegacyUnknownSignerName {
		errs = append(errs, field.Invalid(spec.Child("signerName"), csr.Spec.SignerName, "the legacy signerName is not allowed via this API version"))
	} else {
		errs = append(errs, signerNameErrors(spec.Child("signerName"), csr.Spec.SignerName)...)
	}
	if e := csr.Spec.ExpirationSeconds; e != nil && *e < minExpirationSeconds {
		errs = append(errs, field.Invalid(spec.Child("expirationSeconds"), *e, "may not specify a duration less than 600 seconds (10 minutes)"))
	}
	errs = append(errs, conditionErrors(csr.Status.Conditions)...)
	// A certificate already stored was checked when it was written.
	if old == nil || !bytes.Equal(csr.Status.Certificate, old.Status.Certificate) {
		if err := certificateError(csr.Status.Certificate); err != nil {
			errs = append(errs, field.Invalid(field.NewPath("status", "certificate"), "<certificate data>", err.Error()))
		}
	}
	if old == nil {
		return errs
	}
	conds := field.NewPath("status", "conditions")
	for _, t := range verdictTypes {
		if len(conditionIndices(csr.Status.Conditions, t)) < len(conditionIndices(old.Status.Conditions, t)) {
			errs = append(errs, field.Forbidden(conds, fmt.Sprintf("updates may not remove a condition of type %q", t)))
		}
	}
	if !w.decision {
		// Only a change in their number can reach here: the object's
		// endpoint keeps the stored status and the status endpoint
		// puts back the stored decisions when their number holds.
		for _, t := range decisionTypes {
			if len(conditionIndices(csr.Status.Conditions, t)) > len(conditionIndices(old.Status.Conditions, t)) {
				errs = append(errs, field.Forbidden(conds, fmt.Sprintf("updates may not add a condition of type %q", t)))
			}
		}
	}
	if !bytes.Equal(csr.Status.Certificate, old.Status.Certificate) {
		cert := field.NewPath("status", "certificate")
		switch {
		case !w.certificate:
			errs = append(errs, field.Forbidden(cert, "updates may not set certificate content"))
		case len(old.Status.Certificate) > 0:
			errs = append(errs, field.Forbidden(cert, "updates may not modify existing certificate content"))
		}
	}
	return errs
}

// conditionErrors checks the conditions: each typed, Approved, Denied
// and Failed only ever True, never both Approved and Denied, and no
// type twice.
func conditionErrors(conds []certificatesv1.CertificateSigningRequestCondition) field.ErrorList {
	path := field.NewPath("status", "conditions")
	var errs field.ErrorList
	seen := map[certificatesv1.RequestConditionType]bool{}
	for i, c := range conds {
		at := path.Index(i)
		if c.Type == "" {
			errs = append(errs, field.Required(at.Child("type"), ""))
		}
		allowed := []string{string(corev1.ConditionFalse), string(corev1.ConditionTrue), string(corev1.ConditionUnknown)}
		if slices.Contains(verdictTypes, c.Type) {
			allowed = []string{string(corev1.ConditionTrue)}
		}
		switch {
		case c.Status == "":
			errs = append(errs, field.Required(at.Child("status"), ""))
		case !slices.Contains(allowed, string(c.Status)):
			errs = append(errs, field.NotSupported(at.Child("status"), c.Status, allowed))
		}
		other := certificatesv1.CertificateDenied
		if c.Type == certificatesv1.CertificateDenied {
			other = certificatesv1.CertificateApproved
		}
		if slices.Contains(decisionTypes, c.Type) && seen[other] {
			errs = append(errs, field.Invalid(at.Child("type"), c.Type, "Approved and Denied conditions are mutually exclusive"))
		}
		if seen[c.Type] {
			errs = append(errs, field.Duplicate(at.Child("type"), c.Type))
		}
		seen[c.Type] = true
	}
	return errs
}

// errCSRBlock is kube's refusal of a request that is not one PEM
// CERTIFICATE REQUEST block.
var errCSRBlock = errors.New("PEM block type must be CERTIFICATE REQUEST")

// parseCSR reads the PEM-encoded PKCS#10 request of a CSR's spec and
// checks that its key signed it.
func parseCSR(request []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(request)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, errCSRBlock
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return nil, err
	}
	if err := req.CheckSignature(); err != nil {
		return nil, err
	}
	return req, nil
}

// certificateError checks status.certificate: empty, or PEM
// CERTIFICATE blocks only, without headers, each holding certificates.
func certificateError(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	blocks := 0
	for {
		block, rest := pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("only CERTIFICATE PEM blocks are allowed, found %q", block.Type)
		}
		if len(block.Headers) != 0 {
			return errors.New("no PEM block headers are permitted")
		}
		certs, err := x509.ParseCertificates(block.Bytes)
		if err != nil {
			return err
		}
		if len(certs) == 0 {
			return errors.New("found CERTIFICATE PEM block containing 0 certificates")
		}
		blocks++
		data = rest
	}
	if blocks == 0 {
		return errors.New("must contain at least one CERTIFICATE PEM block")
	}
	return nil
}

// signerNameErrors checks a signer name as kube does: a domain of at
// least two DNS labels, a slash, and a path of DNS subdomains joined by
// dots, long enough for "<namespace>.<name>", 571 characters in all.
func signerNameErrors(path *field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	domain, rest, ok := strings.Cut(name, "/")
	if !ok || strings.Contains(rest, "/") {
		return field.ErrorList{field.Invalid(path, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	var errs field.ErrorList
	if len(domain) > validation.DNS1123SubdomainMaxLength {
		errs = append(errs, field.TooLong(path, "", validation.DNS1123SubdomainMaxLength))
	}
	labels := strings.Split(domain, ".")
	errs = append(errs, segmentErrors(path, domain, labels, validation.IsDNS1123Label)...)
	if len(labels) < 2 {
		errs = append(errs, field.Invalid(path, domain, "should be a domain with at least two segments separated by dots"))
	}
	errs = append(errs, segmentErrors(path, rest, strings.Split(rest, "."), validation.IsDNS1123Subdomain)...)
	maxLen := 2*validation.DNS1123SubdomainMaxLength + validation.DNS1123LabelMaxLength + 2
	if len(name) > maxLen {
		errs = append(errs, field.TooLong(path, "", maxLen))
	}
	return errs
}

// segmentErrors reports the first of parts that check refuses, each of
// its messages about the whole segment: the next ones would say the
// same.
func segmentErrors(path *field.Path, segment string, parts []string, check func(string) []string) field.ErrorList {
	for _, p := range parts {
		msgs := check(p)
		if len(msgs) == 0 {
			continue
		}
		errs := make(field.ErrorList, 0, len(msgs))
		for _, m := range msgs {
			errs = append(errs, field.Invalid(path, segment, fmt.Sprintf("validating label %q: %s", p, m)))
		}
		return errs
	}
	return nil
}
