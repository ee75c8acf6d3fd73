// Package serviceaccount is the pure core of ServiceAccount tokens, as
// kube-apiserver's TokenRequest, TokenReview and service account token
// authenticator use it: signing keys and their IDs, issuing a token's
// claims as a compact JWS, validating a presented token against the
// server's public keys, issuers and audiences, checking that the objects
// it is bound to still exist, the user it authenticates as, the OIDC
// discovery documents, and TokenRequest's defaults and limits.
//
// It knows no HTTP and no storage: the endpoints serve what it renders,
// the registry's strategies call its TokenRequest rules, and whoever
// authenticates a request hands it a Getter for the bound objects. It
// uses only the standard library's crypto, never a JOSE module, and
// produces tokens byte-for-byte as kube-apiserver v1.33 does (same
// header, same claim names, shapes and order) so that tokens, key IDs
// and discovery documents interoperate with Kubernetes tooling.
package serviceaccount
