package csrsigning

import (
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
)

// check refuses, with kube's message, a request its signer does not
// issue; usages is the set the spec lists.
type check func(req *x509.CertificateRequest, usages []certificatesv1.KeyUsage) error

// signers are the signers this controller serves, with what each
// issues.
var signers = map[string]check{
	certificatesv1.KubeAPIServerClientSignerName:        apiServerClient,
	certificatesv1.KubeAPIServerClientKubeletSignerName: kubeletClient,
	certificatesv1.KubeletServingSignerName:             kubeletServing,
}

// apiServerClient issues client certificates for anyone: client auth,
// optionally with digital signature and key encipherment, whatever the
// subject.
func apiServerClient(_ *x509.CertificateRequest, usages []certificatesv1.KeyUsage) error {
	for _, u := range usages {
		switch u {
		case certificatesv1.UsageClientAuth, certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment:
		default:
			return fmt.Errorf("invalid usage for client certificate: %s", u)
		}
	}
	if !slices.Contains(usages, certificatesv1.UsageClientAuth) {
		return fmt.Errorf("missing required usage for client certificate: %s", certificatesv1.UsageClientAuth)
	}
	return nil
}

// The kubelet signers' refusals, in kube's words.
var (
	errNotNodes = errors.New("subject organization is not system:nodes")
	//lint:ignore ST1005 kube's wording, which clients see in the Failed condition
	errNotNodeName = errors.New("subject common name does not begin with system:node:")
	errNoServeSAN  = errors.New("DNS or IP subjectAltName is required")
	errDNSSAN      = errors.New("DNS subjectAltNames are not allowed")
	//lint:ignore ST1005 kube's wording, which clients see in the Failed condition
	errEmailSAN = errors.New("Email subjectAltNames are not allowed")
	errIPSAN    = errors.New("IP subjectAltNames are not allowed")
	errURISAN   = errors.New("URI subjectAltNames are not allowed")
)

// nodePrefix starts the common name of every node's identity.
const nodePrefix = "system:node:"

// kubeletClient issues a node's client certificate: system:node:<name>
// in system:nodes, no alternative names, for client auth.
func kubeletClient(req *x509.CertificateRequest, usages []certificatesv1.KeyUsage) error {
	switch {
	case !slices.Equal(req.Subject.Organization, []string{"system:nodes"}):
		return errNotNodes
	case len(req.DNSNames) > 0:
		return errDNSSAN
	case len(req.EmailAddresses) > 0:
		return errEmailSAN
	case len(req.IPAddresses) > 0:
		return errIPSAN
	case len(req.URIs) > 0:
		return errURISAN
	case !strings.HasPrefix(req.Subject.CommonName, nodePrefix):
		return errNotNodeName
	}
	return usagesMatch(usages, certificatesv1.UsageClientAuth)
}

// kubeletServing issues a node's serving certificate:
// system:node:<name> in system:nodes, for its DNS names or addresses,
// for server auth.
func kubeletServing(req *x509.CertificateRequest, usages []certificatesv1.KeyUsage) error {
	switch {
	case !slices.Equal(req.Subject.Organization, []string{"system:nodes"}):
		return errNotNodes
	case len(req.DNSNames) == 0 && len(req.IPAddresses) == 0:
		return errNoServeSAN
	case len(req.EmailAddresses) > 0:
		return errEmailSAN
	case len(req.URIs) > 0:
		return errURISAN
	}
	if err := usagesMatch(usages, certificatesv1.UsageServerAuth); err != nil {
		return err
	}
	if !strings.HasPrefix(req.Subject.CommonName, nodePrefix) {
		return errNotNodeName
	}
	return nil
}

// usagesMatch accepts digital signature and auth, with or without key
// encipherment (which only RSA keys use), and nothing else, each listed
// any number of times.
func usagesMatch(usages []certificatesv1.KeyUsage, auth certificatesv1.KeyUsage) error {
	want := []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, auth}
	slices.Sort(want)
	got := slices.Compact(slices.Sorted(slices.Values(usages)))
	noRSA := slices.DeleteFunc(slices.Clone(want), func(u certificatesv1.KeyUsage) bool { return u == certificatesv1.UsageKeyEncipherment })
	if slices.Equal(got, want) || slices.Equal(got, noRSA) {
		return nil
	}
	return fmt.Errorf("usages did not match %v", want)
}
