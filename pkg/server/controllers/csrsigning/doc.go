// Package csrsigning signs approved CertificateSigningRequests with the
// cluster's CA, as kube-controller-manager's csrsigning controller does
// when it is given the cluster signing key: for the
// kubernetes.io/kube-apiserver-client signer (any client of the API
// server; the certificate's common name is the user, its organizations
// the groups), and for the two kubelet signers,
// kubernetes.io/kube-apiserver-client-kubelet and
// kubernetes.io/kubelet-serving.
//
//	CertificateSigningRequests (informer) -> Decide
//	      -> Skip: not approved, denied, failed, issued, or another signer's
//	      -> Fail: add a Failed condition (SignerValidationFailure) when the
//	         request asks for what its signer does not issue
//	      -> Sign: Template, signed by the CA (Signer), into status.certificate
//
// The certificate names what the request's subject and alternative names
// say, has exactly the usages the request's spec lists, and lasts
// spec.expirationSeconds (at least ten minutes), or Options.Duration (a
// year) when that is shorter or unset, never past the CA's own expiry.
// It is backdated five minutes for clocks that lag. The controller never
// holds the CA's key: it hands a template to the Signer. Which request
// to sign for what is a pure function (Decide, Template).
package csrsigning
